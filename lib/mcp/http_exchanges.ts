// The answers the HTTP face has open, and when each one ends: read to its end, failed, its client
// gone, or its request cancelled. Each end gives back what the request held (its slot, its bytes).

/** An answer whose end is watched, and the way to end it from outside. */
export interface WatchedAnswer {
  response: Response;
  /** Ends the answer now (its request was cancelled): its body stops, and `done` runs (gone). */
  end: () => void;
}

/**
 * `response` with a body that calls `done` once it has been read to its end, has failed, or was
 * cancelled (the client went away: `gone`), so a streamed answer counts as open until it ends.
 */
export function watchAnswer(response: Response, done: (gone: boolean) => void): WatchedAnswer {
  let finished = false;
  const finish = (gone: boolean) => {
    if (finished) return;
    finished = true;
    done(gone);
  };
  if (response.body === null) {
    finish(false);
    return { response, end: () => {} };
  }
  const reader = response.body.getReader();
  let stop: (() => void) | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      stop = () => {
        finish(true);
        reader.cancel().catch(() => {});
        try {
          controller.close();
        } catch {
          // Already closed or errored.
        }
      };
    },
    async pull(controller) {
      try {
        const { done: end, value } = await reader.read();
        if (finished) return;
        if (end) {
          finish(false);
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        finish(true);
        controller.error(error);
      }
    },
    cancel(reason) {
      finish(true);
      return reader.cancel(reason);
    },
  });
  return {
    response: new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    }),
    end: () => stop?.(),
  };
}

/** A JSON-RPC request id as a map key: `1` and `"1"` are different ids. */
function idKey(id: unknown): string | undefined {
  return typeof id === "string" || typeof id === "number" ? JSON.stringify(id) : undefined;
}

/**
 * The answers open on 2025-era sessions, by session id and request id, so that a client's
 * notifications/cancelled ends the answer it cancelled. The SDK sends nothing more for a cancelled
 * request (the protocol says a receiver does not answer one), so its event stream would stay open,
 * and with it the client's slot, for as long as the client's HTTP stack keeps the connection: Deno's
 * fetch keeps it after the call is aborted, and 16 cancels locked such a client out with 429.
 */
export class OpenAnswers {
  readonly #open = new Map<string, () => void>();

  /**
   * Remembers `end` for the request `body` carries on `request`'s session (none for a request
   * outside a session, a notification or a batch); the returned function forgets it.
   */
  watch(request: Request, body: unknown, end: () => void): () => void {
    const key = this.#key(request, (body as { id?: unknown } | undefined)?.id);
    if (key === undefined || Array.isArray(body)) return () => {};
    this.#open.set(key, end);
    return () => {
      if (this.#open.get(key) === end) this.#open.delete(key);
    };
  }

  /** When `body` is a notifications/cancelled on `request`'s session, ends the answer it names. */
  cancelled(request: Request, body: unknown): void {
    const message = body as { method?: unknown; params?: { requestId?: unknown } } | undefined;
    if (message?.method !== "notifications/cancelled") return;
    const key = this.#key(request, message.params?.requestId);
    if (key === undefined) return;
    const end = this.#open.get(key);
    this.#open.delete(key);
    end?.();
  }

  #key(request: Request, id: unknown): string | undefined {
    const session = request.headers.get("mcp-session-id");
    const rpcId = idKey(id);
    return session === null || rpcId === undefined ? undefined : `${session} ${rpcId}`;
  }
}

/**
 * Resolves `undefined` as soon as `signal` aborts (the client went away); `dispose` stops
 * listening once the race it is in is over.
 */
export function whenAborted(
  signal: AbortSignal,
): { gone: Promise<undefined>; dispose: () => void } {
  let dispose = () => {};
  const gone = new Promise<undefined>((resolve) => {
    if (signal.aborted) return resolve(undefined);
    const onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    dispose = () => signal.removeEventListener("abort", onAbort);
  });
  return { gone, dispose };
}
