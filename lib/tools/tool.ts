// What a tool is (name, schema, annotations, handler) and how it registers itself with the SDK,
// its arguments checked first. Every verb file in lib/tools/ exports one Tool; server.ts registers them.

import type {
  CallToolResult,
  McpServer,
  ServerContext,
  StandardSchemaV1,
  StandardSchemaWithJSON,
  ToolAnnotations,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { SERIAL_MAX_LENGTH, SERIAL_PATTERN } from "../config/serial.ts";
import { argumentProblems, type ArgumentRule } from "./argument_words.ts";
import type { PhoneDeps, ToolCall, ToolDeps } from "./call.ts";

/**
 * The `device` argument every verb that drives a phone takes. The schema whitelists it (printable
 * ASCII, no space, quote or shell operator, lib/config/serial.ts) before anything else runs; the
 * phones' rule (lib/adb/phones.ts) then checks it against the phones this server may drive.
 */
export const deviceArg = (): z.ZodOptional<z.ZodString> =>
  z.string().max(SERIAL_MAX_LENGTH).regex(SERIAL_PATTERN, {
    error:
      "device must be an adb serial as phone_devices lists it: letters, digits and . : _ - [ ] %, with no space, quote, control character or shell character",
  }).optional().describe("a serial from phone_devices");

/**
 * A tool's input schema: a zod object built with z.strictObject, so an argument the tool does not
 * know is refused, not dropped. A misspelt "duration" for "duration_ms" would otherwise run a
 * 300 ms swipe the agent did not ask for. The SDK lists it as JSON Schema and checks calls with it.
 * (zod's types do not tell a strict object from a stripping one: tests/tools/tool_schema_test.ts sends
 * every tool an unknown argument.)
 */
export type ToolSchema = z.ZodObject<z.ZodRawShape, z.core.$strict>;

/** The arguments a schema gives its handler once a call has passed it. */
export type ArgsOf<Schema extends StandardSchemaWithJSON> = StandardSchemaWithJSON.InferOutput<
  Schema
>;

/** What every verb's definition holds. */
interface ToolDefBase<Schema extends ToolSchema> {
  name: string;
  title: string;
  description: string;
  inputSchema: Schema;
  annotations: ToolAnnotations;
  /**
   * What the verb does, as the agent reads it when it fails: server.ts words every failure the
   * handler throws as "Cannot <action>: …" (failureWords, lib/core/errors.ts), the one place a
   * verb's failures get their words. A function of the arguments when they change it (phone_tap:
   * tap, double-tap, long-press).
   */
  action: string | ((args: ArgsOf<Schema>) => string);
  /**
   * Loads the modules the handler imports on first use (the eyes), so the server can load them
   * in the background once it is idle (server.ts, preloadTools) and the first call is no slower.
   */
  preload?: () => Promise<unknown>;
}

/** A call's arguments as the schema judged them: accepted and typed, or refused in our words. */
export type Checked<Args> = { ok: true; args: Args } | { ok: false; refusal: string };
/** A verb that drives one phone: the server resolves its `device` (deviceArg) before the handler. */
export interface PhoneToolDef<Schema extends ToolSchema> extends ToolDefBase<Schema> {
  phone?: true;
  handler: (deps: PhoneDeps, args: ArgsOf<Schema>, call: ToolCall) => Promise<CallToolResult>;
}

/** A verb about the server itself (phone_devices): no phone is resolved for it. */
export interface ServerToolDef<Schema extends ToolSchema> extends ToolDefBase<Schema> {
  phone: false;
  handler: (deps: ToolDeps, args: ArgsOf<Schema>, call: ToolCall) => Promise<CallToolResult>;
}

/** One verb as written in its file: the handler's arguments are typed by its own schema. */
export type ToolDef<Schema extends ToolSchema> = PhoneToolDef<Schema> | ServerToolDef<Schema>;

/** What the SDK runs for a call: the handler with the server's resources, failures mapped. */
export type ToolCallHandler<Schema extends ToolSchema> = (
  checked: Checked<ArgsOf<Schema>>,
  ctx: ServerContext,
) => Promise<CallToolResult>;

/**
 * Turns a definition's handler into what the SDK calls (server.ts: resources, progress,
 * failures as results). Generic, so each tool's arguments stay tied to its own schema.
 */
export type ServeTool = <Schema extends ToolSchema>(
  def: ToolDef<Schema>,
) => ToolCallHandler<Schema>;

/** A verb in the tool list: what the README and tests read, and how it registers itself. */
export interface Tool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: ToolSchema;
  readonly annotations: ToolAnnotations;
  readonly preload: (() => Promise<unknown>) | undefined;
  /** Registers the verb with `server`, its schema and its handler served by `serve`. */
  register(server: McpServer, serve: ServeTool): void;
}

/**
 * A verb for the tool list. Registration happens here, where the schema's type is still known, so
 * the SDK is handed each schema with a handler whose arguments it types: no cast at the seam.
 */
export function defineTool<Schema extends ToolSchema>(def: PhoneToolDef<Schema>): Tool {
  return toolOf(def);
}

/** A verb about the server, not one phone (phone_devices). */
export function defineServerTool<Schema extends ToolSchema>(
  def: Omit<ServerToolDef<Schema>, "phone">,
): Tool {
  return toolOf({ ...def, phone: false });
}

function toolOf<Schema extends ToolSchema>(def: ToolDef<Schema>): Tool {
  const { name, title, description, inputSchema, annotations, preload } = def;
  return {
    name,
    title,
    description,
    inputSchema,
    annotations,
    preload,
    register(server, serve) {
      const schema = checkedBy(name, inputSchema);
      server.registerTool<StandardSchemaWithJSON, typeof schema>(
        name,
        { title, description, inputSchema: schema, annotations: { title, ...annotations } },
        serve(def),
      );
    },
  };
}

/**
 * The schema the SDK is handed for a verb: the zod schema's own JSON Schema for tools/list, and a
 * validate that runs the zod check and passes its verdict on instead of failing. A failing
 * validate makes the SDK answer "Input validation error: Invalid arguments for tool …", whose first
 * words do not say the call failed, and Codex shows its model no isError flag, only the words; so
 * the refusal is worded here ("Refused: …") and served by server.ts like every other error.
 */
function checkedBy<Schema extends ToolSchema>(
  name: string,
  schema: Schema,
): StandardSchemaWithJSON<unknown, Checked<ArgsOf<Schema>>> {
  const own: StandardSchemaWithJSON<unknown, ArgsOf<Schema>>["~standard"] = schema["~standard"];
  const verdict = (
    result: StandardSchemaV1.Result<ArgsOf<Schema>>,
    args: unknown,
  ): StandardSchemaV1.Result<Checked<ArgsOf<Schema>>> => ({
    value: result.issues === undefined
      ? { ok: true, args: result.value }
      : { ok: false, refusal: refusalOf(name, result.issues, { args, schema }) },
  });
  return {
    "~standard": {
      version: 1,
      vendor: "phone-eye",
      jsonSchema: own.jsonSchema,
      validate(value) {
        const result = own.validate(value);
        return result instanceof Promise
          ? result.then((r) => verdict(r, value))
          : verdict(result, value);
      },
    },
  };
}

/**
 * "Refused: invalid arguments for phone_swipe: y2 is required (a whole number from 0 to 20000)":
 * each problem said as the rule the argument breaks, read from the schema's JSON Schema, the one
 * tools/list shows (argument_words.ts).
 */
export function refusalOf(
  tool: string,
  issues: readonly StandardSchemaV1.Issue[],
  given: { args: unknown; schema: ToolSchema },
): string {
  const said = argumentProblems(tool, issues, { args: given.args, rules: rulesOf(given.schema) });
  return `Refused: invalid arguments for ${tool}: ${said.join("; ")}`;
}

/** Each argument's JSON Schema, by name, as tools/list shows it: the rules the words say. */
function rulesOf(schema: ToolSchema): Record<string, ArgumentRule> {
  const json = schema["~standard"].jsonSchema.input({ target: "draft-2020-12" });
  return (json["properties"] ?? {}) as Record<string, ArgumentRule>;
}

/** Annotations for verbs that act on the phone: a tap can confirm a payment, so no soft claims. */
export const ACTS_ON_PHONE: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

/** Annotations for verbs that only look. */
export const LOOKS_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  idempotentHint: true,
  openWorldHint: true,
};
