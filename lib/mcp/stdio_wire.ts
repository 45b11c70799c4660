// The MCP stdio wire: one JSON-RPC message per line on stdin and stdout, each line bounded, and
// every line that is not a message answered with a JSON-RPC error instead of being dropped.
//
// Why not the SDK's StdioServerTransport (@modelcontextprotocol/server 2.4.0, dist/stdio.mjs): it
// skips a line that is not JSON without a word (ReadBuffer.readMessage `continue`s on SyntaxError),
// reports one that is not a JSON-RPC message only to its own error hook, and closes the whole
// connection when a line outgrows its 10 MiB buffer. A client that sent a broken request then
// waits for an answer that never comes, and one long line takes the agent's hands away for good.
// JSON-RPC 2.0 (https://www.jsonrpc.org/specification, "5.1 Error object") answers both: -32700
// for text that is not JSON, -32600 for JSON that is not a valid request, with a null id when the
// request's id cannot be read.
//
// It also keeps the two promises a client relies on that the SDK leaves to the transport: a
// request line that is not UTF-8 is refused with where it breaks (never decoded with U+FFFD and
// run as if the user typed that), a request reusing the id of one still in flight is refused
// without running, and at the end of input every request already in flight is answered before
// the wire closes (bounded by drainLimitMs).

import {
  INVALID_REQUEST,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  serializeMessage,
  type Transport,
} from "@modelcontextprotocol/server";
import { type Clock, realClock } from "../core/clock.ts";
import {
  answer,
  type Framed,
  type Id,
  isId,
  judgeLineBytes,
  LineFramer,
  type LineVerdict,
  MAX_LINE_BYTES,
} from "./stdio_lines.ts";

/** What the wire reads from: Deno.stdin, or anything with its read() (null at the end). */
export interface ByteSource {
  read(into: Uint8Array): Promise<number | null>;
  /** Ends a pending read at once, so the process is free to exit (Deno.stdin.close()). */
  close?(): void;
}

/** What the wire writes to: Deno.stdout, or anything with its write() (which may write part). */
export interface ByteSink {
  write(bytes: Uint8Array): Promise<number>;
}

/** Bytes asked of the input per read: a whole request line in one read, almost always. */
const READ_BYTES = 64 * 1024;

export interface StdioWireOptions {
  /** The longest line read, in bytes (MAX_LINE_BYTES unless a test wants a small one). */
  maxLineBytes?: number;
  /**
   * Runs after each message has been written whole (not after a failed write): where main.ts
   * collects a screenshot's garbage and starts loading the eyes, with the answer already out.
   * What it throws goes to onerror; the send still succeeds.
   */
  afterSend?: (message: JSONRPCMessage) => void;
  /**
   * How long the wire waits, once its input has ended, for the answers to requests still in
   * flight before it closes anyway: the longest deadline a call runs under (main.ts says which).
   */
  drainLimitMs?: number;
  /** What the drain limit is timed on (the machine's clock unless a test passes a fake one). */
  clock?: Clock;
}

/** The drain limit when none is given: a look's default budget and one adb deadline (config.ts). */
const DEFAULT_DRAIN_LIMIT_MS = 65_000;

/** What a response answers: its id, when it is a result or an error for a request. */
function answeredId(message: JSONRPCMessage): Id | undefined {
  if (!("result" in message) && !("error" in message)) return undefined;
  const id = (message as { id?: unknown }).id;
  return isId(id) ? id : undefined;
}

/**
 * The server's side of the stdio wire (main.ts passes Deno.stdin and Deno.stdout). Reads and
 * writes go straight to the resources, not through Web Streams: the first `Deno.stdin.readable`
 * or `Deno.stdout.writable` costs some 6 ms of start-up on this project's machines, before any
 * message can be read (bench/hand_bench.ts). Messages are written whole and in order. When the
 * input ends it answers what is in flight first (each request within its own deadline, all within
 * drainLimitMs), then closes, as the MCP stdio transport says a server should: a tap whose request
 * was the client's last line still gets its answer.
 */
export class StdioWire implements Transport {
  onclose?: Transport["onclose"];
  onerror?: Transport["onerror"];
  onmessage?: Transport["onmessage"];

  readonly #input: ByteSource;
  readonly #output: ByteSink;
  readonly #maxLineBytes: number;
  readonly #afterSend: ((message: JSONRPCMessage) => void) | undefined;
  readonly #drainLimitMs: number;
  readonly #clock: Clock;
  #started = false;
  #closed = false;
  /** The last write queued: each message is written whole after the one before it. */
  #writing: Promise<void> = Promise.resolve();
  /** The ids of the requests read and not yet answered (nor cancelled by the client). */
  readonly #inFlight = new Set<Id>();
  /** The input has ended: the wire closes once nothing is in flight. */
  #inputEnded = false;
  #cancelDrainLimit: () => void = () => {};
  #markClosed: () => void = () => {};
  /** Settles once the wire has closed, after its last answer was written. */
  readonly closed: Promise<void> = new Promise((resolve) => this.#markClosed = resolve);

  constructor(input: ByteSource, output: ByteSink, options: StdioWireOptions = {}) {
    this.#input = input;
    this.#output = output;
    this.#maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
    this.#afterSend = options.afterSend;
    this.#drainLimitMs = options.drainLimitMs ?? DEFAULT_DRAIN_LIMIT_MS;
    this.#clock = options.clock ?? realClock;
  }

  /** How many requests are waiting for their answer. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  start(): Promise<void> {
    if (this.#started) return Promise.reject(new Error("StdioWire already started"));
    this.#started = true;
    void this.#read();
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    const id = answeredId(message);
    return this.#write(message, () => {
      if (id !== undefined && this.#inFlight.delete(id)) this.#closeIfDrained();
    });
  }

  /** An answer of the wire's own (a broken line, a reused id): it answers no request in flight. */
  #answer(error: JSONRPCErrorResponse): void {
    this.#write(error, () => {}).catch(() => {});
  }

  #write(message: JSONRPCMessage, whenWritten: () => void): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("the stdio wire is closed"));
    const bytes = new TextEncoder().encode(serializeMessage(message));
    const written = this.#writing.then(() => this.#writeAll(bytes));
    this.#writing = written.catch(() => {});
    return written.then(() => {
      this.#sent(message);
      whenWritten();
    }, (error) => {
      // The client stopped reading (its end of the pipe is gone): nothing more can be said.
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      void this.close();
      throw error;
    });
  }

  /** Once the input has ended and the last answer is out, the wire closes. */
  #closeIfDrained(): void {
    if (this.#inputEnded && this.#inFlight.size === 0) void this.close();
  }

  /** The input ended: close now, or once what is in flight is answered, or at the drain limit. */
  #inputEnd(): void {
    if (this.#closed) return;
    this.#inputEnded = true;
    if (this.#inFlight.size > 0) {
      this.#cancelDrainLimit = this.#clock.setTimer(this.#drainLimitMs, () => void this.close());
    }
    this.#closeIfDrained();
  }

  #sent(message: JSONRPCMessage): void {
    try {
      this.#afterSend?.(message);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    this.#cancelDrainLimit();
    try {
      this.#input.close?.(); // ends the pending read
    } catch {
      // Already closed: nothing to end.
    }
    this.onclose?.();
    this.#markClosed();
    return Promise.resolve();
  }

  async #writeAll(bytes: Uint8Array): Promise<void> {
    for (let at = 0; at < bytes.length;) at += await this.#output.write(bytes.subarray(at));
  }

  async #read(): Promise<void> {
    const framer = new LineFramer(this.#maxLineBytes);
    const buffer = new Uint8Array(READ_BYTES); // the framer copies what it keeps
    try {
      for (;;) {
        const n = await this.#input.read(buffer);
        if (n === null || this.#closed) break;
        for (const piece of framer.push(buffer.subarray(0, n))) this.#handle(piece);
        // Answers to broken lines are not awaited one by one; a client that floods them without
        // reading stdout is held here, so the unsent answers cannot pile up in memory.
        await this.#writing;
      }
      if (!this.#closed) { for (const piece of framer.end()) this.#handle(piece); }
    } catch (error) {
      if (!this.#closed) this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      void this.close();
      return;
    }
    this.#inputEnd();
  }

  #handle(piece: Framed): void {
    const verdict = piece.kind === "overflow"
      ? answer(
        null,
        INVALID_REQUEST,
        `Invalid Request: a line longer than ${piece.maxBytes} bytes was discarded; no MCP request needs one that long`,
      )
      : this.#admit(judgeLineBytes(piece.bytes));
    if (verdict.kind === "message") this.onmessage?.(verdict.message);
    else if (verdict.kind === "answer") this.#answer(verdict.error);
  }

  /**
   * Counts a request in flight, or refuses it when its id already is: two answers with one id
   * could not be told apart, so the second request is answered with an error and never run. A
   * cancelled request leaves the count (MCP: no answer is sent for it).
   */
  #admit(verdict: LineVerdict): LineVerdict {
    if (verdict.kind !== "message") return verdict;
    const message = verdict.message as { method?: unknown; id?: unknown; params?: unknown };
    if (typeof message.method !== "string") return verdict;
    if (isId(message.id)) {
      if (this.#inFlight.has(message.id)) {
        return answer(
          message.id,
          INVALID_REQUEST,
          `Invalid Request: request id ${
            JSON.stringify(message.id)
          } is already in flight, so this request was not run; give each request its own id`,
        );
      }
      this.#inFlight.add(message.id);
    } else if (message.method === "notifications/cancelled") {
      const requestId = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if (isId(requestId) && this.#inFlight.delete(requestId)) this.#closeIfDrained();
    }
    return verdict;
  }
}
