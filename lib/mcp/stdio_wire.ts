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
  PARSE_ERROR,
  parseJSONRPCMessage,
  serializeMessage,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
  type Transport,
} from "@modelcontextprotocol/server";
import { concatBytes } from "../core/bytes.ts";
import { type Clock, realClock } from "../core/clock.ts";

/** The longest line read, in bytes: the SDK's own stdio cap, far above any real request. */
export const MAX_LINE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;

/** One piece of input: a whole line (without its "\n"), or a line cut off at the cap. */
export type Framed = { kind: "line"; bytes: Uint8Array } | { kind: "overflow"; maxBytes: number };

const NEWLINE = 0x0a;

/**
 * Splits a byte stream into lines, keeping at most `maxBytes` of a line in memory. A longer line
 * is reported once as an overflow when it passes the cap, and the rest of it, up to its newline,
 * is skipped without being kept.
 */
export class LineFramer {
  readonly #max: number;
  #parts: Uint8Array[] = [];
  #length = 0;
  #skipping = false;

  constructor(maxBytes: number = MAX_LINE_BYTES) {
    this.#max = maxBytes;
  }

  push(chunk: Uint8Array): Framed[] {
    const out: Framed[] = [];
    let start = 0;
    while (start <= chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline < 0 ? chunk.length : newline;
      if (!this.#skipping) {
        if (this.#length + (end - start) > this.#max) {
          this.#parts = [];
          this.#length = 0;
          this.#skipping = true;
          out.push({ kind: "overflow", maxBytes: this.#max });
        } else if (end > start) {
          this.#parts.push(chunk.slice(start, end));
          this.#length += end - start;
        }
      }
      if (newline < 0) break;
      if (!this.#skipping) out.push({ kind: "line", bytes: this.#take() });
      this.#skipping = false;
      start = newline + 1;
    }
    return out;
  }

  /** The last line when the stream ends without a newline. */
  end(): Framed[] {
    const skipped = this.#skipping;
    this.#skipping = false;
    if (skipped || this.#length === 0) return [];
    return [{ kind: "line", bytes: this.#take() }];
  }

  #take(): Uint8Array {
    const parts = this.#parts;
    this.#parts = [];
    this.#length = 0;
    if (parts.length === 1) return parts[0]!;
    return concatBytes(parts);
  }
}

/** What to do with one line: deliver a message, answer with an error, or pass over it. */
export type LineVerdict =
  | { kind: "message"; message: JSONRPCMessage }
  | { kind: "answer"; error: JSONRPCErrorResponse }
  | { kind: "blank" };

type Id = string | number;

function answer(id: Id | null, code: number, message: string): LineVerdict {
  // The SDK's type has no null id, but JSON-RPC 2.0 requires one when the id cannot be read.
  return { kind: "answer", error: { jsonrpc: "2.0", id: id as Id, error: { code, message } } };
}

function isId(value: unknown): value is Id {
  return typeof value === "string" || (typeof value === "number" && Number.isSafeInteger(value));
}

/** Why a JSON object is not a JSON-RPC message MCP accepts: the first problem, in words. */
function whyInvalid(message: Record<string, unknown>): string {
  if (message.jsonrpc !== "2.0") return 'the "jsonrpc" member must be exactly "2.0"';
  if ("method" in message) {
    if (typeof message.method !== "string") return 'the "method" member must be a string';
    if ("id" in message && !isId(message.id)) {
      return 'the "id" member must be a string or an integer (omit it for a notification)';
    }
    const params = message.params;
    if (
      params !== undefined &&
      (params === null || typeof params !== "object" || Array.isArray(params))
    ) {
      return 'the "params" member must be an object';
    }
    return "the request does not have the shape JSON-RPC 2.0 gives one";
  }
  if ("result" in message || "error" in message) {
    return 'a response needs a string or integer "id" and either "result" or an "error" object';
  }
  return 'the object has no "method" (a request or notification) and no "result" or "error" (a response)';
}

/**
 * Reads one line as JSON-RPC. A line that is not a message gets the error JSON-RPC 2.0 names;
 * the id is echoed only for a request whose id is readable, so a broken response can never be
 * mistaken by the client for the answer to one of its own requests.
 */
export function judgeLine(line: string): LineVerdict {
  if (line.trim() === "") return { kind: "blank" };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return answer(
      null,
      PARSE_ERROR,
      "Parse error: the line is not valid JSON; send one JSON-RPC message per line",
    );
  }
  if (Array.isArray(value)) {
    return answer(
      null,
      INVALID_REQUEST,
      "Invalid Request: batches (JSON arrays) are not supported; MCP sends one JSON-RPC message per line",
    );
  }
  if (value === null || typeof value !== "object") {
    return answer(null, INVALID_REQUEST, "Invalid Request: a JSON-RPC message is a JSON object");
  }
  try {
    return { kind: "message", message: parseJSONRPCMessage(value) };
  } catch {
    const object = value as Record<string, unknown>;
    const id = "method" in object && isId(object.id) ? object.id : null;
    return answer(id, INVALID_REQUEST, `Invalid Request: ${whyInvalid(object)}`);
  }
}

/**
 * Where the first byte that is not UTF-8 (RFC 3629, section 4: no overlong forms, no surrogates,
 * nothing above U+10FFFF, no cut-off sequence) starts in `bytes`, counted from 0; -1 when all is
 * UTF-8. Only asked once the native decoder has refused the line, so the hot path is native.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    // The lead byte says how many continuation bytes follow and the range the second one must be in.
    let need: number, low = 0x80, high = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) low = 0xa0; // overlong
      if (b === 0xed) high = 0x9f; // surrogates
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) low = 0x90; // overlong
      if (b === 0xf4) high = 0x8f; // above U+10FFFF
    } else return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined) return i;
      if (k === 1 ? c < low || c > high : c < 0x80 || c > 0xbf) return i;
    }
    i += need + 1;
  }
  return -1;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
const lenientUtf8 = new TextDecoder("utf-8");

/**
 * judgeLine for the bytes of a line. A line that is not UTF-8 is refused whole (-32700, as JSON
 * text must be UTF-8, RFC 8259 section 8.1), naming the byte where it breaks, with the request's
 * id when the rest of the line still reads as a request: nothing in it is run, so no character is
 * guessed and typed.
 */
export function judgeLineBytes(bytes: Uint8Array): LineVerdict {
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    const at = firstInvalidUtf8(bytes);
    let id: Id | null = null;
    try {
      const value: unknown = JSON.parse(lenientUtf8.decode(bytes));
      const object = value as Record<string, unknown> | null;
      if (typeof object === "object" && object !== null && "method" in object && isId(object.id)) {
        id = object.id;
      }
    } catch {
      // not JSON either: the id stays unreadable
    }
    return answer(
      id,
      PARSE_ERROR,
      `Parse error: invalid UTF-8 at byte ${
        at < 0 ? 0 : at
      } of the line; JSON-RPC text must be UTF-8, and nothing in this line was run`,
    );
  }
  return judgeLine(text);
}

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
