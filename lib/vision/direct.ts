// The direct vision route: one POST to an OpenAI-compatible /chat/completions with fetch.
// Owns the request shape, the deadline, and turning every failure into a VisionError without the key.

import type { Clock } from "../core/clock.ts";
import { excerpt } from "../core/text.ts";
import { capWords, MAX_RESPONSE_BYTES, readCapped } from "./capped_body.ts";
import {
  answerTooLarge,
  cancelledError,
  httpStatusError,
  keySecrets,
  networkFailure,
  redact,
  scrubSecrets,
  timeoutError,
  tooLarge,
  urlSecrets,
  VisionError,
} from "./errors.ts";
import {
  type Deadline,
  type DirectVisionConfig,
  endpointOf,
  imageDataUrl,
  type RouteDeps,
  startDeadline,
  type Vision,
  type VisionImage,
  type VisionOff,
} from "./route.ts";

const MAX_TOKENS = 1024;

export function createDirectVision(config: DirectVisionConfig, deps: RouteDeps): Vision {
  return new DirectVision(config, deps);
}

/** The route: each describe() is one self-contained fetch, so nothing stays open between calls. */
class DirectVision implements Vision {
  readonly route = "direct";
  readonly endpoint: string;
  readonly unavailable: VisionOff | undefined = undefined;
  readonly #config: DirectVisionConfig;
  readonly #fetch: typeof fetch;
  readonly #clock: Clock;
  readonly #url: string;
  /** Never quoted back: the key, and whatever in the base URL may be a credential. */
  readonly #secrets: readonly string[];

  constructor(config: DirectVisionConfig, deps: RouteDeps) {
    this.#config = config;
    this.#fetch = deps.fetch;
    this.#clock = deps.clock;
    this.#url = `${config.baseUrl.replace(/\/+$/, "")}/chat/completions`;
    this.endpoint = endpointOf(config.baseUrl);
    this.#secrets = [...keySecrets(config.apiKey), ...urlSecrets(config.baseUrl)];
  }

  async describe(image: VisionImage, prompt: string, signal?: AbortSignal): Promise<string> {
    const deadline = startDeadline(this.#config.timeoutMs, this.#clock, signal);
    try {
      const body = this.#requestBody(image, prompt);
      let response: Response;
      let read: { text: string; truncated: boolean };
      try {
        // A redirect could carry the Authorization header to another host: never follow one.
        response = await this.#fetch(this.#url, {
          method: "POST",
          headers: this.#headers(),
          body,
          signal: deadline.signal,
          redirect: "manual",
        });
        read = await readCapped(response.body, MAX_RESPONSE_BYTES, deadline.signal);
      } catch (err) {
        throw this.#failure(err, deadline);
      }
      // A failure status is explained from the start of its body, however long it was.
      if (!response.ok) throw this.#httpFailure(response, read.text, body.length);
      if (read.truncated) {
        throw answerTooLarge(
          `The vision server at ${this.endpoint}`,
          capWords(MAX_RESPONSE_BYTES),
          `check that PHONE_EYE_VISION_BASE_URL is an OpenAI-compatible chat API`,
        );
      }
      // Some servers echo the request, key included, into the answer the agent will read.
      return redact(this.#parseAnswer(read.text), this.#secrets);
    } finally {
      deadline.clear();
    }
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  #headers(): Record<string, string> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.#config.apiKey !== undefined) headers.authorization = `Bearer ${this.#config.apiKey}`;
    return headers;
  }

  #requestBody(image: VisionImage, prompt: string): string {
    return JSON.stringify({
      model: this.#config.model,
      messages: [{
        role: "user",
        content: [
          { type: "text", text: prompt },
          { type: "image_url", image_url: { url: imageDataUrl(image) } },
        ],
      }],
      max_tokens: MAX_TOKENS,
      temperature: 0,
    });
  }

  #failure(err: unknown, deadline: Deadline): VisionError {
    const { endpoint } = this;
    const why = deadline.reason();
    if (why === "timeout") {
      return timeoutError(
        `Vision model ${this.#config.model} at ${endpoint} gave no answer`,
        this.#config.timeoutMs,
        "slow (e.g. local CPU) models",
      );
    }
    if (why === "caller") return cancelledError(endpoint);
    const net = networkFailure(err, endpoint, "PHONE_EYE_VISION_BASE_URL");
    if (net) return net;
    const name = err instanceof Error ? err.name : typeof err;
    return new VisionError(
      "UNREACHABLE",
      `Vision request to ${endpoint} failed before an answer arrived (${name}); check PHONE_EYE_VISION_BASE_URL and that the server is up`,
    );
  }

  /** The code follows the status (errors.ts); the words say what to change on this route. */
  #httpFailure(response: Response, text: string, sentChars: number): VisionError {
    return httpStatusError(response.status, this.#httpExplanation(response, text, sentChars));
  }

  #httpExplanation(response: Response, text: string, sentChars: number): string {
    const secrets = this.#secrets;
    const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
    const said = bodyExcerpt(text, secrets);
    const server = `${this.endpoint} answered ${status}`;
    const model = JSON.stringify(this.#config.model);
    if (response.status === 401 || response.status === 403) {
      // The body is left out on purpose: providers quote part of the rejected key in it.
      return `${server}: the key was refused. Check PHONE_EYE_VISION_API_KEY ` +
        (this.#config.apiKey === undefined
          ? "(none is set; this server needs one)"
          : "(is it valid for this provider and PHONE_EYE_VISION_BASE_URL?)");
    }
    if (response.status >= 300 && response.status < 400) {
      // Where it points is never quoted: a hostile server can spell the key into the Location's
      // host or path (http://<key>.evil.example/), and a host name comes back lower-cased.
      return `${server}, a redirect; phone-eye does not follow redirects (they could carry the key ` +
        `elsewhere) and does not print where they point: set PHONE_EYE_VISION_BASE_URL to the ` +
        `provider's documented address (often https:// instead of http://)`;
    }
    if (response.status === 404) {
      return `${server} for /chat/completions${said}. Check that PHONE_EYE_VISION_BASE_URL is the API base ` +
        `(usually ending in /v1, e.g. http://127.0.0.1:8080/v1 or https://api.openai.com/v1) and that ` +
        `PHONE_EYE_VISION_MODEL (${model}) names a vision model the server has`;
    }
    if (response.status === 413) return `${server}: ${tooLarge(sentChars)}`;
    if (response.status === 429) {
      const retryAfter = response.headers.get("retry-after");
      const wait = retryAfter && /^\d+$/.test(retryAfter.trim())
        ? `; retry after ${retryAfter.trim()} s`
        : retryAfter
        ? `; retry after ${excerpt(scrubSecrets(retryAfter, secrets), 40)}`
        : "; wait a little before looking again";
      return `${server} (rate limit or quota)${wait}${said}`;
    }
    if (response.status >= 500) return `${server} (server-side failure)${said}; try again shortly`;
    return `${server}${said}. Check PHONE_EYE_VISION_MODEL (${model}) accepts images`;
  }

  #parseAnswer(text: string): string {
    const secrets = this.#secrets;
    const bad = (why: string) =>
      new VisionError(
        "BAD_RESPONSE",
        `${this.endpoint} answered but ${why}; is PHONE_EYE_VISION_BASE_URL an OpenAI-compatible API? ` +
          `Body: ${excerpt(scrubSecrets(text, secrets), 160) || "(empty)"}`,
      );
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw bad("the body is not JSON");
    }
    if (!isRecord(json)) throw bad("the body is not a JSON object");
    const choices = json.choices;
    if (!Array.isArray(choices) || choices.length === 0) throw bad("it has no choices");
    const first: unknown = choices[0];
    const message = isRecord(first) ? first.message : undefined;
    if (!isRecord(message)) throw bad("choices[0] has no message");
    const answer = contentText(message.content).trim();
    if (answer === "") {
      const finish = isRecord(first) && typeof first.finish_reason === "string"
        ? ` (finish_reason ${excerpt(scrubSecrets(first.finish_reason, secrets), 40)})`
        : "";
      throw bad(`the message has no text content${finish}`);
    }
    return answer;
  }
}

/** Message content is a string, or (some servers) an array of parts of which the text ones count. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => isRecord(part) && typeof part.text === "string" ? part.text : "")
    .filter((t) => t !== "")
    .join("\n");
}

function bodyExcerpt(text: string, secrets: readonly string[]): string {
  let shown = text;
  try {
    // Providers wrap the useful sentence as { error: { message } }; show just that when present.
    const json: unknown = JSON.parse(text);
    if (isRecord(json) && isRecord(json.error) && typeof json.error.message === "string") {
      shown = json.error.message;
    } else if (isRecord(json) && typeof json.error === "string") shown = json.error;
  } catch {
    // not JSON: show the raw text
  }
  const clean = excerpt(scrubSecrets(shown, secrets));
  return clean ? `: ${clean}` : "";
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
