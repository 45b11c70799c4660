// createServer(deps): the MCP server with phone-eye's tool list registered; no I/O of its own.
// Maps every failure to a readable tool result (isError) so the agent never sees a stack trace.

import {
  type CallToolResult,
  McpServer,
  type ProgressNotification,
  type ServerContext,
  type StandardSchemaWithJSON,
} from "@modelcontextprotocol/server";
import type { z } from "zod";
import { VERSION } from "./config.ts";
import listing from "./tools/listing.json" with { type: "json" };
import {
  agentMessage,
  callSchema,
  errorResult,
  LISTED_SCHEMA_TARGET,
  type ListedTool,
  type Listing,
  type ToolCall,
  type ToolDef,
  type ToolDeps,
  ToolInputError,
} from "./tools/tool.ts";

export const INSTRUCTIONS =
  `phone-eye drives one real Android phone. Work in a loop: look → act → look.
1. phone_look (optionally with a question) to see the screen: [vision] is a vision model's reading, [ui-tree] lists elements with exact bounds in device pixels.
2. Act with phone_tap / phone_swipe / phone_type / phone_key / phone_intent. To tap something the vision answer names, use its [points] line: the point snapped to the element under or just beside it, with that element's center to tap (vision coordinates drift, tree bounds are exact), or the point itself where no element is there.
3. Look again to confirm the action did what you meant before the next step.
All coordinates are device pixels. If a tool says it reconnected, look first, then repeat the action only if it did not happen.`;

export interface ServerDeps extends ToolDeps {
  /** Where unexpected failures are reported (stderr in production); never the tool result. */
  logError: (message: string) => void;
}

/** Turns any failure into a tool result the agent can read; unexpected ones are logged. */
function failureResult(tool: string, error: unknown, deps: ServerDeps): CallToolResult {
  const message = agentMessage(error);
  if (message !== undefined) return errorResult(message);
  const detail = error instanceof Error ? error.message : String(error);
  deps.logError(`${tool} failed unexpectedly: ${detail}`);
  return errorResult(`${tool} failed unexpectedly: ${detail}`);
}

/**
 * The call's cancellation signal, and progress reporting when the client sent a progress token
 * (`_meta.progressToken`): the notification then carries that token, as the protocol requires.
 */
function toolCall(ctx: ServerContext): ToolCall {
  const token = ctx.mcpReq._meta?.progressToken;
  return {
    signal: ctx.mcpReq.signal,
    progress: token === undefined ? undefined : (update) =>
      ctx.mcpReq.notify(
        {
          method: "notifications/progress",
          params: { ...update, progressToken: token },
        } satisfies ProgressNotification,
      ),
  };
}

/**
 * Refuses a string argument holding a lone UTF-16 surrogate (half of a pair, with no other half).
 * JSON can carry one ("\ud800"), but it is not a character: UTF-8 cannot encode it, so what would
 * reach adb or the vision model is U+FFFD, not what the agent sent.
 */
function refuseLoneSurrogates(args: unknown): void {
  if (args === null || typeof args !== "object") return;
  for (const [field, value] of Object.entries(args)) {
    if (typeof value !== "string" || value.isWellFormed()) continue;
    let at = 0;
    for (const char of value) {
      const code = char.codePointAt(0) ?? 0;
      if (code >= 0xd800 && code <= 0xdfff) {
        throw new ToolInputError(
          `Refused ${field}: it holds a lone UTF-16 surrogate (U+${
            code.toString(16).toUpperCase()
          } at character ${at}), half of a pair that is not a character and cannot be sent intact; send well-formed Unicode text`,
        );
      }
      at++;
    }
  }
}

let verbs: Promise<ReadonlyMap<string, ToolDef>> | undefined;

/**
 * A verb's definition: its zod schema, its handler and the adb commands under it. They load with
 * the first call to any verb, not at start-up, which lists from lib/tools/listing.json.
 */
async function verb(name: string): Promise<ToolDef> {
  verbs ??= import("./tools/index.ts").then(({ TOOLS }) => new Map(TOOLS.map((t) => [t.name, t])));
  const tool = (await verbs).get(name);
  if (tool === undefined) {
    throw new Error(`${name} is listed but not defined: run deno task listing`);
  }
  return tool;
}

/**
 * A listed tool's input schema as the SDK takes one (Standard Schema with JSON Schema): tools/list
 * gets the JSON Schema the listing holds, and a call's arguments are checked by the definition's
 * own zod schema, built on the first call.
 */
function listedSchema(listed: ListedTool): StandardSchemaWithJSON {
  let schema: Promise<z.ZodObject> | undefined;
  const jsonSchema = ({ target }: { target: string }) => {
    if (target !== LISTED_SCHEMA_TARGET) {
      throw new Error(
        `${listed.name}'s listing holds its schema in ${LISTED_SCHEMA_TARGET}, not ${target}`,
      );
    }
    // A copy: what the SDK hands on (in process, by reference) can never edit the listing.
    return structuredClone(listed.inputSchema);
  };
  return {
    "~standard": {
      version: 1,
      vendor: "phone-eye",
      async validate(value) {
        schema ??= verb(listed.name).then(callSchema);
        return await (await schema)["~standard"].validate(value);
      },
      jsonSchema: { input: jsonSchema, output: jsonSchema },
    },
  };
}

export function createServer(deps: ServerDeps): McpServer {
  const server = new McpServer(
    { name: "phone-eye", version: VERSION },
    { instructions: INSTRUCTIONS },
  );
  for (const listed of (listing as Listing).tools) {
    server.registerTool(
      listed.name,
      {
        title: listed.title,
        description: listed.description,
        inputSchema: listedSchema(listed),
        annotations: listed.annotations,
      },
      async (args: unknown, ctx: ServerContext) => {
        try {
          refuseLoneSurrogates(args);
          const tool = await verb(listed.name);
          return await tool.handler(deps, args as never, toolCall(ctx));
        } catch (error) {
          return failureResult(listed.name, error, deps);
        }
      },
    );
  }
  return server;
}
