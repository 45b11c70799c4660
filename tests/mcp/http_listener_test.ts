// The HTTP listener on real sockets on 127.0.0.1, its deadlines on a fake clock: half-sent
// connections closed without holding the owner back, the connection cap, accept failures retried,
// a lost socket opened again. Raw TCP clients, so a test controls every byte a client sends.

import assert from "node:assert/strict";
import { createDevice } from "../../lib/adb/device.ts";
import { HttpListener, type ListenerDeps } from "../../lib/mcp/http_listener.ts";
import { createHttpHandler } from "../../lib/mcp/http_serve.ts";
import { createServer } from "../../lib/mcp/server.ts";
import { fakeAdb } from "../helpers/fake_adb.ts";
import { FakeClock } from "../helpers/fake_clock.ts";
import { onePhone, serverDeps } from "../helpers/in_process.ts";
import { tempDir } from "../helpers/rig.ts";
import { stablePort } from "../helpers/ports.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const LIMITS = {
  max: 8,
  headroom: 2,
  min: 1,
  handshakeMs: 1_000,
  headerMs: 1_000,
  idleMs: 60_000,
  recoveryMs: 600_000,
};

/** A listener on 127.0.0.1 (a port of its own) with a fake clock; `serve` answers "ok" by default. */
function listening(more: Partial<ListenerDeps> = {}) {
  const clock = new FakeClock();
  const logged: string[] = [];
  const listener = new HttpListener({
    port: 0,
    listen: (port) => Deno.listen({ hostname: "127.0.0.1", port }),
    serve: () => Promise.resolve(new Response("ok")),
    clock,
    logError: (message) => logged.push(message),
    limits: LIMITS,
    backoff: { firstMs: 50, maxMs: 50 },
    ...more,
  });
  return { listener, clock, logged, port: listener.addr.port };
}

/** A raw client: what it writes is all the server gets. */
class RawClient {
  readonly #conn: Deno.Conn;
  #buffered = "";

  private constructor(conn: Deno.Conn) {
    this.#conn = conn;
  }

  static async open(port: number): Promise<RawClient> {
    return new RawClient(await Deno.connect({ hostname: "127.0.0.1", port }));
  }

  async send(text: string): Promise<void> {
    await this.#conn.write(encoder.encode(text));
  }

  /** Half a request: a request line and one header, never the blank line that ends the head. */
  sendHalf(): Promise<void> {
    return this.send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  }

  /** A whole request, and the status of its answer (read whole). */
  async ask(body = "", headers: Record<string, string> = {}, path = "/mcp"): Promise<number> {
    const head = Object.entries({
      Host: "127.0.0.1",
      "Content-Length": String(body.length),
      ...headers,
    })
      .map(([name, value]) => `${name}: ${value}\r\n`).join("");
    await this.send(`POST ${path} HTTP/1.1\r\n${head}\r\n${body}`);
    return await this.#readAnswer();
  }

  /** Resolves once the server has closed the connection (end of stream or a reset). */
  async closedByServer(): Promise<true> {
    const buffer = new Uint8Array(1024);
    for (;;) {
      const n = await this.#conn.read(buffer).catch(() => null);
      if (n === null) return true;
    }
  }

  close(): void {
    try {
      this.#conn.close();
    } catch {
      // Already closed.
    }
  }

  async #readAnswer(): Promise<number> {
    const buffer = new Uint8Array(16 * 1024);
    for (;;) {
      const used = answerLength(this.#buffered);
      if (used !== undefined) {
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(this.#buffered)?.[1]);
        this.#buffered = this.#buffered.slice(used);
        return status;
      }
      const n = await this.#conn.read(buffer);
      if (n === null) throw new Error(`closed before a whole answer: ${this.#buffered}`);
      this.#buffered += decoder.decode(buffer.subarray(0, n));
    }
  }
}

/** How much of `text` one whole answer takes (Content-Length or chunked), or undefined yet. */
function answerLength(text: string): number | undefined {
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return undefined;
  const head = text.slice(0, end);
  if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
    const last = text.indexOf("\r\n0\r\n\r\n", end);
    return last < 0 ? undefined : last + 7;
  }
  const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
  return text.length >= end + 4 + length ? end + 4 + length : undefined;
}

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "t", version: "0" },
  },
});

Deno.test("half-sent connections from the owner's address are closed at the header deadline and do not hold the owner back", async () => {
  const deps = serverDeps(
    onePhone(createDevice({ run: fakeAdb([]).run, serial: "s", timeoutMs: 1000 })),
    () => {},
  );
  // One request open at once per client: a half-sent connection that counted would take it.
  const handler = createHttpHandler({
    settings: {
      listen: { hostname: "127.0.0.1", port: 0 },
      token: undefined,
      origins: [],
      tls: undefined,
    },
    server: (session) => createServer(deps, { session }),
    logError: () => {},
    maxInFlightPerClient: 1,
  });
  const { listener, clock, port } = listening({ serve: (r, c) => handler.fetch(r, c) });
  const halves = await Promise.all(Array.from({ length: 5 }, () => RawClient.open(port)));
  await Promise.all(halves.map((half) => half.sendHalf()));
  const headers = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
  };
  // Each connection carries one request: the owner opens one per request, as its HTTP client does.
  const ask = async () => {
    const owner = await RawClient.open(port);
    try {
      return await owner.ask(INITIALIZE, headers);
    } finally {
      owner.close();
    }
  };
  assert.equal(await ask(), 200);
  assert.equal(await ask(), 200);
  await clock.advance(LIMITS.headerMs);
  await Promise.all(halves.map((half) => half.closedByServer()));
  assert.equal(await ask(), 200, "the owner is still served");
  for (const half of halves) half.close();
  await listener.close();
  await handler.close();
});

/** A serve function whose requests to /hold are answered when the test releases them. */
function holding() {
  const held: Array<() => void> = [];
  const arrived: Array<() => void> = [];
  return {
    serve: (request: Request) =>
      new URL(request.url).pathname !== "/hold"
        ? Promise.resolve(new Response("ok"))
        : new Promise<Response>((resolve) => {
          held.push(() => resolve(new Response("ok")));
          arrived.shift()?.();
        }),
    /** Resolves once the next /hold request is being served. */
    nextArrival: () => new Promise<void>((resolve) => arrived.push(resolve)),
    releaseAll: () => {
      for (const release of held.splice(0)) release();
    },
  };
}

Deno.test("past the connection cap new connections are refused while the clients being served are answered", async () => {
  const hold = holding();
  const { listener, logged, clock, port } = listening({
    serve: hold.serve,
    limits: { ...LIMITS, max: 3 },
  });
  const clients = await Promise.all([1, 2, 3].map(() => RawClient.open(port)));
  const answers = [];
  for (const client of clients) {
    const arrived = hold.nextArrival();
    answers.push(client.ask("", {}, "/hold"));
    await arrived;
  }
  const late = await RawClient.open(port);
  await late.closedByServer();
  hold.releaseAll();
  assert.deepEqual(await Promise.all(answers), [200, 200, 200], "every client served is answered");
  await clock.advance(10_000); // the summary line's interval
  assert.ok(
    logged.some((line) => /connections refused \(every connection in use\): 1;/.test(line)),
    logged.join("\n"),
  );
  for (const client of [...clients, late]) client.close();
  await listener.close();
});

Deno.test("at the connection cap a half-sent connection gives way to a newcomer; the client being served stays", async () => {
  const hold = holding();
  const { listener, port } = listening({ serve: hold.serve, limits: { ...LIMITS, max: 2 } });
  const owner = await RawClient.open(port);
  const arrived = hold.nextArrival();
  const answer = owner.ask("", {}, "/hold");
  await arrived;
  const half = await RawClient.open(port);
  await half.sendHalf();
  const newcomer = await RawClient.open(port);
  await half.closedByServer();
  assert.equal(await newcomer.ask(), 200);
  hold.releaseAll();
  assert.equal(await answer, 200);
  for (const client of [owner, half, newcomer]) client.close();
  await listener.close();
});

/** An error as Deno raises it when accept finds no free descriptor. */
function outOfDescriptors(): Error {
  return Object.assign(new Error("Too many open files (os error 24)"), { code: "EMFILE" });
}

Deno.test("accept failing for want of descriptors is retried after a pause, said once per interval, and serving goes on", async () => {
  let failures = 3;
  const failed: Array<() => void> = [];
  const nextFailure = () => new Promise<void>((resolve) => failed.push(resolve));
  const { listener, clock, logged, port } = listening({
    listen: (port) => {
      const socket = Deno.listen({ hostname: "127.0.0.1", port });
      const accept = socket.accept.bind(socket);
      return Object.assign(socket, {
        accept: () => {
          if (failures-- > 0) {
            queueMicrotask(() => failed.shift()?.());
            return Promise.reject(outOfDescriptors());
          }
          return accept();
        },
      });
    },
  });
  for (let i = 0; i < 2; i++) {
    const failure = nextFailure();
    await clock.advance(50);
    await failure;
  }
  await clock.advance(50);
  const client = await RawClient.open(port);
  assert.equal(await client.ask(), 200);
  await clock.advance(10_000);
  assert.equal(logged.length, 1, logged.join("\n"));
  assert.match(
    logged[0]!,
    /^http: accept failed \(Too many open files \(os error 24\)\), waiting strangers closed: 3;/,
  );
  client.close();
  await listener.close();
});

Deno.test("a socket lost under the accept loop is opened again on the same port", async () => {
  const sockets: Deno.Listener[] = [];
  let listens = 0;
  // A port outside the ephemeral range: from port 0, an outgoing connection elsewhere in the suite
  // could take the port as its source while it is closed, and no reopening could ever succeed.
  const { listener, logged, clock, port } = listening({
    port: stablePort(),
    listen: (port) => {
      listens++;
      const socket = Deno.listen({ hostname: "127.0.0.1", port });
      sockets.push(socket);
      return socket;
    },
  });
  sockets[0]!.close();
  // The loop pauses once after the failure, then accepts on the socket opened again. Counted, so a
  // reopening that keeps failing fails the test instead of advancing the clock for ever.
  while (sockets.length < 2) {
    assert.ok(listens < 20, `the port was not reopened in ${listens} tries:\n${logged.join("\n")}`);
    await clock.advance(50);
  }
  assert.match(
    logged.join("\n"),
    new RegExp(`the socket failed .*; listening again on port ${port}`),
  );
  const client = await RawClient.open(port);
  assert.equal(await client.ask(), 200);
  client.close();
  await listener.close();
});

Deno.test("closing the listener closes every connection it holds and ends the loop", async () => {
  const hold = holding();
  const { listener, port } = listening({ serve: hold.serve });
  const served = await RawClient.open(port);
  const arrived = hold.nextArrival();
  const answer = served.ask("", {}, "/hold").catch(() => "closed");
  await arrived;
  const half = await RawClient.open(port);
  await half.sendHalf();
  const closing = listener.close();
  await half.closedByServer();
  assert.equal(await answer, "closed");
  hold.releaseAll();
  await closing;
  await assert.rejects(RawClient.open(port));
  served.close();
  half.close();
});

/** A CA and a certificate for 127.0.0.1 signed by it, made by openssl; undefined without openssl. */
async function testCertificates(
  dir: string,
): Promise<{ ca: string; cert: string; key: string } | undefined> {
  const run = async (args: string[]) => {
    const out = await new Deno.Command("openssl", { args, cwd: dir, stdin: "null" }).output();
    assert.equal(out.code, 0, decoder.decode(out.stderr));
  };
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  try {
    await run([
      "req",
      "-x509",
      ...ec,
      "-days",
      "1",
      "-subj",
      "/CN=t",
      "-keyout",
      "ca.key",
      "-out",
      "ca.pem",
    ]);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  await Deno.writeTextFile(
    `${dir}/leaf.ext`,
    "subjectAltName=IP:127.0.0.1\nbasicConstraints=critical,CA:FALSE\nextendedKeyUsage=serverAuth\n",
  );
  await run(["req", ...ec, "-subj", "/CN=127.0.0.1", "-keyout", "leaf.key", "-out", "leaf.csr"]);
  await run([
    "x509",
    "-req",
    "-in",
    "leaf.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-days",
    "1",
    "-extfile",
    "leaf.ext",
    "-out",
    "leaf.pem",
  ]);
  const read = (name: string) => Deno.readTextFile(`${dir}/${name}`);
  return { ca: await read("ca.pem"), cert: await read("leaf.pem"), key: await read("leaf.key") };
}

Deno.test("over TLS a connection that never handshakes is closed at the handshake deadline, and a client that does is served", async (t) => {
  await using dir = await tempDir("phone_eye_listener_tls_");
  const pem = await testCertificates(dir.path);
  if (pem === undefined) {
    return void await t.step({ name: "openssl not installed", ignore: true, fn() {} });
  }
  const { listener, clock, port } = listening({ tls: { cert: pem.cert, key: pem.key } });
  const silent = await RawClient.open(port);
  const halfHello = await RawClient.open(port);
  await halfHello.send("\x16\x03\x01\x00\xc8\x01"); // a ClientHello's first bytes, then nothing
  using client = Deno.createHttpClient({ caCerts: [pem.ca] });
  const answer = await fetch(`https://127.0.0.1:${port}/mcp`, {
    client,
    method: "POST",
    body: "{}",
  });
  assert.equal(answer.status, 200);
  assert.equal(await answer.text(), "ok");
  // The two that never finished a handshake, closed at its deadline: their sockets are freed.
  await clock.advance(LIMITS.handshakeMs);
  await Promise.all([silent.closedByServer(), halfHello.closedByServer()]);
  silent.close();
  halfHello.close();
  await listener.close();
});
