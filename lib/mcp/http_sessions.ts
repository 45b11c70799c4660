// HTTP clients' MCP sessions (the 2025 revision's Mcp-Session-Id): one server and one Session each,
// so what is told once per session, like the first look's vision note, is told once to each client.

import {
  type McpServer,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { createSession, type Session } from "../core/session.ts";

export interface HttpSessionsDeps {
  /** A fresh MCP server over the shared tool resources, remembering this session's in `session`. */
  server: (session: Session) => McpServer;
  /** The most sessions held at once (MAX_SESSIONS in production). */
  maxSessions: number;
}

/** One request served in a session: its response, and `done` to call once that response ended. */
export interface SessionExchange {
  response: Response;
  done: () => void;
}

export interface HttpSessions {
  /**
   * Serves `request` in the session its Mcp-Session-Id header names; undefined when this server
   * holds no such session (none named, dropped, or from before a restart).
   */
  serve(request: Request): Promise<SessionExchange> | undefined;
  /**
   * Starts a session with `initialize`, the already parsed body of a 2025 initialize request: the
   * SDK's transport answers it with the new Mcp-Session-Id. Undefined when the server is full and
   * every session it holds has a request open, so none can be dropped.
   */
  start(request: Request, initialize: unknown): Promise<SessionExchange> | undefined;
  /** Ends every session (their open calls are cancelled). */
  close(): Promise<void>;
}

interface Held {
  server: McpServer;
  transport: WebStandardStreamableHTTPServerTransport;
  /** This session's requests whose response has not ended: a session with one is not dropped. */
  open: number;
}

/**
 * The sessions one HTTP server holds, by Mcp-Session-Id. Each is the SDK's own sessionful
 * transport (WebStandardStreamableHTTPServerTransport with a session id generator) connected to
 * one server made for it, so the SDK assigns the id, checks it on every request, and ends the
 * session on the client's DELETE (its onsessionclosed, where it is dropped here).
 *
 * Bounded: a lab has many clients, and the SDK's own client never sends DELETE when it closes,
 * so sessions are dropped, least recently used first, once `maxSessions` are held and a new one
 * starts. A dropped session's client is not stranded: its next request names an id this server
 * no longer holds, and http_serve.ts serves that statelessly (and hears the full note again).
 */
export function createHttpSessions(deps: HttpSessionsDeps): HttpSessions {
  // In order of last use, least recent first: each request moves its session to the end.
  const held = new Map<string, Held>();
  let closed = false;

  const drop = (id: string): void => {
    const session = held.get(id);
    if (session === undefined) return;
    held.delete(id);
    // Closing the server closes its transport, which cancels what is still open.
    session.server.close().catch(() => {});
  };

  /** Room for one more session: false when the server is full of sessions with requests open. */
  const makeRoom = (): boolean => {
    if (held.size < deps.maxSessions) return true;
    for (const [id, session] of held) {
      if (session.open > 0) continue;
      drop(id);
      return true;
    }
    return false;
  };

  /** Counts a request open in `session` until the returned `done` is called (once or more). */
  const lease = (session: Held): () => void => {
    session.open++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      session.open--;
    };
  };

  const exchange = async (
    session: Held,
    done: () => void,
    request: Request,
    parsedBody?: unknown,
  ): Promise<SessionExchange> => {
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
  };

  const begin = async (request: Request, initialize: unknown): Promise<SessionExchange> => {
    // The id is made here rather than by the transport, so the session is held (and counted
    // against the bound, with its initialize open) from this moment, not from whenever the SDK
    // gets to assign it.
    const id = crypto.randomUUID();
    let initialized = false;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: () => void (initialized = true),
      // The client's DELETE: the transport closes itself right after.
      onsessionclosed: () => void held.delete(id),
    });
    const session: Held = { server: deps.server(createSession()), transport, open: 0 };
    const done = lease(session);
    held.set(id, session);
    try {
      await session.server.connect(transport);
      const served = await exchange(session, done, request, initialize);
      // Refused before it began (what the client accepts, its content type): nothing to keep.
      if (!initialized) drop(id);
      return served;
    } catch (error) {
      done();
      drop(id);
      throw error;
    }
  };

  return {
    serve(request) {
      const id = request.headers.get("mcp-session-id");
      const session = id === null ? undefined : held.get(id);
      if (id === null || session === undefined) return undefined;
      held.delete(id);
      held.set(id, session);
      return exchange(session, lease(session), request);
    },
    start(request, initialize) {
      if (closed || !makeRoom()) return undefined;
      return begin(request, initialize);
    },
    async close() {
      closed = true;
      const closing = [...held.values()].map((session) => session.server.close().catch(() => {}));
      held.clear();
      await Promise.all(closing);
    },
  };
}
