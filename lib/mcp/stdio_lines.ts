// One line of the MCP stdio wire: cut from the byte stream (bounded, however long the line), then
// judged as UTF-8 JSON-RPC: a message to deliver, or the JSON-RPC error that answers it.

import {
  INVALID_REQUEST,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  PARSE_ERROR,
  parseJSONRPCMessage,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
} from "@modelcontextprotocol/server";
import { concatBytes } from "../core/bytes.ts";

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

/** A request's id: a string or an integer (MCP gives a request no null id). */
export type Id = string | number;

/** The verdict that answers a line with JSON-RPC error `code`, echoing `id` (null: unreadable). */
export function answer(id: Id | null, code: number, message: string): LineVerdict {
  // The SDK's type has no null id, but JSON-RPC 2.0 requires one when the id cannot be read.
  return { kind: "answer", error: { jsonrpc: "2.0", id: id as Id, error: { code, message } } };
}

/** Whether `value` can be a request's id: a string or a safe integer. */
export function isId(value: unknown): value is Id {
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
