// How much of a vision server's response phone-eye reads: every body is capped, and cancelled (so
// the socket closes and the server stops sending) when the cap, the deadline or the caller ends it.

/**
 * The most phone-eye reads of one response. A description is a few KB of text; 4 MiB leaves room for
 * verbose models and JSON or SSE framing, and is the request limit SDK v2 servers apply themselves.
 */
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** The words for the cap in messages: "4 MiB". */
export function capWords(maxBytes: number): string {
  return maxBytes % (1024 * 1024) === 0 ? `${maxBytes / (1024 * 1024)} MiB` : `${maxBytes} bytes`;
}

export interface CappedText {
  /** The body as UTF-8, up to the cap. */
  text: string;
  /** The body went past the cap: `text` is its start, and the rest was never read. */
  truncated: boolean;
}

/**
 * Reads `body` as UTF-8 up to `maxBytes`, then cancels it. When `signal` aborts, cancels the body and
 * rejects with the signal's reason, whatever fetch itself does with an abort that comes mid-body.
 */
export async function readCapped(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  signal: AbortSignal,
): Promise<CappedText> {
  if (body === null) return { text: "", truncated: false };
  const reader = body.getReader();
  const onAbort = () => void reader.cancel(signal.reason).catch(() => {});
  signal.addEventListener("abort", onAbort, { once: true });
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let seen = 0;
  let truncated = false;
  try {
    while (true) {
      if (signal.aborted) throw signal.reason;
      const { value, done } = await reader.read();
      if (signal.aborted) throw signal.reason;
      if (done) break;
      const room = maxBytes - seen;
      if (value.length > room) {
        parts.push(decoder.decode(value.subarray(0, room), { stream: true }));
        truncated = true;
        break;
      }
      seen += value.length;
      parts.push(decoder.decode(value, { stream: true }));
    }
    parts.push(decoder.decode());
    return { text: parts.join(""), truncated };
  } finally {
    signal.removeEventListener("abort", onAbort);
    // Ends the body on every way out (cap, abort, error): a no-op when it was read to the end.
    await reader.cancel().catch(() => {});
  }
}

/** The error a capped body's reader sees past the cap. */
export class CapExceeded extends Error {
  override name = "CapExceeded";
  constructor(readonly maxBytes: number) {
    super(`the response passed the ${capWords(maxBytes)} cap`);
  }
}

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** A fetch whose every response body is capped, and which can end all of them at once. */
export interface CappedFetch {
  readonly fetch: typeof fetch;
  /** Cancels every body open now; their readers see `reason`. */
  cancelOpen(reason: unknown): void;
  /** cancelOpen(), and refuses every later request: nothing more is read through it. */
  hangUp(reason: unknown): void;
}

/**
 * Wraps `fetchFn` for a client that parses bodies itself (the MCP SDK's JSON and SSE readers).
 * A successful response past `maxBytes` errors its reader with CapExceeded and calls `onOverflow`;
 * a failure status is cut quietly at the cap instead, since only its first words are ever quoted.
 */
export function cappedFetch(
  fetchFn: typeof fetch,
  cap: { maxBytes: number; onOverflow: () => void },
): CappedFetch {
  const { maxBytes, onOverflow } = cap;
  const open = new Set<(reason: unknown) => void>();
  let ended: { reason: unknown } | undefined;
  // A function, so the check after the await reads the current value (hangUp() may run meanwhile).
  const hungUp = () => ended;
  const wrapped: typeof fetch = async (input, init) => {
    if (ended) throw ended.reason;
    const response = await fetchFn(input, init);
    // A Response with these statuses cannot be rebuilt with a body; they carry none worth reading.
    if (response.body === null || NULL_BODY_STATUSES.has(response.status)) return response;
    const late = hungUp();
    if (late) {
      await response.body.cancel().catch(() => {});
      throw late.reason;
    }
    const capped = capStream(response.body, {
      maxBytes,
      onOverflow: response.ok ? onOverflow : undefined,
      open,
    });
    return new Response(capped, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
  const cancelOpen = (reason: unknown) => {
    for (const cancel of [...open]) cancel(reason);
  };
  return {
    fetch: wrapped,
    cancelOpen,
    hangUp(reason) {
      ended ??= { reason };
      cancelOpen(reason);
    },
  };
}

/** How capStream caps one body, and where it registers its cancel. */
interface StreamCap {
  maxBytes: number;
  /** Past the cap, the reader gets CapExceeded and this is called; without it the stream ends. */
  onOverflow: (() => void) | undefined;
  /** The cancels of every body open now (cappedFetch's cancelOpen calls them). */
  open: Set<(reason: unknown) => void>;
}

/**
 * `source` passed through up to `maxBytes`. Past it: with `onOverflow`, the reader gets CapExceeded;
 * without, the stream just ends there. Either way the source is cancelled. Pulls only on demand
 * (highWaterMark 0), so nothing is read ahead of the consumer. Registers its cancel in `open`.
 */
function capStream(source: ReadableStream<Uint8Array>, cap: StreamCap): ReadableStream<Uint8Array> {
  const { maxBytes, onOverflow, open } = cap;
  const reader = source.getReader();
  let seen = 0;
  let finished = false;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const finish = (reason?: unknown) => {
    if (finished) return false;
    finished = true;
    open.delete(cancelFromOutside);
    void reader.cancel(reason).catch(() => {});
    return true;
  };
  const cancelFromOutside = (reason: unknown) => {
    if (!finish(reason)) return;
    try {
      controller.error(reason);
    } catch {
      // already closed or errored
    }
  };
  open.add(cancelFromOutside);
  return new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    async pull(c) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (err) {
        if (finish()) c.error(err);
        return;
      }
      if (finished) return;
      if (chunk.done) {
        finish();
        c.close();
        return;
      }
      const room = maxBytes - seen;
      if (chunk.value.length <= room) {
        seen += chunk.value.length;
        c.enqueue(chunk.value);
        return;
      }
      finish();
      if (onOverflow === undefined) {
        if (room > 0) c.enqueue(chunk.value.subarray(0, room));
        c.close();
        return;
      }
      c.error(new CapExceeded(maxBytes));
      onOverflow();
    },
    cancel(reason) {
      finish(reason);
    },
  }, { highWaterMark: 0 });
}
