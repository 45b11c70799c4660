// One session with an MCP vision server: the SDK's Client over streamable HTTP, its handshake on the
// injected clock, the tool call, and hanging up so that nothing more is read on it.

import {
  Client,
  type ListToolsResult,
  SdkError,
  SdkErrorCode,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { VERSION } from "../config/config.ts";
import { excerpt } from "../core/text.ts";
import { type CappedFetch, cappedFetch, capWords, MAX_RESPONSE_BYTES } from "./capped_body.ts";
import { answerTooLarge, redact, scrubSecrets, VisionError } from "./errors.ts";
import type { Deadline, McpVisionConfig, RouteDeps } from "./route.ts";

/** What every session of the route shares: its settings, and what its messages may not quote. */
export interface McpRoute extends RouteDeps {
  config: McpVisionConfig;
  /** scheme://host[:port] of the server, for messages. */
  endpoint: string;
  /** Never quoted back: whatever in the configured URL may be a credential (path, query, password). */
  secrets: readonly string[];
}

/** Text from the server shown in a message: secrets scrubbed, cut to `max`. */
export function scrub(route: McpRoute, text: string, max: number): string {
  return excerpt(scrubSecrets(text, route.secrets), max);
}

/** Why phone-eye hung up on a session. */
export type Ending = "too large" | "call ended" | "stale" | "closed";

/** How long goodbye() lets the server acknowledge the end of the session before hanging up anyway. */
const CLOSE_GRACE_MS = 1_000;
/**
 * The SDK arms a timer of its own on every request (60 s unless told). The bounds that end a call
 * or a handshake run on the injected clock, so a test can move them; the SDK's timer is set this
 * far past them, a backstop that fires only if the clock's bound never did.
 */
const SDK_BACKSTOP_MS = 60_000;
/** Tool text is the model's message to the agent; keep a runaway error text from flooding it. */
const MAX_TOOL_ERROR_CHARS = 1_000;

/**
 * One session with the server, and every response body read on it. The handshake starts when it
 * is made; `onEnd` hears when phone-eye hangs up on it, so its owner stops handing it out.
 */
export class McpSession {
  /** Resolves once the handshake is done and the tool is found. */
  readonly ready: Promise<void>;
  readonly #route: McpRoute;
  readonly #onEnd: (session: McpSession) => void;
  /** The fetch this session's transport uses: each body capped, all cancelled at hang-up. */
  readonly #bodies: CappedFetch;
  readonly #transport: StreamableHTTPClientTransport;
  readonly #client: Client;
  #ended: Ending | undefined;
  #tooLarge: VisionError | undefined;

  constructor(route: McpRoute, onEnd: (session: McpSession) => void) {
    this.#route = route;
    this.#onEnd = onEnd;
    const { config, endpoint } = route;
    this.#bodies = cappedFetch(route.fetch, {
      maxBytes: MAX_RESPONSE_BYTES,
      onOverflow: () => {
        this.#tooLarge ??= answerTooLarge(
          `The MCP vision server at ${endpoint}`,
          capWords(MAX_RESPONSE_BYTES),
          `the next look reconnects. Check that PHONE_EYE_VISION_URL is an MCP vision server and ` +
            `that ${config.tool} answers with text`,
        );
        this.hangUp("too large");
      },
    });
    this.#transport = new StreamableHTTPClientTransport(new URL(config.url), {
      fetch: this.#bodies.fetch,
      // The server→client GET stream is optional and phone-eye needs no server notifications:
      // do not keep re-opening it with backoff timers after a restart; the next call reconnects.
      reconnectionOptions: {
        maxRetries: 0,
        initialReconnectionDelay: 1_000,
        maxReconnectionDelay: 1_000,
        reconnectionDelayGrowFactor: 1,
      },
    });
    // "auto" speaks to both eras: it probes for a 2026-07-28 server and falls back to the 2025
    // initialize handshake (with its session) for older ones; "legacy" alone fails on modern-only servers.
    this.#client = new Client({ name: "phone-eye", version: VERSION }, {
      versionNegotiation: { mode: "auto" },
    });
    // Transport hiccups surface again as the rejected call; the SDK's default would only add noise.
    this.#client.onerror = () => {};
    this.ready = this.#handshake();
  }

  /** Why phone-eye hung up on this session, if it did. */
  get ended(): Ending | undefined {
    return this.#ended;
  }

  /** Set when a response passed the cap: every call on the session fails with it. */
  get tooLarge(): VisionError | undefined {
    return this.#tooLarge;
  }

  /** Runs on its own bound, not a caller's signal: concurrent calls share it, so one caller's abort must not end it. */
  async #handshake(): Promise<void> {
    const { timeoutMs } = this.#route.config;
    const bound = new AbortController();
    const cancelBound = this.#route.clock.setTimer(timeoutMs, () => {
      bound.abort(new SdkError(SdkErrorCode.RequestTimeout, `handshake exceeded ${timeoutMs} ms`));
    });
    try {
      const options = { signal: bound.signal, timeout: timeoutMs + SDK_BACKSTOP_MS };
      await untilAborted(this.#client.connect(this.#transport, options), bound.signal);
      // listTools() prints to stdout (our MCP channel) when the server has no tools capability.
      const tools: ListToolsResult["tools"] = this.#client.getServerCapabilities()?.tools
        ? (await this.#client.listTools(undefined, options)).tools
        : [];
      this.#checkToolOffered(tools);
    } catch (err) {
      // The version probe inside connect() takes no signal and runs before the client owns the
      // transport: past the bound, closing the transport is what ends the probe's request.
      if (bound.signal.aborted) void this.#transport.close().catch(() => {});
      this.hangUp("stale");
      throw this.#tooLarge ?? err;
    } finally {
      cancelBound();
    }
  }

  #checkToolOffered(tools: ListToolsResult["tools"]): void {
    const { tool } = this.#route.config;
    if (tools.some((t) => t.name === tool)) return;
    const names = tools.map((t) => t.name).slice(0, 20).join(", ");
    throw new VisionError(
      "TOOL_MISSING",
      `The MCP vision server at ${this.#route.endpoint} has no tool named ${
        JSON.stringify(tool)
      } ` +
        `(it offers: ${
          scrub(this.#route, names, 400) || "no tools"
        }); set PHONE_EYE_VISION_TOOL to the one that describes images`,
    );
  }

  /** Waits for the handshake, or rejects with the signal's reason as soon as it aborts. */
  whenReady(signal: AbortSignal): Promise<void> {
    return untilAborted(this.ready, signal);
  }

  /** Calls the tool with the image (once ready) and returns its text, secrets redacted. */
  async call(image: string, prompt: string, deadline: Deadline): Promise<string> {
    const { endpoint, config: { tool } } = this.#route;
    const result = await this.#client.callTool(
      { name: tool, arguments: { image, prompt } },
      { signal: deadline.signal, timeout: deadline.remainingMs() + SDK_BACKSTOP_MS },
    );
    const text = (Array.isArray(result.content) ? result.content : [])
      .map((part) => part.type === "text" ? part.text : "")
      .filter((t) => t.trim() !== "")
      .join("\n")
      .trim();
    if (result.isError) {
      throw new VisionError(
        "TOOL_ERROR",
        `The MCP vision tool ${tool} at ${endpoint} reported an error: ` +
          (text ? scrub(this.#route, text, MAX_TOOL_ERROR_CHARS) : "(no text given)"),
      );
    }
    if (text === "") {
      throw new VisionError(
        "BAD_RESPONSE",
        `The MCP vision tool ${tool} at ${endpoint} answered with no text content; it must return the description as text`,
      );
    }
    // A server may echo its own URL, token and all, into the answer the agent will read.
    return redact(text, this.#route.secrets);
  }

  /**
   * Ends the session so that nothing more is read on it: every open body is cancelled (the server
   * sees the socket close) and the client rejects what is pending. The next call opens a new one.
   */
  hangUp(why: Ending): void {
    this.#onEnd(this);
    if (this.#ended !== undefined) return;
    this.#ended = why;
    this.#bodies.hangUp(new DOMException(`vision session ended (${why})`, "AbortError"));
    void this.#client.close().catch(() => {});
  }

  /** Closing: stops reading answers, tells the server the session ends (briefly), hangs up. */
  async goodbye(): Promise<void> {
    // Answers still streaming are not wanted any more: stop reading them before saying goodbye.
    this.#bodies.cancelOpen(new DOMException("vision closed", "AbortError"));
    if (await this.ready.then(() => true, () => false)) {
      // Ending the session lets the server free it now rather than at its idle timeout.
      let cancelGrace = () => {};
      await Promise.race([
        this.#transport.terminateSession().catch(() => {}),
        new Promise<void>((resolve) =>
          cancelGrace = this.#route.clock.setTimer(CLOSE_GRACE_MS, resolve)
        ),
      ]);
      cancelGrace();
    }
    this.hangUp("closed");
    await this.#client.close().catch(() => {});
  }
}

/** `p`, or the signal's reason as soon as it aborts (p itself carries on for its other waiters). */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
