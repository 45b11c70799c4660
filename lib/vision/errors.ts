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
        `the vision host(s) it was granted. Point ${urlVar} at an allowed host, or build a binary ` +
        `for this one with: deno task compile --vision-host ${host}`,
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

/** Removes the key and anything shaped like a credential from text a server sent back. */
export function scrubSecrets(text: string, secret: string | undefined): string {
  let out = text;
  if (secret) out = out.split(secret).join("[redacted]");
  return out
    .replace(/(bearer|basic)\s+[^\s"',;}\]]+/gi, "$1 [redacted]")
    .replace(/\b(sk|pk|rk)-[A-Za-z0-9_\-]{6,}/g, "[redacted]")
    .replace(
      /("?(?:api[_-]?key|authorization|x-api-key|token)"?\s*[:=]\s*"?)[^"\s,}]+/gi,
      "$1[redacted]",
    );
}
