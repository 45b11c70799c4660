// The Streamable HTTP face of phone-eye: the SDK's createMcpHandler behind the gate (Host, Origin,
// token, path), with request bodies capped, requests and body bytes budgeted, and each one logged.

import {
  createMcpHandler,
  isInitializeRequest,
  isJsonContentType,
  isLegacyRequest,
  type McpServer,
} from "@modelcontextprotocol/server";
import { type Clock, realClock } from "../core/clock.ts";
import { createSession, type Session } from "../core/session.ts";
import { MAX_LINE_BYTES } from "./stdio_lines.ts";
import { accessLine, type RpcSummary, summarizeRpc } from "./http_access_log.ts";
import { declaredTooLarge, dropBody, readBody, tooLarge } from "./http_body.ts";
import { gate, refusal } from "./http_gate.ts";
import {
  BODY_DEADLINE_MS,
  type BudgetLimits,
  DRAIN_DEADLINE_MS,
  DRAIN_MAX_BYTES,
  type Lease,
  RequestBudget,
} from "./http_limits.ts";
import { HttpSessions, type SessionExchange } from "./http_sessions.ts";
import { type HttpSettings, MAX_IN_FLIGHT_PER_CLIENT, MAX_SESSIONS } from "./http_settings.ts";

export interface HttpServeDeps {
  settings: HttpSettings;
  /**
   * A fresh MCP server over the one set of tool resources that remembers what it told its client
   * in `session` (createServer(deps, { session })). Servers come and go, per request or per
   * session, so the device, its locks and caches live in deps, shared by all of them.
   */
  server: (session: Session) => McpServer;
  /** Unexpected failures of the transport, without headers or bodies (stderr in production). */
  logError: (message: string) => void;
  /**
   * Runs once a response has gone out whole, or its client went away: where main.ts collects a
   * screenshot's garbage and starts loading the eyes, as the stdio wire's afterSend does.
   */
  afterResponse?: () => void;
  /** The largest request body read, in bytes: the stdio line cap, MAX_LINE_BYTES, by default. */
  maxBodyBytes?: number;
  /** MAX_IN_FLIGHT_PER_CLIENT by default. */
  maxInFlightPerClient?: number;
  /** MAX_SESSIONS by default. */
  maxSessions?: number;
  /** The caps across clients (http_limits.ts's by default; maxInFlightPerClient sets the per-client one). */
  budget?: Partial<Omit<BudgetLimits, "maxOpenPerClient">>;
  /** From a request's header to its body's end: BODY_DEADLINE_MS by default. */
  bodyDeadlineMs?: number;
  /** Durations and the body deadline (realClock by default). */
  clock?: Clock;
  /** The wall clock the access log's times are read from (Date.now by default). */
  wallNow?: () => number;
  /** Where each request's access line goes (stderr in production); none by default. */
  accessLog?: (line: string) => void;
  /** What the access log names as the phone of a call without `device`: "default" by default. */
  defaultPhone?: string;
}

export interface HttpHandler {
  /** Serves one request from `client` (the remote address, which the in-flight cap is kept by). */
  fetch(request: Request, client: string): Promise<Response>;
  /** Ends the open exchanges (their calls are cancelled). */
  close(): Promise<void>;
}

/**
 * `response` with a body that calls `done` once it has been read to its end, has failed, or was
 * cancelled (the client went away: `gone`), so a streamed answer counts as open until it ends.
 */
function whenBodyDone(response: Response, done: (gone: boolean) => void): Response {
  let finished = false;
  const finish = (gone = false) => {
    if (finished) return;
    finished = true;
    done(gone);
  };
  if (response.body === null) {
    finish();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: end, value } = await reader.read();
        if (end) {
          finish();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        finish(true);
        controller.error(error);
      }
    },
    cancel(reason) {
      finish(true);
      return reader.cancel(reason);
    },
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** A POST body's JSON, when it is JSON: the SDK answers anything else itself, as it always has. */
function parsedJson(request: Request, bytes: Uint8Array): { value: unknown } | undefined {
  if (
    request.method !== "POST" || bytes.length === 0 ||
    !isJsonContentType(request.headers.get("content-type"))
  ) return undefined;
  try {
    return { value: JSON.parse(new TextDecoder().decode(bytes)) };
  } catch {
    return undefined;
  }
}

/**
 * Serves MCP at /mcp with the SDK's own handlers. Nothing of the protocol is written here; this
 * adds the gate, the caps, the after-response hook, and which handler a request goes to:
 *
 * - A 2025-era client (initialize, then requests) gets a session: the SDK's sessionful transport
 *   answers its initialize with an Mcp-Session-Id, and every request naming that id is served by
 *   the session's server, which keeps what the client was told (http_sessions.ts).
 * - Everything else goes to createMcpHandler: the 2026-07-28 revision per request, and 2025-era
 *   requests naming no session this server holds, through its stateless legacy fallback. These
 *   have no session to remember by (the 2026-07-28 revision has none at all, and neither the
 *   remote address nor clientInfo tells one client from another), so each request's server gets
 *   a fresh Session and such a client hears a once-per-session note in full on every call: a note
 *   heard twice costs a paragraph, a note never heard leaves the agent guessing.
 * - GET (the 2025 stream for messages the server starts) is answered 405 as before: phone-eye
 *   starts none, and an open stream would hold one of its client's in-flight slots for good.
 */
export function createHttpHandler(deps: HttpServeDeps): HttpHandler {
  const maxBodyBytes = deps.maxBodyBytes ?? MAX_LINE_BYTES;
  const clock = deps.clock ?? realClock;
  const wallNow = deps.wallNow ?? Date.now;
  const defaultPhone = deps.defaultPhone ?? "default";
  const mcp = createMcpHandler(() => deps.server(createSession()), {
    legacy: "stateless",
    maxRequestBodySize: maxBodyBytes,
    onerror: (error) => deps.logError(`http: ${error.message}`),
  });
  const sessions = new HttpSessions({
    server: deps.server,
    maxSessions: deps.maxSessions ?? MAX_SESSIONS,
  });
  const budget = new RequestBudget({
    ...deps.budget,
    maxOpenPerClient: deps.maxInFlightPerClient ?? MAX_IN_FLIGHT_PER_CLIENT,
  });
  const route = async (request: Request, body?: { value: unknown }): Promise<SessionExchange> => {
    const held = request.method === "POST" || request.method === "DELETE"
      ? sessions.serve(request)
      : undefined;
    if (held !== undefined) return await held;
    if (
      body !== undefined && isInitializeRequest(body.value) &&
      await isLegacyRequest(request, body.value, { maxRequestBodySize: maxBodyBytes })
    ) {
      // Undefined when every session held has a call open: this client is served statelessly.
      const started = sessions.start(request, body.value);
      if (started !== undefined) return await started;
    }
    const response = await mcp.fetch(request, body && { parsedBody: body.value });
    return { response, done: () => {} };
  };
  /** Past the gate and the budget, with the body read: what to serve, or the refusal. */
  const admit = async (
    request: Request,
    client: string,
  ): Promise<Response | { lease: Lease; request: Request; body?: { value: unknown } }> => {
    const refused = await gate(request, deps.settings);
    if (refused !== undefined) return refused;
    // Too large whatever the load: said before a slot is asked for.
    if (declaredTooLarge(request, maxBodyBytes)) return tooLarge(maxBodyBytes);
    const lease = budget.enter(client);
    if (lease instanceof Response) return lease;
    if (request.method !== "POST") return { lease, request };
    const read = await readBody(request, lease, {
      maxBytes: maxBodyBytes,
      deadlineMs: deps.bodyDeadlineMs ?? BODY_DEADLINE_MS,
      clock,
    });
    if ("refused" in read) {
      lease.release();
      return read.refused;
    }
    // The bytes read go on in a request of their own, so the SDK reads (and answers) them as sent.
    const body = parsedJson(request, read.bytes);
    return { lease, request: new Request(request, { body: read.bytes }), ...(body && { body }) };
  };
  return {
    async fetch(request, client) {
      const at = wallNow();
      const started = clock.now();
      let summary: RpcSummary = { rpc: "-" };
      const logged = (response: Response, end?: () => void) =>
        whenBodyDone(response, (gone) => {
          end?.();
          deps.accessLog?.(accessLine({
            at,
            client,
            status: response.status,
            method: request.method,
            ...summary,
            ms: clock.now() - started,
            gone,
          }));
        });
      const admitted = await admit(request, client);
      if (admitted instanceof Response) {
        await dropBody(request, {
          maxBytes: DRAIN_MAX_BYTES,
          deadlineMs: DRAIN_DEADLINE_MS,
          clock,
        });
        return logged(admitted);
      }
      if (admitted.body !== undefined) summary = summarizeRpc(admitted.body.value, defaultPhone);
      let served: SessionExchange;
      try {
        served = await route(admitted.request, admitted.body);
      } catch (error) {
        admitted.lease.release();
        deps.logError(`http: ${error instanceof Error ? error.message : String(error)}`);
        return logged(refusal(500, "Internal error: the request could not be served"));
      }
      return logged(served.response, () => {
        served.done();
        admitted.lease.release();
        deps.afterResponse?.();
      });
    },
    close: async () => {
      await Promise.all([mcp.close(), sessions.close()]);
    },
  };
}
