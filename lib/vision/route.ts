// What a vision route is (the Vision interface and the image it reads) and the plumbing every
// route shares: the image as a data URL, the endpoint safe to print, one deadline per call.

import type { Clock } from "../core/clock.ts";
import type { VisionConfig } from "../config/config.ts";

export interface VisionImage {
  bytes: Uint8Array;
  mimeType: "image/jpeg" | "image/png";
  width: number;
  height: number;
}

/** Why vision is off, in the words each reader needs. */
export interface VisionOff {
  /** For the person setting phone-eye up (the doctor): what to set or fix, then restart. */
  setup: string;
  /**
   * For the agent, on a session's first look, after "Vision unavailable: ": what it can do
   * without vision, and what the user could set.
   */
  note: string;
  /** For the agent, one line on every look after the first. */
  brief: string;
}

export interface Vision {
  readonly route: "direct" | "mcp" | "none";
  /** scheme://host[:port] of the vision server, for messages: never a path, query or key. */
  readonly endpoint: string;
  /**
   * Why no route can be used (vision unset, or its settings invalid); undefined when a route is
   * set. Ask this rather than calling describe() to learn that vision is off.
   */
  readonly unavailable: VisionOff | undefined;
  /** The model's answer as text; every failure is a VisionError. */
  describe(image: VisionImage, prompt: string, signal?: AbortSignal): Promise<string>;
  /** Releases connections (the MCP session); describe() may not be called afterwards. */
  close(): Promise<void>;
}

/** What a route reaches the world through: main.ts passes the real ones, tests their own. */
export interface RouteDeps {
  fetch: typeof fetch;
  /** What each call's deadline (and the MCP handshake's bound) runs on. */
  clock: Clock;
}

export type DirectVisionConfig = Extract<VisionConfig, { route: "direct" }>;
export type McpVisionConfig = Extract<VisionConfig, { route: "mcp" }>;

/** The image as the base64 data URL both routes send. */
export function imageDataUrl(image: VisionImage): string {
  return `data:${image.mimeType};base64,${image.bytes.toBase64()}`;
}

/** scheme://host[:port] of a configured URL: safe to print, since paths and queries may hold tokens. */
export function endpointOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "(invalid URL)";
  }
}

/** One deadline for a whole describe() call, merged with the caller's signal. */
export interface Deadline {
  readonly signal: AbortSignal;
  /** Milliseconds left before the deadline (at least 1, so SDK timeouts stay valid). */
  remainingMs(): number;
  /** Why the signal fired, if it did. */
  reason(): "timeout" | "caller" | undefined;
  clear(): void;
}

export function startDeadline(timeoutMs: number, clock: Clock, caller?: AbortSignal): Deadline {
  const controller = new AbortController();
  const endsAt = clock.now() + timeoutMs;
  let why: "timeout" | "caller" | undefined;
  const onCaller = () => {
    why ??= "caller";
    controller.abort(caller?.reason);
  };
  // A timer (not AbortSignal.timeout) so clear() leaves nothing running behind the call.
  const cancelTimer = clock.setTimer(timeoutMs, () => {
    why ??= "timeout";
    controller.abort(new DOMException(`vision call exceeded ${timeoutMs} ms`, "TimeoutError"));
  });
  if (caller?.aborted) onCaller();
  else caller?.addEventListener("abort", onCaller, { once: true });
  return {
    signal: controller.signal,
    remainingMs: () => Math.max(1, endsAt - clock.now()),
    reason: () => why,
    clear() {
      cancelTimer();
      caller?.removeEventListener("abort", onCaller);
    },
  };
}
