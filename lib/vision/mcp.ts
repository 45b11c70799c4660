// The MCP vision route: calls the configured tool with the image over one lazily opened, reused
// session (mcp_session.ts), retries once on a stale session, and words every failure.

import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from "@modelcontextprotocol/client";
import {
  cancelledError,
  httpStatusError,
  networkFailure,
  timeoutError,
  tooLarge,
  urlSecrets,
  VisionError,
} from "./errors.ts";
import { type McpRoute, McpSession, scrub } from "./mcp_session.ts";
import {
  type Deadline,
  endpointOf,
  imageDataUrl,
  type McpVisionConfig,
  type RouteDeps,
  startDeadline,
  type Vision,
  type VisionImage,
  type VisionOff,
} from "./route.ts";

export function createMcpVision(config: McpVisionConfig, deps: RouteDeps): Vision {
  const endpoint = endpointOf(config.url);
  return new McpVision({ config, endpoint, secrets: urlSecrets(config.url), ...deps });
}

/** The route: the one live session, shared by concurrent calls, and whether close() was called. */
class McpVision implements Vision {
  readonly route = "mcp";
  readonly endpoint: string;
  readonly unavailable: VisionOff | undefined = undefined;
  readonly #route: McpRoute;
  /** Undefined until first use or after a hang-up. */
  #session: McpSession | undefined;
  #closed = false;

  constructor(route: McpRoute) {
    this.#route = route;
    this.endpoint = route.endpoint;
  }

  async describe(image: VisionImage, prompt: string, signal?: AbortSignal): Promise<string> {
    const deadline = startDeadline(this.#route.config.timeoutMs, this.#route.clock, signal);
    const dataUrl = imageDataUrl(image);
    /** The session the call was sent on, once it was. */
    let sent: McpSession | undefined;
    try {
      const reused = this.#session !== undefined;
      let s = this.#shared();
      try {
        await s.whenReady(deadline.signal);
        sent = s;
        return await s.call(dataUrl, prompt, deadline);
      } catch (err) {
        if (s.tooLarge) throw s.tooLarge;
        // A reused session may have died with a server restart, or been hung up on because another
        // call on it ended early; describing is read-only, so one fresh session and one repeat are safe.
        const retry = !this.#closed && deadline.reason() === undefined && isStaleSession(err) &&
          (reused || s.ended === "call ended");
        if (!retry) throw err;
        s.hangUp("stale");
        s = this.#shared();
        sent = undefined;
        await s.whenReady(deadline.signal);
        sent = s;
        return await s.call(dataUrl, prompt, deadline);
      }
    } catch (err) {
      // A call that ends early (timeout, caller) leaves its answer streaming on a 2025-era session,
      // which the SDK keeps reading: hang up so no byte more is read. The next look reconnects.
      if (sent !== undefined && (deadline.reason() !== undefined || isRequestTimeout(err))) {
        sent.hangUp("call ended");
      }
      if (sent?.tooLarge) throw sent.tooLarge;
      throw failure(this.#route, err, {
        deadline,
        closed: this.#closed,
        sentChars: dataUrl.length,
      });
    } finally {
      deadline.clear();
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    const s = this.#session;
    this.#session = undefined;
    if (s) await s.goodbye();
  }

  #shared(): McpSession {
    if (this.#closed) {
      throw new VisionError("UNCONFIGURED", "Vision was closed; restart phone-eye");
    }
    if (this.#session === undefined) {
      const s = new McpSession(this.#route, (ended) => {
        if (this.#session === ended) this.#session = undefined;
      });
      this.#session = s;
      // A failed handshake is not kept: the next call tries again.
      s.ready.catch(() => {});
    }
    return this.#session;
  }
}

/** What failure() reads of the call besides the error: why its deadline fired, if it did. */
interface FailedCall {
  deadline: Deadline;
  /** close() was called while the call was in flight. */
  closed: boolean;
  /** Characters of the image sent, for a 413's message. */
  sentChars: number;
}

/** The VisionError the agent reads for a failed call, in order: deadline, then what the SDK saw. */
function failure(route: McpRoute, err: unknown, call: FailedCall): VisionError {
  const { endpoint, config: { tool } } = route;
  const why = call.deadline.reason();
  if (why === "caller") return cancelledError(endpoint);
  if (why === "timeout" || isRequestTimeout(err)) {
    return timeoutError(
      `The MCP vision server at ${endpoint} gave no answer from ${tool}`,
      route.config.timeoutMs,
      "slow models",
    );
  }
  if (err instanceof VisionError) return err;
  if (call.closed) {
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
  if (err instanceof SdkHttpError) {
    // The code follows the status (errors.ts); the words say what to change on this route.
    return httpStatusError(err.status, httpExplanation(route, err, call.sentChars));
  }
  if (err instanceof ProtocolError) {
    return new VisionError(
      "TOOL_ERROR",
      `The MCP vision server at ${endpoint} rejected the call to ${tool} (JSON-RPC error ${err.code}): ` +
        `${scrub(route, err.message, 300)}; check that ${tool} takes { image, prompt } strings`,
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

function httpExplanation(route: McpRoute, err: SdkHttpError, sentChars: number): string {
  const { status } = err;
  const body: unknown = err.data.text;
  const said = typeof body === "string" && body.trim() ? `: ${scrub(route, body, 200)}` : "";
  const server = `The MCP vision server at ${route.endpoint} answered HTTP ${status}`;
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

function causeChain(err: unknown): unknown[] {
  const chain = [err];
  for (let e = err; e instanceof Error && e.cause !== undefined && chain.length < 5; e = e.cause) {
    chain.push(e.cause);
  }
  return chain;
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
