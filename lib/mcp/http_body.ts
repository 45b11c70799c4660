// Reads one request's body for the HTTP face: counted against the request budget as it arrives,
// cut at the size cap and at a deadline, so no client holds more memory or time than its share.

import type { Clock } from "../core/clock.ts";
import { refusal } from "./http_gate.ts";
import type { Lease } from "./http_limits.ts";

export interface BodyLimits {
  /** The largest body read, in bytes (413 beyond). */
  maxBytes: number;
  /** From the call to the body's end (408 past it). */
  deadlineMs: number;
  clock: Clock;
}

/** The body's bytes, or the refusal to answer with (nothing more of the body is read then). */
export type ReadBody = { bytes: Uint8Array<ArrayBuffer> } | { refused: Response };

/** 413 for a body over `maxBytes`. */
export function tooLarge(maxBytes: number): Response {
  return refusal(
    413,
    `Payload too large: a request body may be at most ${maxBytes} bytes; no MCP request needs more`,
  );
}

function tooSlow(deadlineMs: number): Response {
  return refusal(
    408,
    `Request timeout: the request body did not arrive within ${deadlineMs} ms; send the whole request at once`,
  );
}

function unreadable(): Response {
  return refusal(400, "Bad request: the request body broke off before its end");
}

/** The chunks as one array (the common single-chunk body is returned as it came). */
function joined(chunks: Uint8Array<ArrayBuffer>[], length: number): Uint8Array<ArrayBuffer> {
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return bytes;
}

/** Whether `request` declares a body longer than `maxBytes` (Content-Length). */
export function declaredTooLarge(request: Request, maxBytes: number): boolean {
  return Number(request.headers.get("content-length")) > maxBytes;
}

/**
 * Reads `request`'s body whole. A declared Content-Length over the cap is refused before anything
 * is read; otherwise each chunk is counted in `lease` as it arrives, so a client that streams a
 * body over its share, or over what the server holds, is refused at that chunk (429 or 503).
 */
export async function readBody(
  request: Request,
  lease: Lease,
  limits: BodyLimits,
): Promise<ReadBody> {
  if (declaredTooLarge(request, limits.maxBytes)) return { refused: tooLarge(limits.maxBytes) };
  if (request.body === null) return { bytes: new Uint8Array(0) };
  const reader = request.body.getReader();
  let late = false;
  const cancelTimer = limits.clock.setTimer(limits.deadlineMs, () => {
    late = true;
    reader.cancel().catch(() => {});
  });
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let length = 0;
  const stop = (refused: Response): ReadBody => {
    reader.cancel().catch(() => {});
    return { refused };
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (late) return { refused: tooSlow(limits.deadlineMs) };
      if (done) return { bytes: joined(chunks, length) };
      length += value.length;
      if (length > limits.maxBytes) return stop(tooLarge(limits.maxBytes));
      const over = lease.hold(value.length);
      if (over !== undefined) return stop(over);
      chunks.push(value);
    }
  } catch {
    // The client went away or broke the body off: its answer has no one to reach, but it is logged.
    return { refused: late ? tooSlow(limits.deadlineMs) : unreadable() };
  } finally {
    cancelTimer();
  }
}

/**
 * Reads and drops `request`'s body when it is at most `maxBytes` long and arrives within
 * `deadlineMs`, so the refusal about to be sent reaches the client (see DRAIN_MAX_BYTES). Never
 * throws; a longer or slower body is cancelled and left to the connection's close.
 */
export async function dropBody(
  request: Request,
  limits: { maxBytes: number; deadlineMs: number; clock: Clock },
): Promise<void> {
  if (request.body === null || request.bodyUsed) return;
  if (declaredTooLarge(request, limits.maxBytes)) return;
  const reader = request.body.getReader();
  const cancelTimer = limits.clock.setTimer(limits.deadlineMs, () => {
    reader.cancel().catch(() => {});
  });
  let length = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      length += value.length;
      if (length > limits.maxBytes) return void reader.cancel().catch(() => {});
    }
  } catch {
    // The client went away, or the deadline cancelled the read.
  } finally {
    cancelTimer();
  }
}
