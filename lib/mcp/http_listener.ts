// The socket the HTTP face listens on and its accept loop: connections admitted into a bounded
// table, accept failures retried, a lost socket opened again, each connection served by Deno's HTTP.

import type { Clock } from "../core/clock.ts";
import {
  type Connection,
  type ConnectionEvent,
  type ConnectionLimits,
  Connections,
} from "./http_connections.ts";
import { ACCEPT_BACKOFF_MAX_MS, ACCEPT_BACKOFF_MS } from "./http_limits.ts";
import { TlsConnections } from "./http_tls.ts";

/** Deno.serveHttp's request: present in Deno 2.9 though gone from its type declarations. */
interface RequestEvent {
  readonly request: Request;
  respondWith(response: Response): Promise<void>;
}

/** Deno.serveHttp's connection: the requests of one accepted connection, HTTP/1.1 or h2. */
interface HttpConn {
  nextRequest(): Promise<RequestEvent | null>;
  close(): void;
}

type ServeHttp = (conn: Deno.Conn) => HttpConn;

/**
 * Deno.serveHttp, the per-connection HTTP server of Deno's older API. Deno.serve owns its accept
 * loop: it sets no deadline on a half-sent request, and when accept fails for want of descriptors
 * (EMFILE) its `finished` rejects and stays so, which ended phone-eye. Accepting here and handing
 * each connection to serveHttp keeps both decisions in this file.
 */
function serveHttpOf(): ServeHttp {
  const serveHttp = (Deno as unknown as { serveHttp?: ServeHttp }).serveHttp;
  if (serveHttp === undefined) {
    throw new Error("this Deno has no Deno.serveHttp, which phone-eye's HTTP listener needs");
  }
  return serveHttp.bind(Deno);
}

/** How often, at most, the listener writes its summary line of refused and closed connections. */
export const NOTICE_INTERVAL_MS = 10_000;

export interface ListenerDeps {
  /** The port to listen on at start: 0 lets the system pick one (and a socket opened again keeps it). */
  port: number;
  /** Opens the TCP socket (Deno.listen) on `port`. */
  listen: (port: number) => Deno.Listener;
  /** Serves HTTPS with this certificate and key (PEM): the handshake has a deadline of its own. */
  tls?: { cert: string; key: string } | undefined;
  /** Answers one request from `client` (the remote address). */
  serve: (request: Request, client: string) => Promise<Response>;
  clock: Clock;
  /** Failures and the summary of closed or refused connections (stderr in production). */
  logError: (message: string) => void;
  /** The table's limits (http_limits.ts's by default). */
  limits?: Partial<ConnectionLimits>;
  /** The first and longest pause after a failed accept (ACCEPT_BACKOFF_MS, …_MAX_MS). */
  backoff?: { firstMs: number; maxMs: number };
  /** NOTICE_INTERVAL_MS by default. */
  noticeIntervalMs?: number;
}

const EVENT_WORDS: Record<ConnectionEvent, string | undefined> = {
  "handshake-deadline": "connections closed without a TLS handshake in time",
  "header-deadline": "connections closed without a whole request header in time",
  "idle-deadline": undefined, // a connection its client holds open after its answer: routine
  "made-room": "connections closed to make room (waiting, no request of theirs let in)",
  "refused": "connections refused (every connection in use)",
};

/**
 * Counts what happened to connections and says it in one line per interval, so a flood costs the
 * operator a line, not a line per connection:
 *
 *   http: connections closed without a whole request header in time: 169; 0 connections held, at most 199
 */
class Notices {
  readonly #counts = new Map<string, number>();
  readonly #deps: ListenerDeps;
  readonly #state: () => string;
  #cancel: (() => void) | undefined;

  constructor(deps: ListenerDeps, state: () => string) {
    this.#deps = deps;
    this.#state = state;
  }

  add(what: string | undefined): void {
    if (what === undefined) return;
    this.#counts.set(what, (this.#counts.get(what) ?? 0) + 1);
    this.#cancel ??= this.#deps.clock.setTimer(
      this.#deps.noticeIntervalMs ?? NOTICE_INTERVAL_MS,
      () => this.flush(),
    );
  }

  flush(): void {
    this.#cancel?.();
    this.#cancel = undefined;
    if (this.#counts.size === 0) return;
    const said = [...this.#counts].map(([what, n]) => `${what}: ${n}`);
    this.#counts.clear();
    this.#deps.logError(`http: ${said.join("; ")}; ${this.#state()}`);
  }
}

/**
 * `response` with Connection: close, so each connection carries one request (http_connections.ts
 * says why): its headers as they were, its body the same stream.
 */
function oneRequestOnly(response: Response): Response {
  const headers = new Headers(response.headers);
  headers.set("connection", "close");
  return new Response(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}

/** Accept failed for want of descriptors or memory: closing connections frees what it needs. */
function outOfResources(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === "EMFILE" || code === "ENFILE" || code === "ENOBUFS" || code === "ENOMEM";
}

/** The socket itself is gone (closed under the loop): it has to be opened again. */
function socketGone(error: unknown): boolean {
  return error instanceof Deno.errors.BadResource || error instanceof Deno.errors.Interrupted ||
    error instanceof Deno.errors.NotConnected;
}

/**
 * Listens and serves until closed. Nothing that happens to one connection or one accept ends it:
 * an accept that fails (out of descriptors, say) is retried after a pause that doubles up to a
 * bound, closing waiting connections when descriptors ran out; a socket lost under it is opened
 * again on the same port.
 */
export class HttpListener {
  readonly #deps: ListenerDeps;
  readonly #serveHttp = serveHttpOf();
  /** The TLS side of each connection, when serving HTTPS. */
  readonly #tls: TlsConnections | undefined;
  readonly #table: Connections;
  readonly #notices: Notices;
  readonly #closing = new AbortController();
  readonly #loop: Promise<void>;
  /** Each connection's loop and each request's answer still running: close() waits for them. */
  readonly #tasks = new Set<Promise<void>>();
  #socket: Deno.Listener;
  readonly #port: number;

  /** Opens the socket now (throws when it cannot) and starts accepting. */
  constructor(deps: ListenerDeps) {
    this.#deps = deps;
    this.#tls = deps.tls && new TlsConnections({
      ...deps.tls,
      serve: deps.serve,
      logError: deps.logError,
    });
    this.#socket = deps.listen(deps.port);
    this.#port = this.addr.port;
    this.#notices = new Notices(
      deps,
      () => `${this.#table.size} connections held, at most ${this.#table.cap}`,
    );
    this.#table = new Connections({
      clock: deps.clock,
      count: (event) => this.#notices.add(EVENT_WORDS[event]),
      ...(deps.limits === undefined ? {} : { limits: deps.limits }),
    });
    this.#loop = this.#acceptLoop();
  }

  /** The address the socket is bound to (the port the system picked for 0). */
  get addr(): Deno.NetAddr {
    return this.#socket.addr as Deno.NetAddr;
  }

  /** Connections held now, and the most it holds. */
  get connections(): { size: number; cap: number } {
    return { size: this.#table.size, cap: this.#table.cap };
  }

  /**
   * Stops accepting, closes every connection (their calls are cancelled, since their clients are
   * gone) and resolves once the loops and the answers under way have ended.
   */
  async close(): Promise<void> {
    if (!this.#closing.signal.aborted) {
      this.#closing.abort();
      try {
        this.#socket.close();
      } catch {
        // Already closed.
      }
      this.#table.closeAll();
    }
    await this.#loop;
    while (this.#tasks.size > 0) await Promise.all([...this.#tasks]);
    this.#notices.flush();
  }

  /** Runs `task` to its end, counted until then. */
  #track(task: Promise<void>): void {
    this.#tasks.add(task);
    void task.finally(() => this.#tasks.delete(task));
  }

  async #acceptLoop(): Promise<void> {
    const { firstMs, maxMs } = this.#deps.backoff ??
      { firstMs: ACCEPT_BACKOFF_MS, maxMs: ACCEPT_BACKOFF_MAX_MS };
    let pause = firstMs;
    while (!this.#closing.signal.aborted) {
      let conn: Deno.Conn;
      try {
        conn = await this.#socket.accept();
        pause = firstMs;
      } catch (error) {
        if (this.#closing.signal.aborted) return;
        this.#acceptFailed(error);
        try {
          await this.#deps.clock.sleep(pause, this.#closing.signal);
        } catch {
          return; // closed while pausing
        }
        pause = Math.min(pause * 2, maxMs);
        continue;
      }
      this.#admit(conn);
    }
  }

  #acceptFailed(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    if (outOfResources(error)) {
      this.#table.outOfDescriptors();
      this.#notices.add(`accept failed (${message}), waiting strangers closed`);
      return;
    }
    if (!socketGone(error)) {
      this.#notices.add(`accept failed (${message})`);
      return;
    }
    try {
      this.#socket = this.#deps.listen(this.#port);
      this.#deps.logError(
        `http: the socket failed (${message}); listening again on port ${this.#port}`,
      );
    } catch (again) {
      this.#notices.add(
        `accept failed: the socket failed (${message}) and could not be opened again (${
          again instanceof Error ? again.message : String(again)
        })`,
      );
    }
  }

  #admit(conn: Deno.Conn): void {
    const client = (conn.remoteAddr as Deno.NetAddr).hostname;
    const connection = this.#table.admit(() => conn.close(), { tls: this.#tls !== undefined });
    if (connection === undefined) {
      try {
        conn.close();
      } catch {
        // Already closed.
      }
      return;
    }
    this.#track(this.#serveConnection(conn, connection, client));
  }

  async #serveConnection(conn: Deno.Conn, connection: Connection, client: string): Promise<void> {
    try {
      if (this.#tls !== undefined) return await this.#tls.serve(conn, connection, client);
      const http = this.#serveHttp(conn);
      connection.closeWith(() => http.close());
      for (;;) {
        const event = await http.nextRequest();
        if (event === null) break;
        connection.requestStarted();
        this.#track(this.#respond(event, client, connection));
      }
    } catch {
      // The handshake failed, the client broke the connection off, or a deadline closed it.
    } finally {
      connection.close();
    }
  }

  async #respond(event: RequestEvent, client: string, connection: Connection): Promise<void> {
    try {
      let response: Response;
      try {
        response = await this.#deps.serve(event.request, client);
      } catch (error) {
        this.#deps.logError(`http: ${error instanceof Error ? error.message : String(error)}`);
        response = new Response("Internal error", { status: 500 });
      }
      await event.respondWith(oneRequestOnly(response));
    } catch {
      // The client went away before its answer ended: the body was cancelled, so was the call.
    } finally {
      connection.requestEnded();
    }
  }
}
