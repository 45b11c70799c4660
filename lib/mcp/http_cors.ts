// CORS for the web origins PHONE_EYE_HTTP_ORIGINS lists: a browser's preflight is answered before
// the token check, and every answer to a listed origin carries the headers that let its page read it.

/** The methods a Streamable HTTP client uses: POST for messages, GET for a stream, DELETE to end. */
const METHODS = ["POST", "GET", "DELETE"];

/**
 * The headers a page may read from an answer: the session id and protocol version a client
 * continues with, and why it was refused or should wait.
 */
const EXPOSED = "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate, Retry-After";

/** How long a browser may reuse a preflight's answer, in seconds. */
const MAX_AGE_S = "600";

/**
 * Header names a preflight may ask for, as a comma list of HTTP tokens. They are granted as asked
 * (the 2026-07-28 revision sends a header per tool parameter, Mcp-Param-*, so no fixed list
 * fits), which only a listed origin is given; anything else gets no answer.
 */
const HEADER_LIST = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+( *, *[!#$%&'*+.^_`|~0-9A-Za-z-]+)*$/;

/** The request's Origin when PHONE_EYE_HTTP_ORIGINS lists it, normalized; else undefined. */
function listedOrigin(request: Request, origins: readonly string[]): string | undefined {
  const origin = request.headers.get("origin");
  if (origin === null || origins.length === 0) return undefined;
  try {
    const normalized = new URL(origin).origin;
    return origins.includes(normalized) ? normalized : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The answer to a browser's preflight (OPTIONS with Access-Control-Request-Method) from a listed
 * origin, or undefined for any other request. It comes before the token check because a browser
 * never sends an Authorization header with a preflight; it grants nothing by itself, since the
 * request that follows still needs the token. An unlisted origin's preflight goes on to the
 * Origin check and is refused there.
 */
export function corsPreflight(request: Request, origins: readonly string[]): Response | undefined {
  if (request.method !== "OPTIONS") return undefined;
  const origin = listedOrigin(request, origins);
  const method = request.headers.get("access-control-request-method");
  if (origin === undefined || method === null || !METHODS.includes(method)) return undefined;
  const asked = request.headers.get("access-control-request-headers")?.trim() ?? "";
  if (asked !== "" && (asked.length > 4096 || !HEADER_LIST.test(asked))) return undefined;
  return new Response(null, {
    status: 204,
    headers: {
      "Access-Control-Allow-Origin": origin,
      "Access-Control-Allow-Methods": METHODS.join(", "),
      ...(asked === "" ? {} : { "Access-Control-Allow-Headers": asked }),
      "Access-Control-Max-Age": MAX_AGE_S,
      Vary: "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
    },
  });
}

/** `response` with the headers that let a listed origin's page read it; unchanged otherwise. */
export function withCors(
  request: Request,
  response: Response,
  origins: readonly string[],
): Response {
  const origin = listedOrigin(request, origins);
  if (origin === undefined || response.headers.has("access-control-allow-origin")) return response;
  const headers = new Headers(response.headers);
  headers.set("Access-Control-Allow-Origin", origin);
  headers.set("Access-Control-Expose-Headers", EXPOSED);
  headers.append("Vary", "Origin");
  return new Response(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}

/**
 * `handler` whose every answer goes through withCors: the MCP handler's, the gate's refusals (a
 * page reads why it got 401) and the caps'.
 */
export function answeringOrigins<
  Handler extends { fetch(request: Request, client: string): Promise<Response> },
>(origins: readonly string[], handler: Handler): Handler {
  if (origins.length === 0) return handler;
  return {
    ...handler,
    fetch: async (request: Request, client: string) =>
      withCors(request, await handler.fetch(request, client), origins),
  };
}
