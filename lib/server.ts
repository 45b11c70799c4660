// createServer(deps): the MCP server with phone-eye's tool list registered; no I/O of its own.
// Maps every failure to a readable tool result (isError) so the agent never sees a stack trace.

import {
  type CallToolResult,
  McpServer,
  type ProgressNotification,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { VERSION } from "./config.ts";
import { TOOLS } from "./tools/index.ts";
import { agentMessage, errorResult, type ToolCall, type ToolDeps } from "./tools/tool.ts";

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

export function createServer(deps: ServerDeps): McpServer {
  const server = new McpServer(
    { name: "phone-eye", version: VERSION },
    { instructions: INSTRUCTIONS },
  );
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        annotations: { title: tool.title, ...tool.annotations },
      },
      async (args: unknown, ctx: ServerContext) => {
        try {
          return await tool.handler(deps, args as never, toolCall(ctx));
        } catch (error) {
          return failureResult(tool.name, error, deps);
        }
      },
    );
  }
  return server;
}
