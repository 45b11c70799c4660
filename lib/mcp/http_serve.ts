// The Streamable HTTP face of phone-eye: the SDK's createMcpHandler behind the gate (Host, Origin,
// token, path), with request bodies capped and a cap on the requests one client has open at once.

import { createMcpHandler, type McpServer } from "@modelcontextprotocol/server";
import { MAX_LINE_BYTES } from "./stdio_lines.ts";
import { gate, refusal } from "./http_gate.ts";
import { type HttpSettings, MAX_IN_FLIGHT_PER_CLIENT } from "./http_settings.ts";

export interface HttpServeDeps {
  settings: HttpSettings;
  /**
   * A fresh MCP server over the one set of tool resources (createServer(deps)): the SDK makes one
   * per request, so the device, its locks and caches live in deps, shared by all of them.
   */
  server: () => McpServer;
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
 * Serves MCP at /mcp with the SDK's own handler: the 2026-07-28 revision per request, and 2025-era
 * clients (initialize, then requests) through its stateless legacy fallback. Nothing of the
 * protocol is written here; this adds the gate, the caps and the after-response hook.
 */
export function createHttpHandler(deps: HttpServeDeps): HttpHandler {
  const maxInFlight = deps.maxInFlightPerClient ?? MAX_IN_FLIGHT_PER_CLIENT;
  const mcp = createMcpHandler(() => deps.server(), {
    legacy: "stateless",
    maxRequestBodySize: deps.maxBodyBytes ?? MAX_LINE_BYTES,
    onerror: (error) => deps.logError(`http: ${error.message}`),
  });
  const inFlight = new Map<string, number>();
  const release = (client: string) => {
    const left = (inFlight.get(client) ?? 1) - 1;
    if (left <= 0) inFlight.delete(client);
    else inFlight.set(client, left);
    deps.afterResponse?.();
  };
  return {
    async fetch(request, client) {
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
      let response: Response;
      try {
        response = await mcp.fetch(request);
      } catch (error) {
        release(client);
        deps.logError(`http: ${error instanceof Error ? error.message : String(error)}`);
        return refusal(500, "Internal error: the request could not be served");
      }
      return whenBodyDone(response, () => release(client));
    },
    close: () => mcp.close(),
  };
}
