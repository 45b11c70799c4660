// VisionError, the one error type every vision route throws, and the failures the routes share:
// a cancelled call, a timeout, an oversized answer, an HTTP status's code, a failed connection, scrubbed text.

import { AgentError } from "../errors.ts";

export type VisionErrorCode =
  | "UNCONFIGURED"
  | "UNREACHABLE"
  | "UNAUTHORIZED"
  | "RATE_LIMITED"
  | "HTTP"
  | "TIMEOUT"
  /** The caller's own AbortSignal fired (e.g. the agent cancelled the tool call). */
  | "ABORTED"
  | "BAD_RESPONSE"
  /** The server sent more than phone-eye reads of one response (capped_body.ts); it stopped reading. */
  | "TOO_LARGE"
  | "NOT_PERMITTED"
  /** The MCP vision server does not offer the configured tool. */
  | "TOOL_MISSING"
  | "TOOL_ERROR";

export class VisionError extends AgentError<VisionErrorCode> {
  override name = "VisionError";
}

/** The caller's signal fired: the same words on every route, since the caller did it, not the server. */
export function cancelledError(endpoint: string): VisionError {
  return new VisionError("ABORTED", `Vision request to ${endpoint} was cancelled by the caller`);
}

/**
 * The deadline passed before an answer. `noAnswer` says who stayed silent (the route knows: a
 * model, or an MCP server's tool); the fix is the same everywhere, a longer timeout or less load.
 */
export function timeoutError(noAnswer: string, timeoutMs: number, slowModels: string): VisionError {
  return new VisionError(
    "TIMEOUT",
    `${noAnswer} within ${timeoutMs} ms; raise PHONE_EYE_VISION_TIMEOUT_MS for ${slowModels}, ` +
      `or check the server's load`,
  );
}

/**
 * A response passed the cap and phone-eye stopped reading it. `server` names who sent it, `after`
 * says what happened to the connection and what to check on this route.
 */
export function answerTooLarge(server: string, cap: string, after: string): VisionError {
  return new VisionError(
    "TOO_LARGE",
    `${server} sent more than ${cap} in one response (a description is a few KB), so phone-eye ` +
      `stopped reading it; ${after}`,
  );
}

/**
 * A failure status with the route's explanation of it. The code depends on the status alone, so
 * both routes sort 401/403 and 429 the same way whatever words they use.
 */
export function httpStatusError(status: number, message: string): VisionError {
  const code = status === 401 || status === 403
    ? "UNAUTHORIZED"
    : status === 429
    ? "RATE_LIMITED"
    : "HTTP";
  return new VisionError(code, message);
}

/** The 413 explanation: phone-eye cannot shrink the request, the user can raise the limit or send less. */
export function tooLarge(sentChars: number): string {
  const kb = Math.round(sentChars / 1024);
  return `the request (${kb} KB, nearly all of it the base64 screenshot) is larger than the server ` +
    `accepts; raise the server's request-size limit or send a smaller (downscaled or JPEG) screenshot`;
}

/**
 * Turns a refusal by Deno's permission sandbox, or a failed connection, into a VisionError.
 * Returns undefined for anything else. Never quotes the runtime's text: it embeds the full URL.
 */
export function networkFailure(
  err: unknown,
  endpoint: string,
  urlVar: "PHONE_EYE_VISION_BASE_URL" | "PHONE_EYE_VISION_URL",
): VisionError | undefined {
  const host = hostOf(endpoint);
  if (err instanceof Deno.errors.NotCapable || err instanceof Deno.errors.PermissionDenied) {
    return new VisionError(
      "NOT_PERMITTED",
      `Deno's permissions refused network access to ${host}: this phone-eye build may only reach ` +
        `the vision host(s) it was granted. Point ${urlVar} at an allowed host; from source, ` +
        `start with --allow-net=${host} (deno run -q -P --allow-net=${host} --no-prompt main.ts; ` +
        `the flag replaces the set's net list) or add it to permissions.default.net in deno.json; ` +
        `or build a binary for this one with: deno task compile --vision-host ${host}`,
    );
  }
  if (!(err instanceof TypeError)) return undefined;
  const detail = `${err.message} ${err.cause instanceof Error ? err.cause.message : ""}`;
  const running =
    `is the vision server running at ${endpoint}? If it lives elsewhere, set ${urlVar}`;
  if (/connection refused/i.test(detail)) {
    return new VisionError(
      "UNREACHABLE",
      `Cannot reach ${endpoint}: connection refused; ${running}`,
    );
  }
  if (/dns error|failed to lookup|name or service not known|no such host/i.test(detail)) {
    return new VisionError(
      "UNREACHABLE",
      `Cannot reach ${endpoint}: the name ${host} does not resolve (DNS); check the spelling of ${urlVar} and this machine's network`,
    );
  }
  if (/certificate|tls|ssl/i.test(detail)) {
    return new VisionError(
      "UNREACHABLE",
      `Cannot reach ${endpoint}: the TLS handshake failed (certificate not trusted or not valid for ${host}); check ${urlVar}`,
    );
  }
  if (
    /fetch failed|error sending request|connection (reset|closed)|broken pipe|network/i.test(detail)
  ) {
    return new VisionError(
      "UNREACHABLE",
      `Cannot reach ${endpoint}: the connection failed or was cut; ${running}`,
    );
  }
  return undefined;
}

function hostOf(endpoint: string): string {
  try {
    return new URL(endpoint).host;
  } catch {
    return endpoint;
  }
}

const REDACTED = "[redacted]";
/** Below this length a query value or path segment is not scrubbed on its own (only as part of the whole URL). */
const MIN_PART_SECRET = 8;

/** The forms of the API key a server could send back: as configured, and percent-encoded. */
export function keySecrets(key: string | undefined): string[] {
  return key ? unique([key, encodeURIComponent(key)]) : [];
}

/**
 * The parts of a configured URL that may be credentials, in the forms a server could echo them:
 * the path with its query (any parameter may be a token: as sent, HTML-escaped as Express's 404
 * page prints it, and decoded), each query value and long path segment on its own (as sent,
 * decoded and re-encoded), and the userinfo password.
 */
export function urlSecrets(url: string): string[] {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [];
  }
  const out: string[] = [];
  if (u.search.length > 1) {
    const whole = `${u.pathname}${u.search}`;
    out.push(whole, whole.replace(/&/g, "&amp;"), decoded(whole));
  }
  const values = u.search.slice(1).split("&").map((pair) => pair.slice(pair.indexOf("=") + 1));
  const segments = u.pathname.split("/");
  for (const part of [...values, ...segments]) {
    const plain = decoded(part.replace(/\+/g, " "));
    if (plain.length < MIN_PART_SECRET) continue;
    out.push(part, plain, encodeURIComponent(plain));
  }
  if (u.password) out.push(u.password, decoded(u.password));
  return unique(out.filter((s) => s !== ""));
}

/**
 * Replaces each secret in text a server sent back, longest first (so a whole URL goes before its
 * parts). Exact matches only: for a vision answer, whose other words must stay as the model wrote them.
 * A secret hidden behind JSON escapes (`\u0070e-…`, `\/`) is found too: the text is then unescaped.
 */
export function redact(text: string, secrets: readonly string[]): string {
  const ordered = [...secrets].filter((s) => s !== "").sort((a, b) => b.length - a.length);
  const replaceAll = (t: string) => ordered.reduce((acc, s) => acc.split(s).join(REDACTED), t);
  const out = replaceAll(text);
  if (!JSON_ESCAPE.test(out)) return out;
  const plain = unescapeJson(out);
  return ordered.some((s) => plain.includes(s)) ? replaceAll(plain) : out;
}

/** redact(), then anything shaped like a credential: for error text, which is only ever quoted. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  return redact(text, secrets)
    .replace(/(bearer|basic)\s+[^\s"',;}\]]+/gi, "$1 [redacted]")
    .replace(/\b(sk|pk|rk)-[A-Za-z0-9_\-]{6,}/g, REDACTED)
    .replace(
      /("?(?:api[_-]?key|authorization|x-api-key|token)"?\s*[:=]\s*"?)[^"\s,}]+/gi,
      "$1[redacted]",
    );
}

const JSON_ESCAPE = /\\u[0-9a-fA-F]{4}|\\\//;

function unescapeJson(text: string): string {
  return text
    .replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    .replace(/\\\//g, "/");
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
