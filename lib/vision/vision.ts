// The vision seam: the Vision interface, its one error type, and createVision's pick of a route.
// Routes live one per file (direct.ts, mcp.ts); adding a route is one function there and one branch here.

import type { VisionConfig } from "../config.ts";
import { createDirectVision } from "./direct.ts";

export interface VisionImage {
  bytes: Uint8Array;
  mimeType: "image/jpeg" | "image/png";
  width: number;
  height: number;
}

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
  | "NOT_PERMITTED"
  /** The MCP vision server does not offer the configured tool. */
  | "TOOL_MISSING"
  | "TOOL_ERROR";

export class VisionError extends Error {
  override name = "VisionError";
  constructor(readonly code: VisionErrorCode, message: string) {
    super(message);
  }
}

export interface Vision {
  readonly route: "direct" | "mcp" | "none";
  /** scheme://host[:port] of the vision server, for messages: never a path, query or key. */
  readonly endpoint: string;
  /** The model's answer as text; every failure is a VisionError. */
  describe(image: VisionImage, prompt: string, signal?: AbortSignal): Promise<string>;
  /** Releases connections (the MCP session); describe() may not be called afterwards. */
  close(): Promise<void>;
}

export interface VisionDeps {
  /** The fetch both routes use; main.ts and tests pass the global one. */
  fetch?: typeof fetch;
}

export type DirectVisionConfig = Extract<VisionConfig, { route: "direct" }>;
export type McpVisionConfig = Extract<VisionConfig, { route: "mcp" }>;

export function createVision(config: VisionConfig, deps: VisionDeps = {}): Vision {
  const fetchFn = deps.fetch ?? globalThis.fetch;
  switch (config.route) {
    case "direct":
      return createDirectVision(config, fetchFn);
    case "mcp":
      return lazyVision(
        "mcp",
        endpointOf(config.url),
        () => import("./mcp.ts").then((m) => m.createMcpVision(config, fetchFn)),
      );
    case "none":
      return unconfiguredVision(config.problem);
  }
}

/**
 * A route whose module loads on first use. The MCP client SDK is the largest import phone-eye has;
 * loading it only when a look needs it keeps start-up to tools/list short (bench/hand_bench.ts).
 */
function lazyVision(route: Vision["route"], endpoint: string, load: () => Promise<Vision>): Vision {
  let loaded: Promise<Vision> | undefined;
  return {
    route,
    endpoint,
    async describe(image, prompt, signal) {
      loaded ??= load();
      return await (await loaded).describe(image, prompt, signal);
    },
    async close() {
      if (loaded) await (await loaded).close();
    },
  };
}

export const UNCONFIGURED_MESSAGE = "Vision is not configured. Set PHONE_EYE_VISION_API_KEY " +
  "(plus PHONE_EYE_VISION_BASE_URL and PHONE_EYE_VISION_MODEL for a provider other than OpenAI, " +
  "or PHONE_EYE_VISION_BASE_URL alone for a keyless local server such as llama.cpp, Ollama or vLLM) " +
  "to use an OpenAI-compatible endpoint, or PHONE_EYE_VISION_URL to use an MCP vision server; " +
  "then restart phone-eye.";

/** No route: describe() answers at once with why (unset, or the settings' problem). */
function unconfiguredVision(problem: string | undefined): Vision {
  const message = problem === undefined
    ? UNCONFIGURED_MESSAGE
    : `Vision settings are invalid: ${problem}. Fix them and restart phone-eye; the other tools work without vision.`;
  return {
    route: "none",
    endpoint: "none",
    describe() {
      return Promise.reject(new VisionError("UNCONFIGURED", message));
    },
    close() {
      return Promise.resolve();
    },
  };
}

// ---- helpers shared by the routes ----

/** The image as the base64 data URL both routes send. */
export function imageDataUrl(image: VisionImage): string {
  return `data:${image.mimeType};base64,${image.bytes.toBase64()}`;
}

/** scheme://host[:port] of a configured URL: safe to print, since paths and queries may hold tokens. */
export function endpointOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "(invalid URL)";
  }
}

/** One deadline for a whole describe() call, merged with the caller's signal. */
export interface Deadline {
  readonly signal: AbortSignal;
  /** Milliseconds left before the deadline (at least 1, so SDK timeouts stay valid). */
  remainingMs(): number;
  /** Why the signal fired, if it did. */
  reason(): "timeout" | "caller" | undefined;
  clear(): void;
}

export function startDeadline(timeoutMs: number, caller?: AbortSignal): Deadline {
  const controller = new AbortController();
  const endsAt = Date.now() + timeoutMs;
  let why: "timeout" | "caller" | undefined;
  const onCaller = () => {
    why ??= "caller";
    controller.abort(caller?.reason);
  };
  // A plain timer (not AbortSignal.timeout) so clear() leaves nothing running behind the call.
  const timer = setTimeout(() => {
    why ??= "timeout";
    controller.abort(new DOMException(`vision call exceeded ${timeoutMs} ms`, "TimeoutError"));
  }, timeoutMs);
  if (caller?.aborted) onCaller();
  else caller?.addEventListener("abort", onCaller, { once: true });
  return {
    signal: controller.signal,
    remainingMs: () => Math.max(1, endsAt - Date.now()),
    reason: () => why,
    clear() {
      clearTimeout(timer);
      caller?.removeEventListener("abort", onCaller);
    },
  };
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

/** The 413 explanation: phone-eye cannot shrink the request, the user can raise the limit or send less. */
export function tooLarge(sentChars: number): string {
  const kb = Math.round(sentChars / 1024);
  return `the request (${kb} KB, nearly all of it the base64 screenshot) is larger than the server ` +
    `accepts; raise the server's request-size limit or send a smaller (downscaled or JPEG) screenshot`;
}
