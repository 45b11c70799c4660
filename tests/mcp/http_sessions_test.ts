// What outlives a request over HTTP: the SDK's real client reaches the HTTP handler in process
// (its fetch is the handler's), looks without vision, and each 2025 session hears the note once.

import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { z } from "zod";
import { createDevice } from "../../lib/adb/device.ts";
import { createHttpHandler, type HttpHandler } from "../../lib/mcp/http_serve.ts";
import { createServer } from "../../lib/mcp/server.ts";
import { TOOLS } from "../../lib/tools/index.ts";
import { defineTool, LOOKS_ONLY, type Tool } from "../../lib/tools/tool.ts";
import { textResult } from "../../lib/tools/call.ts";
import { createVision } from "../../lib/vision/vision.ts";
import { fakeAdb } from "../helpers/fake_adb.ts";
import { screenRules } from "../helpers/fake_screen.ts";
import { onePhone, serverDeps, textOf } from "../helpers/in_process.ts";

const URL_MCP = "http://127.0.0.1:8080/mcp";
const NOTE = createVision({ route: "none" }).unavailable!;

/** An HTTP handler over a phone made of data, vision unconfigured, serving `tools`. */
function handlerFor(options: { tools?: readonly Tool[]; maxSessions?: number } = {}) {
  const logged: string[] = [];
  const deps = serverDeps(
    onePhone(
      createDevice({ run: fakeAdb(screenRules()).run, serial: "127.0.0.1:5555", timeoutMs: 1000 }),
    ),
    (m: string) => logged.push(m),
  );
  const handler = createHttpHandler({
    settings: {
      listen: { hostname: "127.0.0.1", port: 8080 },
      token: undefined,
      origins: [],
      tls: undefined,
    },
    server: (session) => createServer(deps, { tools: options.tools ?? TOOLS, session }),
    logError: deps.logError,
    ...(options.maxSessions === undefined ? {} : { maxSessions: options.maxSessions }),
  });
  return { handler, logged };
}

/** The SDK's client whose requests go straight to `handler`, as from 127.0.0.1. */
async function connect(
  handler: HttpHandler,
  protocol: "2025-11-25" | "2026-07-28" = "2025-11-25",
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(URL_MCP), {
    fetch: (input, init) => handler.fetch(new Request(input, init), "127.0.0.1"),
  });
  const client = new Client(
    { name: "phone-eye-http-sessions-test", version: "0" },
    protocol === "2026-07-28" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  await client.connect(transport);
  assert.equal(client.getNegotiatedProtocolVersion(), protocol);
  return { client, transport };
}

/** The [vision] line of a look. */
async function visionLine(client: Client): Promise<string | undefined> {
  const look = await client.callTool({ name: "phone_look", arguments: {} });
  const text = textOf(look);
  assert.match(text, /\[ui-tree\]\n\S/, "the tree still comes back");
  return /\[vision\]\n(.*)\n/.exec(text)?.[1];
}

const FULL = `Vision unavailable: ${NOTE.note}`;
const BRIEF = `Vision unavailable: ${NOTE.brief}`;

Deno.test({
  name:
    "over HTTP a session's first look carries the vision note in full and the next one line; another session hears it in full",
  permissions: "none",
  async fn() {
    const { handler, logged } = handlerFor();
    const first = await connect(handler);
    assert.ok(first.transport.sessionId, "the SDK's transport was given an Mcp-Session-Id");
    assert.equal(await visionLine(first.client), FULL);
    assert.equal(await visionLine(first.client), BRIEF);
    const second = await connect(handler);
    assert.notEqual(second.transport.sessionId, first.transport.sessionId);
    assert.equal(await visionLine(second.client), FULL);
    assert.equal(await visionLine(second.client), BRIEF);
    assert.equal(await visionLine(first.client), BRIEF, "the first session still remembers");
    await first.client.close();
    await second.client.close();
    await handler.close();
    assert.deepEqual(logged, []);
  },
});

Deno.test({
  name: "a 2026-07-28 client has no session, so every one of its looks carries the note in full",
  permissions: "none",
  async fn() {
    const { handler } = handlerFor();
    const { client, transport } = await connect(handler, "2026-07-28");
    assert.equal(transport.sessionId, undefined);
    assert.equal(await visionLine(client), FULL);
    assert.equal(await visionLine(client), FULL);
    await client.close();
    await handler.close();
  },
});

Deno.test({
  name:
    "past the cap the least recently used session is dropped; its client is still served and hears the note in full",
  permissions: "none",
  async fn() {
    const { handler } = handlerFor({ maxSessions: 2 });
    const a = await connect(handler);
    const b = await connect(handler);
    assert.equal(await visionLine(a.client), FULL);
    assert.equal(await visionLine(b.client), FULL);
    // a is used after b, so b is the least recently used when c starts.
    assert.equal(await visionLine(a.client), BRIEF);
    const c = await connect(handler);
    assert.equal(await visionLine(c.client), FULL);
    assert.equal(await visionLine(a.client), BRIEF, "a kept its session");
    // b's id is no longer held: its request is served without a session, and says it all again.
    assert.equal(await visionLine(b.client), FULL);
    assert.equal(await visionLine(b.client), FULL);
    for (const { client } of [a, b, c]) await client.close();
    await handler.close();
  },
});

Deno.test({
  name: "a session the client ends with DELETE is dropped: its id then names no session",
  permissions: "none",
  async fn() {
    const { handler } = handlerFor({ maxSessions: 1 });
    const a = await connect(handler);
    assert.equal(await visionLine(a.client), FULL);
    const id = a.transport.sessionId!;
    await a.transport.terminateSession();
    // b takes the one place without dropping anything, and a's old id is served statelessly.
    const b = await connect(handler);
    assert.equal(await visionLine(b.client), FULL);
    assert.equal(await visionLine(b.client), BRIEF);
    const stale = await handler.fetch(
      new Request(URL_MCP, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
          "Mcp-Session-Id": id,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      }),
      "127.0.0.1",
    );
    assert.equal(stale.status, 200);
    assert.equal(stale.headers.get("mcp-session-id"), null);
    assert.match(await stale.text(), /phone_look/);
    await a.client.close();
    await b.client.close();
    await handler.close();
  },
});

Deno.test({
  name: "a session's client that goes away cancels its call",
  permissions: "none",
  async fn() {
    const started = Promise.withResolvers<AbortSignal>();
    const wait = defineTool({
      name: "phone_wait",
      title: "Wait",
      description: "answers when its call is cancelled",
      inputSchema: z.strictObject({}),
      annotations: LOOKS_ONLY,
      action: "wait",
      handler: (_deps, _args, call) =>
        new Promise((resolve) => {
          started.resolve(call.signal);
          call.signal.addEventListener("abort", () => resolve(textResult("cancelled")));
        }),
    });
    const { handler } = handlerFor({ tools: [wait] });
    const { client, transport } = await connect(handler);
    const headers = {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "Mcp-Session-Id": transport.sessionId!,
      "Mcp-Protocol-Version": "2025-11-25",
    };
    const gone = new AbortController();
    const pending = handler.fetch(
      new Request(URL_MCP, {
        method: "POST",
        headers,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 7,
          method: "tools/call",
          params: { name: "phone_wait", arguments: {} },
        }),
        signal: gone.signal,
      }),
      "127.0.0.1",
    );
    const signal = await started.promise;
    assert.equal(signal.aborted, false);
    const cancelled = new Promise((resolve) =>
      signal.addEventListener("abort", resolve, { once: true })
    );
    gone.abort();
    await cancelled;
    await pending.then((response) => response.body?.cancel(), () => {});
    await client.close();
    await handler.close();
  },
});
