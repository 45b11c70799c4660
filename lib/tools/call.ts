// What a verb's call is given (the server's resources, the call's phone, its signal, progress and
// session) and how its answer becomes a tool result. tool.ts defines and registers the verbs.

import type { CallToolResult } from "@modelcontextprotocol/server";
import type { Device } from "../adb/device.ts";
import type { Phones } from "../adb/phones.ts";
import type { Clock } from "../core/clock.ts";
import type { MemoryHandle } from "../core/memory.ts";
import type { ReportProgress } from "../core/progress.ts";
import type { Session } from "../core/session.ts";
import type { Screens } from "../screen/phone_screen.ts";
import type { Vision } from "../vision/route.ts";
import type { CallRecord } from "./call_record.ts";

/**
 * The resources the verbs share, one object created per process (lib/app/real_deps.ts; tests build
 * their own with fakes as data).
 */
export interface ToolDeps {
  /** The phones this server may drive; a verb's call is given the one its `device` names. */
  phones: Phones;
  /** What the screen layer keeps per phone: the last screen read, how its dumps are read. */
  screens: Screens;
  vision: Vision;
  /**
   * Keeps a screenshot in PHONE_EYE_SHOTS and says where (or why not), never throwing; undefined
   * when no folder is configured, so screenshots never touch disk.
   */
  saveShot: ((png: Uint8Array) => Promise<string>) | undefined;
  /** How long phone_look may run before it answers with what has arrived (config.ts). */
  lookBudgetMs: number;
  /** What the look's budget, progress heartbeat and retries wait on (lib/core/clock.ts). */
  clock: Clock;
  /**
   * Where a verb says it left garbage worth collecting (a screenshot leaves megabytes of buffers
   * behind); lib/core/memory.ts collects it once the answer has been written.
   */
  memory: MemoryHandle;
}

/** What a verb that drives a phone is given: the server's resources and the call's phone. */
export interface PhoneDeps extends ToolDeps {
  /** The phone this call's `device` argument named (or the only one), from `phones`. */
  device: Device;
}

/** What the server knows about one call beyond its arguments. */
export interface ToolCall {
  /** Fires when the client cancels the call. */
  signal: AbortSignal;
  /** Sends a progress notification; undefined when the client asked for none (no token). */
  progress: ReportProgress | undefined;
  /** The session the call belongs to: what this client has already been told. */
  session: Session;
  /** What the verb found out that the journal keeps (lib/tools/call_record.ts). */
  record: CallRecord;
  /**
   * Who made the call, for its share of a phone (lib/adb/queue.ts, ClientShares): over HTTP the
   * MCP session, or the request where there is none; undefined on stdio, whose one client may use
   * the whole phone.
   */
  client?: string | undefined;
}

export function textResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }] };
}

export function errorResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}
