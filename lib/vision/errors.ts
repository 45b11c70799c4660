// VisionError, the one error type every vision route throws, and the failures the routes share:
// a cancelled call, a timeout, an oversized answer, an HTTP status's code, a failed connection, scrubbed text.

import { AgentError } from "../core/errors.ts";

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
/**
 * Below this length a key is only matched as written: a test's one-letter key must not take every
 * "k" of a message with it. Real keys are 30 to 170 characters.
 */
const MIN_SPELLED_KEY = 12;
/**
 * The shortest run of base64 worth scrubbing as a piece of the key: 16 characters are 12 bytes of
 * the key, which ordinary text does not hold by chance.
 */
const MIN_BASE64_PIECE = 16;

/**
 * The forms of the API key a server could send back. Letter case and per-character escapes
 * (percent-encoding, JSON \u escapes) are matched by redact() itself; listed here are the
 * spellings it cannot find that way: the key in base64, alone and as `Bearer <key>` (an echoed
 * Authorization header), in the standard and URL-safe alphabets, with and without padding, and
 * every run of base64 that spells the key inside a longer base64 blob. A blob encodes 3 bytes
 * as 4 characters, so the key lands at one of 3 byte alignments, and at each the characters of
 * the groups that hold key bytes only are the same whatever the blob around them (keyPieces).
 */
export function keySecrets(key: string | undefined): string[] {
  if (!key) return [];
  const out = [key, encodeURIComponent(key)];
  if (key.length >= MIN_SPELLED_KEY) {
    const bytes = new TextEncoder().encode(key);
    const bearer = new TextEncoder().encode(`Bearer ${key}`);
    for (const whole of [bytes, bearer]) {
      const b64 = whole.toBase64();
      out.push(b64, b64.replace(/=+$/, ""));
    }
    out.push(...keyPieces(bytes));
    // The URL-safe alphabet (RFC 4648 section 5) of every base64 form above.
    for (const form of out.slice(2)) out.push(form.replaceAll("+", "-").replaceAll("/", "_"));
  }
  return unique(out);
}

/**
 * The base64 characters that encode `bytes` inside any longer blob, at each of the 3 byte
 * alignments: encode the bytes behind 0, 1 or 2 filler bytes and keep the 4-character groups made
 * of key bytes only (the first group mixes in the filler, the last one whatever follows).
 */
function keyPieces(bytes: Uint8Array): string[] {
  const pieces: string[] = [];
  for (let lead = 0; lead < 3; lead++) {
    const padded = new Uint8Array(lead + bytes.length);
    padded.set(bytes, lead);
    const b64 = padded.toBase64();
    const first = Math.ceil(lead / 3);
    const end = Math.floor((lead + bytes.length) / 3);
    const piece = b64.slice(4 * first, 4 * end);
    if (piece.length >= MIN_BASE64_PIECE) pieces.push(piece);
  }
  return pieces;
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
 * One pattern for a secret in any spelling redact() finds by itself: each character as written
 * in either letter case, percent-encoded (%xx, either case of hex), as a JSON \u escape, and "/"
 * also as JSON's "\/". Short secrets are matched as written only.
 */
function spelled(secret: string): string {
  if (secret.length < MIN_SPELLED_KEY) return `(?-i:${escapeRegExp(secret)})`;
  return [...secret].map((c) => {
    const code = c.codePointAt(0)!;
    const forms = [escapeRegExp(c)];
    const utf8 = [...new TextEncoder().encode(c)];
    forms.push(utf8.map((b) => `%${hex(b, 2)}`).join(""));
    if (code <= 0xffff) forms.push(`\\\\u${hex(code, 4)}`);
    if (c === "/") forms.push("\\\\/");
    return `(?:${forms.join("|")})`;
  }).join("");
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, "0");

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

/**
 * Replaces each secret in text a server sent back, longest first (so a whole URL goes before its
 * parts), in the spellings spelled() lists: a server may quote the key upper-cased, percent- or
 * \u-escaped. Nothing else is touched, so a vision answer's other words stay as the model wrote them.
 */
export function redact(text: string, secrets: readonly string[]): string {
  const ordered = unique(secrets.filter((s) => s !== "")).sort((a, b) => b.length - a.length);
  if (ordered.length === 0) return text;
  return text.replace(new RegExp(ordered.map(spelled).join("|"), "gi"), REDACTED);
}

/** redact(), then anything shaped like a credential: for error text, which is only ever quoted. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  return redact(text, secrets)
    // A value already redacted is left as it is (a second pass once made "[redacted]]" of it).
    .replace(/(bearer|basic)\s+(?!\[redacted\])[^\s"',;}\]]+/gi, "$1 [redacted]")
    .replace(/\b(sk|pk|rk)-[A-Za-z0-9_\-]{6,}/gi, REDACTED)
    // Google's API keys (AIza and 35 more characters).
    .replace(/\bAIza[0-9A-Za-z_\-]{20,}/g, REDACTED)
    .replace(
      /("?(?:api[_-]?key|authorization|x-api-key|token)"?\s*[:=]\s*"?)(?!\[redacted\])[^"\s,}]+/gi,
      "$1[redacted]",
    );
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
