// HTTP clients' MCP sessions (the 2025 revision's Mcp-Session-Id): one server and one Session each,
// so what is told once per session, like the first look's vision note, is told once to each client.

import {
  type McpServer,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { createSession, type Session } from "../core/session.ts";

export interface HttpSessionsDeps {
  /** A fresh MCP server over the shared tool resources that remembers in `session`. */
  server: (session: Session) => McpServer;
  /** The most sessions held at once (MAX_SESSIONS in production). */
  maxSessions: number;
}

/** One request served in a session: its response, and `done` to call once that response ended. */
export interface SessionExchange {
  response: Response;
  done: () => void;
}

interface Held {
  server: McpServer;
  transport: WebStandardStreamableHTTPServerTransport;
  /** This session's requests whose response has not ended: a session with one is not dropped. */
  open: number;
}

/** Counts a request open in `session` until the returned `done` is called (once or more). */
function lease(session: Held): () => void {
  session.open++;
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    session.open--;
  };
}

/** Serves `request` in `session`; `done` is the request's lease, given back here if it fails. */
async function exchange(
  session: Held,
  done: () => void,
  request: Request,
  parsedBody?: unknown,
): Promise<SessionExchange> {
  try {
    const response = await session.transport.handleRequest(
      request,
      parsedBody === undefined ? undefined : { parsedBody },
    );
    return { response, done };
  } catch (error) {
    done();
    throw error;
  }
}

/**
 * The sessions one HTTP server holds, by Mcp-Session-Id. Each is the SDK's own sessionful
 * transport (WebStandardStreamableHTTPServerTransport with a session id generator) connected to
 * one server made for it, so the SDK hands out the id, checks it on every request, and ends the
 * session on the client's DELETE (its onsessionclosed, where it is dropped here).
 *
 * Bounded: a lab has many clients, and the SDK's own client never sends DELETE when it closes,
 * so sessions are dropped, least recently used first, once `maxSessions` are held and a new one
 * starts. A dropped session's client is not stranded: its next request names an id this server
 * no longer holds, and http_serve.ts serves that statelessly (and hears the full note again).
 */
export class HttpSessions {
  readonly #deps: HttpSessionsDeps;
  /** In order of last use, least recent first: each request moves its session to the end. */
  readonly #held = new Map<string, Held>();
  #closed = false;

  constructor(deps: HttpSessionsDeps) {
    this.#deps = deps;
  }

  /**
   * Serves `request` in the session its Mcp-Session-Id header names; undefined when this server
   * holds no such session (none named, dropped, or from before a restart).
   */
  serve(request: Request): Promise<SessionExchange> | undefined {
    const id = request.headers.get("mcp-session-id");
    const session = id === null ? undefined : this.#held.get(id);
    if (id === null || session === undefined) return undefined;
    this.#held.delete(id);
    this.#held.set(id, session);
    return exchange(session, lease(session), request);
  }

  /**
   * Starts a session with `initialize`, the already parsed body of a 2025 initialize request: the
   * SDK's transport answers it with the new Mcp-Session-Id. Undefined when the server is full and
   * every session it holds has a request open, so none can be dropped.
   */
  start(request: Request, initialize: unknown): Promise<SessionExchange> | undefined {
    if (this.#closed || !this.#makeRoom()) return undefined;
    return this.#begin(request, initialize);
  }

  /** Ends every session (their open calls are cancelled). */
  async close(): Promise<void> {
    this.#closed = true;
    const sessions = [...this.#held.values()];
    this.#held.clear();
    await Promise.all(sessions.map((session) => session.server.close().catch(() => {})));
  }

  async #begin(request: Request, initialize: unknown): Promise<SessionExchange> {
    // The id is made here rather than by the transport, so the session is held (and counted
    // against the bound, with its initialize open) from this moment, not from whenever the SDK
    // gets to assign it.
    const id = crypto.randomUUID();
    let initialized = false;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: () => void (initialized = true),
      // The client's DELETE: the transport closes itself right after.
      onsessionclosed: () => void this.#held.delete(id),
    });
    const session: Held = { server: this.#deps.server(createSession()), transport, open: 0 };
    const done = lease(session);
    this.#held.set(id, session);
    try {
      await session.server.connect(transport);
      const served = await exchange(session, done, request, initialize);
      // Refused before it began (what the client accepts, its content type): nothing to keep.
      if (!initialized) this.#drop(id);
      return served;
    } catch (error) {
      done();
      this.#drop(id);
      throw error;
    }
  }

  /** Room for one more session: false when the server is full of sessions with requests open. */
  #makeRoom(): boolean {
    if (this.#held.size < this.#deps.maxSessions) return true;
    for (const [id, session] of this.#held) {
      if (session.open > 0) continue;
      this.#drop(id);
      return true;
    }
    return false;
  }

  #drop(id: string): void {
    const session = this.#held.get(id);
    if (session === undefined) return;
    this.#held.delete(id);
    // Closing the server closes its transport, which cancels what is still open.
    session.server.close().catch(() => {});
  }
}
