// The MCP vision route: the SDK's Client over streamable HTTP, calling the configured tool with the image.
// Owns the lazily opened, reused session, hanging up on it when an answer is cut off, the retry, and errors.

import {
  Client,
  type ListToolsResult,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import type { Clock } from "../core/clock.ts";
import { VERSION } from "../config/config.ts";
import { excerpt } from "../core/text.ts";
import { type CappedFetch, cappedFetch, capWords, MAX_RESPONSE_BYTES } from "./capped_body.ts";
import {
  answerTooLarge,
  cancelledError,
  httpStatusError,
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
  endpointOf,
  imageDataUrl,
  type McpVisionConfig,
  startDeadline,
  type Vision,
  type VisionImage,
} from "./route.ts";

/** One session with the server, and every response body read on it. */
interface Session {
  client: Client;
  transport: StreamableHTTPClientTransport;
  /** Resolves once the handshake is done and the tool is found. */
  ready: Promise<Client>;
  /** The fetch this session's transport uses: each body capped, all cancelled at hang-up. */
  bodies: CappedFetch;
  /** Why phone-eye hung up on this session, if it did. */
  ended: "too large" | "call ended" | "stale" | "closed" | undefined;
  /** Set when a response passed the cap: every call on the session fails with it. */
  tooLarge: VisionError | undefined;
}

/** How long close() lets the server acknowledge the end of the session before hanging up anyway. */
const CLOSE_GRACE_MS = 1_000;
/**
 * The SDK arms a timer of its own on every request (60 s unless told). The bounds that end a call
 * or a handshake run on the injected clock, so a test can move them; the SDK's timer is set this
 * far past them, a backstop that fires only if the clock's bound never did.
 */
const SDK_BACKSTOP_MS = 60_000;
/** Tool text is the model's message to the agent; keep a runaway error text from flooding it. */
const MAX_TOOL_ERROR_CHARS = 1_000;

export function createMcpVision(
  config: McpVisionConfig,
  fetchFn: typeof fetch,
  clock: Clock,
): Vision {
  const endpoint = endpointOf(config.url);
  const tool = config.tool;
  /** Never quoted back: whatever in the configured URL may be a credential (path, query, password). */
  const secrets = urlSecrets(config.url);
  const scrub = (text: string, max: number) => excerpt(scrubSecrets(text, secrets), max);
  /** The one live session, shared by concurrent calls; undefined until first use or after a hang-up. */
  let session: Session | undefined;
  let closed = false;

  function openSession(): Session {
    const s = {} as Session;
    s.bodies = cappedFetch(fetchFn, MAX_RESPONSE_BYTES, () => {
      s.tooLarge ??= answerTooLarge(
        `The MCP vision server at ${endpoint}`,
        capWords(MAX_RESPONSE_BYTES),
        `the next look reconnects. Check that PHONE_EYE_VISION_URL is an MCP vision server and ` +
          `that ${tool} answers with text`,
      );
      hangUp(s, "too large");
    });
    s.transport = new StreamableHTTPClientTransport(new URL(config.url), {
      fetch: s.bodies.fetch,
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
    s.client = new Client({ name: "phone-eye", version: VERSION }, {
      versionNegotiation: { mode: "auto" },
    });
    // Transport hiccups surface again as the rejected call; the SDK's default would only add noise.
    s.client.onerror = () => {};
    s.ready = handshake(s);
    return s;
  }

  /** Runs on its own bound, not a caller's signal: concurrent calls share it, so one caller's abort must not end it. */
  async function handshake(s: Session): Promise<Client> {
    const bound = new AbortController();
    const cancelBound = clock.setTimer(config.timeoutMs, () => {
      bound.abort(
        new SdkError(SdkErrorCode.RequestTimeout, `handshake exceeded ${config.timeoutMs} ms`),
      );
    });
    try {
      const options = { signal: bound.signal, timeout: config.timeoutMs + SDK_BACKSTOP_MS };
      await untilAborted(s.client.connect(s.transport, options), bound.signal);
      // listTools() prints to stdout (our MCP channel) when the server has no tools capability.
      const tools: ListToolsResult["tools"] = s.client.getServerCapabilities()?.tools
        ? (await s.client.listTools(undefined, options)).tools
        : [];
      if (!tools.some((t) => t.name === tool)) {
        const names = tools.map((t) => t.name).slice(0, 20).join(", ");
        throw new VisionError(
          "TOOL_MISSING",
          `The MCP vision server at ${endpoint} has no tool named ${JSON.stringify(tool)} ` +
            `(it offers: ${
              scrub(names, 400) || "no tools"
            }); set PHONE_EYE_VISION_TOOL to the one that describes images`,
        );
      }
    } catch (err) {
      // The version probe inside connect() takes no signal and runs before the client owns the
      // transport: past the bound, closing the transport is what ends the probe's request.
      if (bound.signal.aborted) void s.transport.close().catch(() => {});
      hangUp(s, "stale");
      throw s.tooLarge ?? err;
    } finally {
      cancelBound();
    }
    return s.client;
  }

  function sharedSession(): Session {
    if (closed) {
      throw new VisionError("UNCONFIGURED", "Vision was closed; restart phone-eye");
    }
    if (session === undefined) {
      const s = openSession();
      session = s;
      // A failed handshake is not kept: the next call tries again.
      s.ready.catch(() => {});
    }
    return session;
  }

  /**
   * Ends a session so that nothing more is read on it: every open body is cancelled (the server
   * sees the socket close) and the client rejects what is pending. The next call opens a new one.
   */
  function hangUp(s: Session, why: NonNullable<Session["ended"]>): void {
    if (session === s) session = undefined;
    if (s.ended !== undefined) return;
    s.ended = why;
    s.bodies.hangUp(new DOMException(`vision session ended (${why})`, "AbortError"));
    void s.client.close().catch(() => {});
  }

  async function callOnce(client: Client, image: string, prompt: string, deadline: Deadline) {
    const result = await client.callTool(
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
          (text ? scrub(text, MAX_TOOL_ERROR_CHARS) : "(no text given)"),
      );
    }
    if (text === "") {
      throw new VisionError(
        "BAD_RESPONSE",
        `The MCP vision tool ${tool} at ${endpoint} answered with no text content; it must return the description as text`,
      );
    }
    // A server may echo its own URL, token and all, into the answer the agent will read.
    return redact(text, secrets);
  }

  async function describe(image: VisionImage, prompt: string, signal?: AbortSignal) {
    const deadline = startDeadline(config.timeoutMs, clock, signal);
    const dataUrl = imageDataUrl(image);
    /** The session the call was sent on, once it was. */
    let sent: Session | undefined;
    try {
      const reused = session !== undefined;
      let s = sharedSession();
      try {
        const client = await untilAborted(s.ready, deadline.signal);
        sent = s;
        return await callOnce(client, dataUrl, prompt, deadline);
      } catch (err) {
        if (s.tooLarge) throw s.tooLarge;
        // A reused session may have died with a server restart, or been hung up on because another
        // call on it ended early; describing is read-only, so one fresh session and one repeat are safe.
        const retry = !closed && deadline.reason() === undefined && isStaleSession(err) &&
          (reused || s.ended === "call ended");
        if (!retry) throw err;
        hangUp(s, "stale");
        s = sharedSession();
        sent = undefined;
        const client = await untilAborted(s.ready, deadline.signal);
        sent = s;
        return await callOnce(client, dataUrl, prompt, deadline);
      }
    } catch (err) {
      // A call that ends early (timeout, caller) leaves its answer streaming on a 2025-era session,
      // which the SDK keeps reading: hang up so no byte more is read. The next look reconnects.
      if (sent !== undefined && (deadline.reason() !== undefined || isRequestTimeout(err))) {
        hangUp(sent, "call ended");
      }
      if (sent?.tooLarge) throw sent.tooLarge;
      throw classify(err, deadline, dataUrl.length);
    } finally {
      deadline.clear();
    }
  }

  function classify(err: unknown, deadline: Deadline, sentChars: number): VisionError {
    const why = deadline.reason();
    if (why === "caller") return cancelledError(endpoint);
    if (why === "timeout" || isRequestTimeout(err)) {
      return timeoutError(
        `The MCP vision server at ${endpoint} gave no answer from ${tool}`,
        config.timeoutMs,
        "slow models",
      );
    }
    if (err instanceof VisionError) return err;
    if (closed) {
      return new VisionError(
        "ABORTED",
        `Vision was closed while a call to ${endpoint} was in flight`,
      );
    }
    // The connect-time version probe wraps fetch's failure in an SdkError: look down the cause chain.
    for (const e of causeChain(err)) {
      const net = networkFailure(e, endpoint, "PHONE_EYE_VISION_URL");
      if (net) return net;
    }
    if (err instanceof SdkError && err.code === SdkErrorCode.ConnectionClosed) {
      return new VisionError(
        "UNREACHABLE",
        `The connection to the MCP vision server at ${endpoint} closed before it answered; ` +
          `is it up and stable? Check PHONE_EYE_VISION_URL`,
      );
    }
    if (err instanceof SdkHttpError) return httpFailure(err.status, err.data.text, sentChars);
    if (err instanceof ProtocolError) {
      return new VisionError(
        "TOOL_ERROR",
        `The MCP vision server at ${endpoint} rejected the call to ${tool} (JSON-RPC error ${err.code}): ` +
          `${scrub(err.message, 300)}; check that ${tool} takes { image, prompt } strings`,
      );
    }
    // What is left (SdkError, a schema or JSON parse failure) means the answer was not MCP as expected.
    const what = err instanceof SdkError ? err.code : err instanceof Error ? err.name : typeof err;
    return new VisionError(
      "BAD_RESPONSE",
      `The MCP exchange with ${endpoint} failed (${what}): the server's answer is not the MCP the ` +
        `client expects; check that PHONE_EYE_VISION_URL is a streamable-HTTP MCP endpoint`,
    );
  }

  /** The code follows the status (errors.ts); the words say what to change on this route. */
  function httpFailure(status: number, body: unknown, sentChars: number): VisionError {
    return httpStatusError(status, httpExplanation(status, body, sentChars));
  }

  function httpExplanation(status: number, body: unknown, sentChars: number): string {
    const said = typeof body === "string" && body.trim() ? `: ${scrub(body, 200)}` : "";
    const server = `The MCP vision server at ${endpoint} answered HTTP ${status}`;
    if (status === 401 || status === 403) {
      return `${server}: it wants credentials, and phone-eye's MCP route sends none. Use a vision server ` +
        `that is open to this machine, or the direct route (PHONE_EYE_VISION_API_KEY)`;
    }
    if (status === 413) {
      return `${server}: ${tooLarge(sentChars)} (SDK v2 servers accept 4 MiB by default)`;
    }
    if (status === 429) return `${server} (rate limited)${said}; wait before looking again`;
    if (status === 404 || status === 405) {
      return `${server}${said}; check that PHONE_EYE_VISION_URL is the server's MCP endpoint (often ending in /mcp)`;
    }
    return `${server}${said}`;
  }

  return {
    route: "mcp",
    endpoint,
    unavailable: undefined,
    describe,
    async close() {
      closed = true;
      const s = session;
      session = undefined;
      if (!s) return;
      // Answers still streaming are not wanted any more: stop reading them before saying goodbye.
      s.bodies.cancelOpen(new DOMException("vision closed", "AbortError"));
      if (await s.ready.then(() => true, () => false)) {
        // Ending the session lets the server free it now rather than at its idle timeout.
        let cancelGrace = () => {};
        await Promise.race([
          s.transport.terminateSession().catch(() => {}),
          new Promise<void>((resolve) => cancelGrace = clock.setTimer(CLOSE_GRACE_MS, resolve)),
        ]);
        cancelGrace();
      }
      hangUp(s, "closed");
      await s.client.close().catch(() => {});
    },
  };
}

function causeChain(err: unknown): unknown[] {
  const chain = [err];
  for (let e = err; e instanceof Error && e.cause !== undefined && chain.length < 5; e = e.cause) {
    chain.push(e.cause);
  }
  return chain;
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

/** How the handshake's bound, and the SDK's backstop timer, reject. */
function isRequestTimeout(err: unknown): boolean {
  return err instanceof SdkError && err.code === SdkErrorCode.RequestTimeout;
}

/** Failures that mean "this session is gone" (server restarted, or it dropped us), not "this call is bad". */
function isStaleSession(err: unknown): boolean {
  if (err instanceof SdkHttpError) return err.status === 404;
  if (err instanceof SdkError) {
    return err.code === SdkErrorCode.ConnectionClosed || err.code === SdkErrorCode.NotConnected ||
      err.code === SdkErrorCode.SendFailed;
  }
  // fetch's TypeError: refused or reset while the server was restarting.
  return err instanceof TypeError;
}
