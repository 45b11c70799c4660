// The access log of the HTTP face: one line per request on stderr, refusals included, naming what
// an operator needs (who, what, which phone, how it ended, how long) and never a secret or an argument.

import { isSerial } from "../config/serial.ts";

/** What a request asked for, as far as the log tells it. */
export interface RpcSummary {
  /** The JSON-RPC method (`tools/call`, `initialize`), `batch:N`, or `-` when the body was not read. */
  rpc: string;
  /** The tool names of tools/call requests, comma-separated; undefined for other methods. */
  tool?: string;
  /** The phones those calls name (`device`), or the default phone for a call naming none. */
  phone?: string;
}

export interface AccessEntry extends RpcSummary {
  /** When the request arrived (wall clock, milliseconds since the epoch). */
  at: number;
  /** The remote address. */
  client: string;
  status: number;
  /** The HTTP method. */
  method: string;
  /** From arrival to the end of the answer (or to the client going away). */
  ms: number;
  /** The client went away before its answer ended. */
  gone: boolean;
}

/** A name a client chose, as the log may print it: a word of at most 64 safe characters. */
function word(value: unknown): string {
  return typeof value === "string" && /^[\w\/.$:-]{1,64}$/.test(value) ? value : "?";
}

/** The phone a tools/call names, or `defaultPhone` when it names none. */
function phoneOf(params: unknown, defaultPhone: string): string {
  const args = (params as { arguments?: unknown } | undefined)?.arguments;
  const device = args !== null && typeof args === "object"
    ? (args as { device?: unknown }).device
    : undefined;
  if (device === undefined) return defaultPhone;
  // A serial is printed only when it is one: the log never carries free text a client wrote.
  return typeof device === "string" && isSerial(device) ? device : "?";
}

/** The distinct values in order, at most five, then "…". */
function listed(values: string[]): string | undefined {
  const distinct = [...new Set(values)];
  if (distinct.length === 0) return undefined;
  return distinct.slice(0, 5).join(",") + (distinct.length > 5 ? ",…" : "");
}

/**
 * What a parsed JSON-RPC body asks for: the method, and for tools/call the tool and the phone
 * (its `device`, or `defaultPhone`). Only names are read: no argument's text reaches the log.
 */
export function summarizeRpc(body: unknown, defaultPhone: string): RpcSummary {
  const messages = Array.isArray(body) ? body : [body];
  const tools: string[] = [];
  const phones: string[] = [];
  for (const message of messages) {
    const { method, params } = (message ?? {}) as { method?: unknown; params?: unknown };
    if (method !== "tools/call") continue;
    tools.push(word((params as { name?: unknown } | undefined)?.name));
    phones.push(phoneOf(params, defaultPhone));
  }
  const first = (messages[0] ?? {}) as { method?: unknown; result?: unknown; error?: unknown };
  const rpc = Array.isArray(body)
    ? `batch:${body.length}`
    : first.method !== undefined
    ? word(first.method)
    : first.result !== undefined || first.error !== undefined
    ? "response"
    : "?";
  const tool = listed(tools);
  const phone = listed(phones);
  return {
    rpc,
    ...(tool === undefined ? {} : { tool }),
    ...(phone === undefined ? {} : { phone }),
  };
}

/**
 * One access line: time, client, status, HTTP method, JSON-RPC method, tool and phone when a
 * tool was called, duration; `gone` when the client left before its answer ended.
 *
 *   http 2026-12-02T10:11:12.345Z 10.0.4.7 200 POST tools/call tool=phone_tap phone=R58N123ABC 84ms
 */
export function accessLine(entry: AccessEntry): string {
  return [
    "http",
    new Date(entry.at).toISOString(),
    entry.client,
    String(entry.status),
    word(entry.method),
    entry.rpc,
    ...(entry.tool === undefined ? [] : [`tool=${entry.tool}`]),
    ...(entry.phone === undefined ? [] : [`phone=${entry.phone}`]),
    `${Math.round(entry.ms)}ms`,
    ...(entry.gone ? ["gone"] : []),
  ].join(" ");
}
