// What a tool is (name, schema, annotations, handler) and how its failures become tool results.
// Every verb file in lib/tools/ exports one ToolDef; server.ts registers the list.

import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/server";
import type { z } from "zod";
import type { Device } from "../adb/device.ts";
import type { Clock } from "../clock.ts";
import { AgentError } from "../errors.ts";
import type { Vision } from "../vision/route.ts";

/** What the verbs need from the world, passed in so tests can hand over fakes as data. */
export interface ToolDeps {
  device: Device;
  vision: Vision;
  /**
   * Keeps a screenshot in PHONE_EYE_SHOTS and says where (or why not), never throwing; undefined
   * when no folder is configured, so screenshots never touch disk.
   */
  saveShot: ((png: Uint8Array) => Promise<string>) | undefined;
  /** How long phone_look may run before it answers with what has arrived (config.ts). */
  lookBudgetMs: number;
  /** What the look's budget, progress heartbeat and retries wait on (lib/clock.ts). */
  clock: Clock;
  /**
   * Asks for a collection once the answer is out (lib/memory.ts): a screenshot leaves megabytes of
   * buffers behind. main.ts gives it; tests may leave it out.
   */
  collectGarbage?: () => void;
}

/** One update for the client's progress display: `progress` must grow with every update. */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/** What the server knows about one call beyond its arguments. */
export interface ToolCall {
  /** Fires when the client cancels the call. */
  signal: AbortSignal;
  /** Sends a progress notification; undefined when the client asked for none (no token). */
  progress: ((update: ProgressUpdate) => Promise<void>) | undefined;
}

export interface ToolDef<Schema extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  inputSchema: Schema;
  annotations: ToolAnnotations;
  handler: (deps: ToolDeps, args: z.infer<Schema>, call: ToolCall) => Promise<CallToolResult>;
}

/** A refusal of the arguments themselves (not a device failure): shown to the agent as-is. */
export class ToolInputError extends AgentError<"INVALID_INPUT"> {
  override name = "ToolInputError";
  constructor(message: string, options?: ErrorOptions) {
    super("INVALID_INPUT", message, options);
  }
}

/**
 * The message of an error written for the agent (what failed, the state, what to do), or
 * undefined for an unexpected one, which the caller reports as such.
 */
export function agentMessage(error: unknown): string | undefined {
  return error instanceof AgentError ? error.message : undefined;
}

/**
 * The schema a call's arguments must pass: the tool's own, made strict, so an argument the tool
 * does not know is refused, not dropped. A misspelt "duration" for "duration_ms" would otherwise
 * run a 300 ms swipe the agent did not ask for.
 */
export function callSchema(tool: ToolDef): z.ZodObject {
  return tool.inputSchema.strict();
}

/** The JSON Schema draft the SDK asks a tool's schema for in tools/list (and the listing holds). */
export const LISTED_SCHEMA_TARGET = "draft-2020-12";

/** One tools/list entry, its input schema already in JSON Schema (lib/tools/listing.json). */
export interface ListedTool {
  name: string;
  title: string;
  description: string;
  annotations: ToolAnnotations;
  inputSchema: Record<string, unknown>;
}

/** lib/tools/listing.json, written by scripts/tool_listing.ts from the definitions. */
export interface Listing {
  $comment: string;
  tools: ListedTool[];
}

/** Defines a tool, keeping the schema's type tied to its handler's arguments. */
export function defineTool<Schema extends z.ZodObject>(def: ToolDef<Schema>): ToolDef<Schema> {
  return def;
}

export function textResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }] };
}

export function errorResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
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
