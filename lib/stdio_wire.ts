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
import { concatBytes } from "./bytes.ts";

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
}

/**
 * The server's side of the stdio wire (main.ts passes Deno.stdin and Deno.stdout). Reads and
 * writes go straight to the resources, not through Web Streams: the first `Deno.stdin.readable`
 * or `Deno.stdout.writable` costs some 6 ms of start-up on this project's machines, before any
 * message can be read (bench/hand_bench.ts). Messages are written whole and in order. Closes when
 * the input ends, as the MCP stdio transport says a server should.
 */
export class StdioWire implements Transport {
  onclose?: Transport["onclose"];
  onerror?: Transport["onerror"];
  onmessage?: Transport["onmessage"];

  readonly #input: ByteSource;
  readonly #output: ByteSink;
  readonly #maxLineBytes: number;
  readonly #afterSend: ((message: JSONRPCMessage) => void) | undefined;
  #started = false;
  #closed = false;
  /** The last write queued: each message is written whole after the one before it. */
  #writing: Promise<void> = Promise.resolve();

  constructor(input: ByteSource, output: ByteSink, options: StdioWireOptions = {}) {
    this.#input = input;
    this.#output = output;
    this.#maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
    this.#afterSend = options.afterSend;
  }

  start(): Promise<void> {
    if (this.#started) return Promise.reject(new Error("StdioWire already started"));
    this.#started = true;
    void this.#read();
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("the stdio wire is closed"));
    const bytes = new TextEncoder().encode(serializeMessage(message));
    const written = this.#writing.then(() => this.#writeAll(bytes));
    this.#writing = written.catch(() => {});
    return written.then(() => this.#sent(message), (error) => {
      // The client stopped reading (its end of the pipe is gone): nothing more can be said.
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      void this.close();
      throw error;
    });
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
    try {
      this.#input.close?.(); // ends the pending read
    } catch {
      // Already closed: nothing to end.
    }
    this.onclose?.();
    return Promise.resolve();
  }

  async #writeAll(bytes: Uint8Array): Promise<void> {
    for (let at = 0; at < bytes.length;) at += await this.#output.write(bytes.subarray(at));
  }

  async #read(): Promise<void> {
    const framer = new LineFramer(this.#maxLineBytes);
    const decoder = new TextDecoder();
    const buffer = new Uint8Array(READ_BYTES); // the framer copies what it keeps
    try {
      for (;;) {
        const n = await this.#input.read(buffer);
        if (n === null || this.#closed) break;
        for (const piece of framer.push(buffer.subarray(0, n))) this.#handle(piece, decoder);
        // Answers to broken lines are not awaited one by one; a client that floods them without
        // reading stdout is held here, so the unsent answers cannot pile up in memory.
        await this.#writing;
      }
      for (const piece of framer.end()) this.#handle(piece, decoder);
    } catch (error) {
      if (!this.#closed) this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    } finally {
      void this.close();
    }
  }

  #handle(piece: Framed, decoder: TextDecoder): void {
    const verdict = piece.kind === "overflow"
      ? answer(
        null,
        INVALID_REQUEST,
        `Invalid Request: a line longer than ${piece.maxBytes} bytes was discarded; no MCP request needs one that long`,
      )
      : judgeLine(decoder.decode(piece.bytes));
    if (verdict.kind === "message") this.onmessage?.(verdict.message);
    else if (verdict.kind === "answer") this.send(verdict.error).catch(() => {});
  }
}
