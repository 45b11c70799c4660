// The Streamable HTTP face of phone-eye: the SDK's createMcpHandler behind the gate (Host, Origin,
// token, path), with request bodies capped and a cap on the requests one client has open at once.

import {
  createMcpHandler,
  isInitializeRequest,
  isJsonContentType,
  isLegacyRequest,
  type McpServer,
  readRequestBody,
} from "@modelcontextprotocol/server";
import { createSession, type Session } from "../core/session.ts";
import { MAX_LINE_BYTES } from "./stdio_lines.ts";
import { answeringOrigins } from "./http_cors.ts";
import { gate, refusal } from "./http_gate.ts";
import { HttpSessions, type SessionExchange } from "./http_sessions.ts";
import { withClient } from "./journal.ts";
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
}

export interface HttpHandler {
  /** Serves one request from `client` (the remote address, which the in-flight cap is kept by). */
  fetch(request: Request, client: string): Promise<Response>;
  /** Ends the open exchanges (their calls are cancelled). */
  close(): Promise<void>;
}

/**
 * `response` with a body that calls `done` once it has been read to its end, has failed, or was
 * cancelled (the client went away), so a streamed answer counts as open until it really ends.
 */
function whenBodyDone(response: Response, done: () => void): Response {
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    done();
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
        finish();
        controller.error(error);
      }
    },
    cancel(reason) {
      finish();
      return reader.cancel(reason);
    },
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/**
 * A POST's JSON body, read from a copy so the request stays whole for whoever serves it. None
 * when there is no JSON to read (another content type, empty, over `maxBytes`, broken): the SDK
 * then reads the request itself and answers that as it always has.
 */
async function peekJson(
  request: Request,
  maxBytes: number,
): Promise<{ value: unknown } | undefined> {
  if (request.method !== "POST" || !isJsonContentType(request.headers.get("content-type"))) {
    return undefined;
  }
  try {
    const read = await readRequestBody(request.clone(), maxBytes);
    if (read.tooLarge || read.text === "") return undefined;
    return { value: JSON.parse(read.text) };
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
  const maxInFlight = deps.maxInFlightPerClient ?? MAX_IN_FLIGHT_PER_CLIENT;
  const maxBodyBytes = deps.maxBodyBytes ?? MAX_LINE_BYTES;
  const mcp = createMcpHandler(() => deps.server(createSession()), {
    legacy: "stateless",
    maxRequestBodySize: maxBodyBytes,
    onerror: (error) => deps.logError(`http: ${error.message}`),
  });
  const sessions = new HttpSessions({
    server: deps.server,
    maxSessions: deps.maxSessions ?? MAX_SESSIONS,
  });
  const route = async (request: Request): Promise<SessionExchange> => {
    const held = request.method === "POST" || request.method === "DELETE"
      ? sessions.serve(request)
      : undefined;
    if (held !== undefined) return await held;
    const body = await peekJson(request, maxBodyBytes);
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
  const inFlight = new Map<string, number>();
  const release = (client: string) => {
    const left = (inFlight.get(client) ?? 1) - 1;
    if (left <= 0) inFlight.delete(client);
    else inFlight.set(client, left);
    deps.afterResponse?.();
  };
  return answeringOrigins(deps.settings.origins, {
    async fetch(request: Request, client: string): Promise<Response> {
      const refused = await gate(request, deps.settings);
      if (refused !== undefined) return refused;
      const open = inFlight.get(client) ?? 0;
      if (open >= maxInFlight) {
        return refusal(
          429,
          `Too many requests: this client already has ${open} requests open, the most one client may; wait for an answer before sending more`,
          { "Retry-After": "1" },
        );
      }
      inFlight.set(client, open + 1);
      let served: SessionExchange;
      try {
        // The client's address, for the journal (lib/mcp/journal.ts).
        served = await route(withClient(request, client));
      } catch (error) {
        release(client);
        deps.logError(`http: ${error instanceof Error ? error.message : String(error)}`);
        return refusal(500, "Internal error: the request could not be served");
      }
      return whenBodyDone(served.response, () => {
        served.done();
        release(client);
      });
    },
    close: async () => {
      await Promise.all([mcp.close(), sessions.close()]);
    },
  });
}
