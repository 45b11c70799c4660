// The HTTPS connections of the HTTP face: each accepted TCP connection's TLS and HTTP/1.1 run by
// node:tls and node:http in this process, so closing a connection always frees its socket.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createSecureContext, type SecureContext, TLSSocket } from "node:tls";
import { Duplex, Readable } from "node:stream";
import type { Connection } from "./http_connections.ts";

export interface TlsServeDeps {
  /** The certificate chain and its key, PEM. */
  cert: string;
  key: string;
  /** Answers one request from `client` (the remote address). */
  serve: (request: Request, client: string) => Promise<Response>;
  logError: (message: string) => void;
}

interface Held {
  connection: Connection;
  client: string;
  /** The answers under way on this connection. */
  answers: Set<Promise<void>>;
}

/** The request `req` as the handler reads it; undefined when its head cannot make one. */
function webRequest(req: IncomingMessage, signal: AbortSignal): Request | undefined {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  }
  // Without a Host header the URL names no host, and the gate refuses it (421).
  const host = req.headers.host ?? "missing-host.invalid";
  const method = req.method ?? "GET";
  try {
    return new Request(new URL(req.url ?? "/", `https://${host}`), {
      method,
      headers,
      signal,
      ...(method === "GET" || method === "HEAD"
        ? {}
        : { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: "half" }),
    } as RequestInit);
  } catch {
    return undefined;
  }
}

/** Writes `response` to `res`, waiting on the socket as it drains; stops when the client leaves. */
async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  for (const [name, value] of response.headers) res.setHeader(name, value);
  // One request per connection, as on plain HTTP (http_connections.ts says why); node:http in
  // Deno 2.9 would end a connection handed to it after each answer anyway, whatever it said.
  res.setHeader("connection", "close");
  res.writeHead(response.status);
  if (response.body === null) return void res.end();
  const reader = response.body.getReader();
  const gone = () => void reader.cancel().catch(() => {});
  res.once("close", gone);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          res.once("drain", resolve);
          res.once("close", resolve);
        });
      }
      if (res.destroyed) return;
    }
    res.end();
  } finally {
    res.off("close", gone);
  }
}

/**
 * TLS for the connections the listener accepts on a plain TCP socket. Deno.listenTls runs each
 * handshake in a task of its own that keeps the socket open until the client sends a byte or
 * closes, whatever the server closes: a client that connects and sends nothing holds a descriptor
 * for as long as it likes (measured on Deno 2.9: 50 such sockets still open after 120 s). Here the
 * TCP connection stays the listener's, and closing it ends the handshake with it.
 */
export class TlsConnections {
  readonly #deps: TlsServeDeps;
  readonly #context: SecureContext;
  readonly #http: Server;
  readonly #held = new WeakMap<object, Held>();

  constructor(deps: TlsServeDeps) {
    this.#deps = deps;
    this.#context = createSecureContext({ cert: deps.cert, key: deps.key });
    // node:http's own timeouts are off: the connection table keeps the deadlines.
    this.#http = createServer({ requestTimeout: 0, headersTimeout: 0, keepAliveTimeout: 0 });
    this.#http.on("request", (req, res) => this.#request(req, res));
    this.#http.on("clientError", (_error, socket) => socket.destroy());
  }

  /** Serves `conn` until it closes (either side), and resolves once its answers have ended. */
  async serve(conn: Deno.Conn, connection: Connection, client: string): Promise<void> {
    const socket = new TLSSocket(
      Duplex.fromWeb({ readable: conn.readable, writable: conn.writable }),
      { isServer: true, secureContext: this.#context, ALPNProtocols: ["http/1.1"] } as never,
    );
    const held: Held = { connection, client, answers: new Set() };
    this.#held.set(socket, held);
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    connection.closeWith(() => {
      socket.destroy();
      try {
        conn.close();
      } catch {
        // Closed with the socket already.
      }
    });
    socket.once("secure", () => connection.handshaken());
    socket.on("error", () => connection.close());
    this.#http.emit("connection", socket);
    await closed;
    connection.close();
    while (held.answers.size > 0) await Promise.all([...held.answers]);
  }

  #request(req: IncomingMessage, res: ServerResponse): void {
    const held = this.#held.get(req.socket);
    if (held === undefined) return void res.destroy();
    held.connection.requestStarted();
    const answer = this.#answer(req, res, held);
    held.answers.add(answer);
    void answer.finally(() => held.answers.delete(answer));
  }

  async #answer(req: IncomingMessage, res: ServerResponse, held: Held): Promise<void> {
    const left = new AbortController();
    // The client went away before its answer was written whole: its call is cancelled.
    res.once("close", () => {
      if (!res.writableFinished) left.abort();
    });
    try {
      const request = webRequest(req, left.signal);
      let response: Response;
      try {
        response = request === undefined
          ? new Response("Bad request", { status: 400 })
          : await this.#deps.serve(request, held.client);
      } catch (error) {
        this.#deps.logError(`http: ${error instanceof Error ? error.message : String(error)}`);
        response = new Response("Internal error", { status: 500 });
      }
      await writeResponse(response, res);
    } catch {
      res.destroy(); // the client broke off; nothing more to write
    } finally {
      held.connection.requestEnded();
    }
  }
}
