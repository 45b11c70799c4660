// The HTTP handler in process: requests built as web-standard Requests, answered by the SDK's
// handler over createServer with a verb that waits for the test, so open requests can be counted.

import assert from "node:assert/strict";
import { FIRST_PAUSE_MS, FREE_MISSES } from "../../lib/mcp/http_guesses.ts";
import { FakeClock } from "../helpers/fake_clock.ts";
import { z } from "zod";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createDevice } from "../../lib/adb/device.ts";
import { realClock } from "../../lib/core/clock.ts";
import { createHttpHandler, type HttpServeDeps } from "../../lib/mcp/http_serve.ts";
import type { HttpSettings } from "../../lib/mcp/http_settings.ts";
import { createServer } from "../../lib/mcp/server.ts";
import { textResult } from "../../lib/tools/call.ts";
import { defineTool, LOOKS_ONLY } from "../../lib/tools/tool.ts";
import { fakeAdb } from "../helpers/fake_adb.ts";
import { onePhone, serverDeps } from "../helpers/in_process.ts";

const URL_MCP = "http://127.0.0.1:8080/mcp";

/** A server whose one verb, phone_wait, answers when the test releases it. */
function waitingServer(
  maxInFlightPerClient: number,
  settings: Partial<HttpSettings> = {},
  more: Partial<HttpServeDeps> = {},
) {
  const waiting: Array<{ release: () => void; signal: AbortSignal }> = [];
  const arrived: Array<() => void> = [];
  const nextArrival = () => new Promise<void>((resolve) => arrived.push(resolve));
  const wait = defineTool({
    name: "phone_wait",
    title: "Wait",
    description: "answers when the test says so",
    inputSchema: z.strictObject({}),
    annotations: LOOKS_ONLY,
    action: "wait",
    handler: (_deps, _args, call) =>
      new Promise((resolve) => {
        waiting.push({ release: () => resolve(textResult("done")), signal: call.signal });
        arrived.shift()?.();
      }),
  });
  const logged: string[] = [];
  let responses = 0;
  const deps = serverDeps(
    onePhone(
      createDevice({ run: fakeAdb([]).run, serial: "127.0.0.1:5555", timeoutMs: 1000 }),
    ),
    (m: string) => logged.push(m),
  );
  const handler = createHttpHandler({
    settings: {
      listen: { hostname: "127.0.0.1", port: 8080 },
      token: undefined,
      origins: [],
      tls: undefined,
      ...settings,
    },
    server: (session) => createServer(deps, { tools: [wait], session }),
    logError: deps.logError,
    afterResponse: () => responses++,
    maxInFlightPerClient,
    ...more,
  });
  return { handler, waiting, nextArrival, logged, responses: () => responses };
}

let id = 0;
/** A 2025-era tools/call, as the stateless legacy leg serves it (no session). */
function call(signal?: AbortSignal, headers: Record<string, string> = {}): Request {
  return new Request(URL_MCP, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: ++id,
      method: "tools/call",
      params: { name: "phone_wait", arguments: {} },
    }),
    ...(signal === undefined ? {} : { signal }),
  });
}

Deno.test({
  name: "one client may have only so many requests open; the next gets 429 until one is answered",
  permissions: "none",
  async fn() {
    const server = waitingServer(2);
    const first = server.nextArrival();
    const a = server.handler.fetch(call(), "10.0.0.7");
    await first;
    const second = server.nextArrival();
    const b = server.handler.fetch(call(), "10.0.0.7");
    await second;
    const over = await server.handler.fetch(call(), "10.0.0.7");
    assert.equal(over.status, 429);
    assert.equal(over.headers.get("retry-after"), "1");
    assert.match((await over.json()).error.message, /already has 2 requests open/);
    // Another client is not held back by this one.
    const other = server.nextArrival();
    const c = server.handler.fetch(call(), "10.0.0.8");
    await other;

    server.waiting[0]!.release();
    const answered = await a;
    assert.equal(answered.status, 200);
    assert.match(await answered.text(), /done/);
    // Its body read to the end, the first request no longer counts: the client may send again.
    const again = server.nextArrival();
    const d = server.handler.fetch(call(), "10.0.0.7");
    await again;
    for (const waiter of server.waiting.slice(1)) waiter.release();
    for (const response of await Promise.all([b, c, d])) {
      assert.equal(response.status, 200);
      await response.text();
    }
    assert.equal(server.responses(), 4, "afterResponse ran once per answered request");
    await server.handler.close();
  },
});

Deno.test({
  name: "a client that goes away cancels its call, and its slot is given back",
  permissions: "none",
  async fn() {
    const server = waitingServer(1);
    const gone = new AbortController();
    const arrived = server.nextArrival();
    const pending = server.handler.fetch(call(gone.signal), "10.0.0.9");
    await arrived;
    const cancelled = new Promise((resolve) =>
      server.waiting[0]!.signal.addEventListener("abort", resolve, { once: true })
    );
    gone.abort();
    await cancelled;
    await pending.then((response) => response.body?.cancel(), () => {});
    const next = server.nextArrival();
    const after = server.handler.fetch(call(), "10.0.0.9");
    await next;
    server.waiting[1]!.release();
    assert.equal((await after).status, 200);
    await (await after).text();
    await server.handler.close();
  },
});

Deno.test({
  name:
    "past the server's cap on open requests a client on another address gets 503 with Retry-After",
  permissions: "none",
  async fn() {
    // Any 127.x.y.z is a client of its own to the per-client cap: the server-wide one still holds.
    const server = waitingServer(16, {}, { budget: { maxOpen: 2 } });
    const calls = [];
    for (const client of ["127.0.0.2", "127.0.0.3"]) {
      const arrived = server.nextArrival();
      calls.push(server.handler.fetch(call(), client));
      await arrived;
    }
    const over = await server.handler.fetch(call(), "127.0.0.4");
    assert.equal(over.status, 503);
    assert.equal(over.headers.get("retry-after"), "1");
    assert.match((await over.json()).error.message, /the most it holds for all clients at once/);
    for (const waiter of server.waiting) waiter.release();
    for (const response of await Promise.all(calls)) await response.text();
    const next = server.nextArrival();
    const after = server.handler.fetch(call(), "127.0.0.4");
    await next;
    server.waiting[2]!.release();
    assert.equal((await after).status, 200);
    await (await after).text();
    await server.handler.close();
  },
});

Deno.test({
  name:
    "each request is logged once its answer ends, refusals included, without the token or argument text",
  permissions: "none",
  async fn() {
    const token = "a-token-of-thirty-two-characters-or-more";
    const lines: string[] = [];
    let now = 1_000;
    const server = waitingServer(16, { token }, {
      accessLog: (line) => lines.push(line),
      wallNow: () => Date.UTC(2026, 11, 2),
      clock: { ...realClock, now: () => now },
      defaultPhone: "emulator-5554",
    });
    const refused = await server.handler.fetch(call(), "10.0.0.9");
    assert.equal(refused.status, 401);
    await refused.text();
    const arrived = server.nextArrival();
    const pending = server.handler.fetch(
      call(undefined, { Authorization: `Bearer ${token}` }),
      "10.0.0.7",
    );
    await arrived;
    now += 42;
    server.waiting[0]!.release();
    await (await pending).text();
    assert.deepEqual(lines, [
      "http 2026-12-02T00:00:00.000Z 10.0.0.9 401 POST - 0ms",
      "http 2026-12-02T00:00:00.000Z 10.0.0.7 200 POST tools/call tool=phone_wait phone=emulator-5554 42ms",
    ]);
    assert.ok(!lines.join("\n").includes(token.slice(0, 8)));
    await server.handler.close();
  },
});

for (const protocol of ["2025-11-25", "2026-07-28"] as const) {
  Deno.test({
    name:
      `a client that cancels more calls than its share is still served (${protocol}): a cancelled call gives its slot back`,
    permissions: "none",
    async fn() {
      const server = waitingServer(2);
      // The SDK's own client, its fetch answered by the handler in process.
      const transport = new StreamableHTTPClientTransport(new URL(URL_MCP), {
        fetch: (input, init) => server.handler.fetch(new Request(input, init), "10.0.0.7"),
      });
      const client = new Client(
        { name: "cancelling", version: "0" },
        protocol === "2026-07-28" ? { versionNegotiation: { mode: { pin: protocol } } } : {},
      );
      await client.connect(transport);
      for (let i = 0; i < 3; i++) {
        const cancel = new AbortController();
        const arrived = server.nextArrival();
        const call = client.callTool({ name: "phone_wait", arguments: {} }, {
          signal: cancel.signal,
        });
        await arrived;
        const cancelled = new Promise((resolve) =>
          server.waiting.at(-1)!.signal.addEventListener("abort", resolve, { once: true })
        );
        cancel.abort();
        await assert.rejects(call);
        await cancelled;
      }
      const arrived = server.nextArrival();
      const fourth = client.callTool({ name: "phone_wait", arguments: {} });
      await arrived;
      server.waiting.at(-1)!.release();
      assert.match(JSON.stringify((await fourth).content), /done/);
      await client.close();
      await server.handler.close();
    },
  });
}

Deno.test({
  name: "an address that keeps sending wrong tokens is answered 429 before its token is compared",
  permissions: "none",
  async fn() {
    const token = "a-token-of-thirty-two-characters-or-more";
    const clock = new FakeClock();
    const server = waitingServer(16, { token }, { clock });
    const wrong = { Authorization: "Bearer not-the-token-of-thirty-two-characters" };
    for (let i = 0; i <= FREE_MISSES; i++) {
      const r = await server.handler.fetch(call(undefined, wrong), "10.0.0.9");
      assert.equal(r.status, 401);
      await r.body?.cancel();
    }
    // Even the right token waits out the pause: a guess cannot be tested meanwhile.
    const right = { Authorization: `Bearer ${token}` };
    const slowed = await server.handler.fetch(call(undefined, right), "10.0.0.9");
    assert.equal(slowed.status, 429);
    assert.equal(slowed.headers.get("Retry-After"), String(FIRST_PAUSE_MS / 1000));
    assert.match(await slowed.text(), /Too many wrong tokens from this address/);
    // Another address is served meanwhile.
    const arrived = server.nextArrival();
    const other = server.handler.fetch(call(undefined, right), "10.0.0.7");
    await arrived;
    server.waiting.shift()!.release();
    assert.equal((await other).status, 200);
    await (await other).body?.cancel();
    await clock.advance(FIRST_PAUSE_MS);
    const back = server.nextArrival();
    const again = server.handler.fetch(call(undefined, right), "10.0.0.9");
    await back;
    server.waiting.shift()!.release();
    assert.equal((await again).status, 200);
    await (await again).body?.cancel();
    await server.handler.close();
  },
});
