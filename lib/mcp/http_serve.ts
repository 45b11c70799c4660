// The Streamable HTTP face of phone-eye: the SDK's createMcpHandler behind the gate (Host, Origin,
// token, path), with request bodies capped, requests and body bytes budgeted, and each one logged.

import {
  createMcpHandler,
  isInitializeRequest,
  isJsonContentType,
  isLegacyRequest,
  type McpHttpHandler,
  type McpServer,
} from "@modelcontextprotocol/server";
import { type Clock, realClock } from "../core/clock.ts";
import { createSession, type Session } from "../core/session.ts";
import { MAX_LINE_BYTES } from "./stdio_lines.ts";
import { accessLine, type RpcSummary, summarizeRpc } from "./http_access_log.ts";
import { answeringOrigins } from "./http_cors.ts";
import { withClient } from "./journal.ts";
import { declaredTooLarge, dropBody, readBody, tooLarge } from "./http_body.ts";
import { gate, refusal } from "./http_gate.ts";
import { TokenGuesses } from "./http_guesses.ts";
import {
  BODY_DEADLINE_MS,
  type BudgetLimits,
  DRAIN_DEADLINE_MS,
  DRAIN_MAX_BYTES,
  type Lease,
  RequestBudget,
} from "./http_limits.ts";
import { OpenAnswers, watchAnswer, whenAborted } from "./http_exchanges.ts";
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

/** The status logged for a request whose client left before an answer began (nginx's 499). */
const CLIENT_GONE = 499;

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

/** Which handler serves a request, and its answer (see createHttpHandler). */
async function routeRequest(
  request: Request,
  body: { value: unknown } | undefined,
  to: { sessions: HttpSessions; mcp: McpHttpHandler; maxBodyBytes: number },
): Promise<SessionExchange> {
  const held = request.method === "POST" || request.method === "DELETE"
    ? to.sessions.serve(request)
    : undefined;
  if (held !== undefined) return await held;
  if (
    body !== undefined && isInitializeRequest(body.value) &&
    await isLegacyRequest(request, body.value, { maxRequestBodySize: to.maxBodyBytes })
  ) {
    // Undefined when every session held has a call open: this client is served statelessly.
    const started = to.sessions.start(request, body.value);
    if (started !== undefined) return await started;
  }
  const response = await to.mcp.fetch(request, body && { parsedBody: body.value });
  return { response, done: () => {} };
}

/** A request past the gate and the budget, its body read: what the handlers serve. */
interface Admitted {
  lease: Lease;
  request: Request;
  body?: { value: unknown };
}

/**
 * The gate, the size cap, the budget and the body, in that order: the request to serve with its
 * lease, or the refusal to answer with (its lease, if any, given back).
 */
async function admitRequest(
  request: Request,
  client: string,
  limits: {
    settings: HttpSettings;
    budget: RequestBudget;
    maxBodyBytes: number;
    bodyDeadlineMs: number;
    clock: Clock;
    guesses: TokenGuesses;
  },
): Promise<Response | Admitted> {
  // An address that keeps sending wrong tokens waits before its next one is even compared.
  const pause = limits.guesses.pauseLeft(client);
  if (pause > 0) {
    return refusal(
      429,
      `Too many wrong tokens from this address: wait ${
        Math.ceil(pause / 1000)
      } s before the next request (the token is PHONE_EYE_HTTP_TOKEN on the server)`,
      { "Retry-After": String(Math.ceil(pause / 1000)) },
    );
  }
  const refused = await gate(request, limits.settings);
  if (refused?.status === 401) limits.guesses.miss(client);
  else if (limits.settings.token !== undefined && refused === undefined) {
    limits.guesses.hit(client);
  }
  if (refused !== undefined) return refused;
  // Too large whatever the load: said before a slot is asked for.
  if (declaredTooLarge(request, limits.maxBodyBytes)) return tooLarge(limits.maxBodyBytes);
  const lease = limits.budget.enter(client);
  if (lease instanceof Response) return lease;
  if (request.method !== "POST") return { lease, request };
  const read = await readBody(request, lease, {
    maxBytes: limits.maxBodyBytes,
    deadlineMs: limits.bodyDeadlineMs,
    clock: limits.clock,
  });
  if ("refused" in read) {
    lease.release();
    return read.refused;
  }
  // The bytes read go on in a request of their own, so the SDK reads (and answers) them as sent.
  const body = parsedJson(request, read.bytes);
  return { lease, request: new Request(request, { body: read.bytes }), ...(body && { body }) };
}

/**
 * The exchange for an admitted request, or undefined when its client left before an answer began:
 * the SDK answers no request its client cancelled, so the slot is given back then, and an answer
 * that comes later is dropped. A failure is answered 500.
 */
async function serveAdmitted(
  admitted: Admitted,
  route: (request: Request, body?: { value: unknown }) => Promise<SessionExchange>,
  say: { logError: (message: string) => void; log: (status: number, gone: boolean) => void },
): Promise<SessionExchange | undefined> {
  const leave = whenAborted(admitted.request.signal);
  const routing = route(admitted.request, admitted.body);
  try {
    const served = await Promise.race([routing, leave.gone]);
    if (served !== undefined) return served;
    admitted.lease.release();
    say.log(CLIENT_GONE, true);
    routing.then((late) => {
      late.done();
      late.response.body?.cancel().catch(() => {});
    }, () => {});
    return undefined;
  } catch (error) {
    say.logError(`http: ${error instanceof Error ? error.message : String(error)}`);
    // Answered like any exchange: its end gives the slot back and logs it.
    return {
      response: refusal(500, "Internal error: the request could not be served"),
      done: () => {},
    };
  } finally {
    leave.dispose();
  }
}

/** admitRequest with this server's budget and wrong-token pauses, made once per server. */
function admitter(
  deps: HttpServeDeps,
  shared: { clock: Clock; maxBodyBytes: number },
): (request: Request, client: string) => Promise<Response | Admitted> {
  const budget = new RequestBudget({
    ...deps.budget,
    maxOpenPerClient: deps.maxInFlightPerClient ?? MAX_IN_FLIGHT_PER_CLIENT,
  });
  const guesses = new TokenGuesses(shared.clock);
  return (request, client) =>
    admitRequest(request, client, {
      settings: deps.settings,
      budget,
      maxBodyBytes: shared.maxBodyBytes,
      bodyDeadlineMs: deps.bodyDeadlineMs ?? BODY_DEADLINE_MS,
      clock: shared.clock,
      guesses,
    });
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
  const route = (request: Request, body?: { value: unknown }) =>
    routeRequest(request, body, { sessions, mcp, maxBodyBytes });
  const admit = admitter(deps, { clock, maxBodyBytes });
  const open = new OpenAnswers();
  return answeringOrigins(deps.settings.origins, {
    async fetch(request: Request, client: string): Promise<Response> {
      const at = wallNow();
      const started = clock.now();
      let summary: RpcSummary = { rpc: "-" };
      const log = (status: number, gone: boolean) =>
        deps.accessLog?.(accessLine({
          at,
          client,
          status,
          method: request.method,
          ...summary,
          ms: clock.now() - started,
          gone,
        }));
      const admitted = await admit(request, client);
      if (admitted instanceof Response) {
        await dropBody(request, {
          maxBytes: DRAIN_MAX_BYTES,
          deadlineMs: DRAIN_DEADLINE_MS,
          clock,
        });
        return watchAnswer(admitted, (gone) => log(admitted.status, gone)).response;
      }
      const body = admitted.body?.value;
      if (admitted.body !== undefined) {
        summary = summarizeRpc(body, defaultPhone);
        open.cancelled(admitted.request, body);
      }
      // The client's address travels with the request, for the journal (lib/mcp/journal.ts).
      const served = await serveAdmitted(admitted, (r, b) => route(withClient(r, client), b), {
        logError: deps.logError,
        log,
      });
      if (served === undefined) return new Response(null, { status: CLIENT_GONE });
      let forget = () => {};
      const watched = watchAnswer(served.response, (gone) => {
        forget();
        served.done();
        admitted.lease.release();
        deps.afterResponse?.();
        log(served.response.status, gone);
      });
      if (served.response.body !== null) forget = open.watch(admitted.request, body, watched.end);
      return watched.response;
    },
    close: async () => {
      await Promise.all([mcp.close(), sessions.close()]);
    },
  });
}
