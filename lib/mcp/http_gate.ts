// The checks every HTTP request passes before it reaches the MCP handler: the Host header (DNS
// rebinding), the Origin header, the bearer token, the path. Pure: a request in, a refusal or none.

import { validateHostHeader } from "@modelcontextprotocol/server";
import { type HttpSettings, isWildcard, LOOPBACK_NAMES } from "./http_settings.ts";

/** The one path MCP is served at. */
export const MCP_PATH = "/mcp";

/** A refusal as the client reads it: the status, and a JSON-RPC error saying why and what to do. */
export function refusal(status: number, message: string, headers: HeadersInit = {}): Response {
  return Response.json(
    { jsonrpc: "2.0", id: null, error: { code: -32000, message } },
    { status, headers },
  );
}

const encoder = new TextEncoder();

/**
 * Whether `given` is the token, in time that does not depend on where the two differ: both are
 * hashed first, so the comparison runs over two 32-byte digests whatever their lengths.
 */
export async function sameToken(given: string, token: string): Promise<boolean> {
  const [a, b] = await Promise.all([
    crypto.subtle.digest("SHA-256", encoder.encode(given)),
    crypto.subtle.digest("SHA-256", encoder.encode(token)),
  ]);
  const x = new Uint8Array(a);
  const y = new Uint8Array(b);
  let difference = 0;
  for (let i = 0; i < x.length; i++) difference |= x[i]! ^ y[i]!;
  return difference === 0;
}

/** An IP address literal (v4, or v6 in brackets), as URL.hostname writes one. */
function isIpLiteral(hostname: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(hostname) || /^\[[0-9a-f:.]+\]$/.test(hostname);
}

/**
 * Whether the Host header names this server. A DNS rebinding attack makes a browser send a name
 * the attacker controls, so the listen address and the loopback names are let in, and nothing
 * else. On a wildcard address (0.0.0.0, [::]) any IP literal is also let in: a client that dials
 * an address itself is not being rebound, and which addresses the machine has is not known here.
 */
function hostRefusal(request: Request, settings: HttpSettings): Response | undefined {
  // HTTP/2 has no Host header: its :authority is what Deno builds the request's URL from.
  const named = request.headers.get("host") ?? new URL(request.url).host;
  const host = validateHostHeader(named, [
    settings.listen.hostname,
    ...LOOPBACK_NAMES,
  ]);
  if (host.ok) return undefined;
  if (
    isWildcard(settings.listen.hostname) && host.hostname !== undefined &&
    isIpLiteral(host.hostname)
  ) return undefined;
  return refusal(
    421,
    `Misdirected request: this server answers to ${settings.listen.hostname} and the loopback names, not to the Host header sent (${host.message}); connect to the address phone-eye listens on`,
  );
}

function originRefusal(request: Request, settings: HttpSettings): Response | undefined {
  const origin = request.headers.get("origin");
  if (origin === null) return undefined; // not a browser: nothing to defend against here
  let normalized: string | undefined;
  try {
    normalized = new URL(origin).origin;
  } catch {
    normalized = undefined;
  }
  if (normalized !== undefined && settings.origins.includes(normalized)) return undefined;
  return refusal(
    403,
    settings.origins.length === 0
      ? "Forbidden: requests from web pages (an Origin header) are refused; list the page's origin in PHONE_EYE_HTTP_ORIGINS to allow it"
      : "Forbidden: this Origin is not one PHONE_EYE_HTTP_ORIGINS lists",
  );
}

async function tokenRefusal(
  request: Request,
  settings: HttpSettings,
): Promise<Response | undefined> {
  if (settings.token === undefined) return undefined;
  const header = request.headers.get("authorization") ?? "";
  const given = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header)?.[1];
  // Hashed and compared even without a header, so a missing token costs what a wrong one does.
  const ok = await sameToken(given ?? "", settings.token);
  if (ok && given !== undefined) return undefined;
  return refusal(
    401,
    given === undefined
      ? "Unauthorized: send the token as an Authorization: Bearer header (PHONE_EYE_HTTP_TOKEN on the server)"
      : "Unauthorized: the bearer token is not the server's PHONE_EYE_HTTP_TOKEN",
    { "WWW-Authenticate": 'Bearer realm="phone-eye"' },
  );
}

/**
 * The refusal for a request that may not reach the MCP handler, or undefined. In this order: Host
 * (421), Origin (403), token (401), path (404); none of them echoes the token or the header.
 */
export async function gate(
  request: Request,
  settings: HttpSettings,
): Promise<Response | undefined> {
  return hostRefusal(request, settings) ?? originRefusal(request, settings) ??
    await tokenRefusal(request, settings) ??
    (new URL(request.url).pathname === MCP_PATH ? undefined : refusal(
      404,
      `Not found: phone-eye serves MCP at ${MCP_PATH} only`,
    ));
}
