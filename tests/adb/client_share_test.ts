// Fair sharing of one phone between a server's clients (lib/adb/queue.ts, ClientShares): the server
// names each call's client (an HTTP session, a request), and past its share a call is refused at once.

import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { z } from "zod";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { createDevice } from "../../lib/adb/device.ts";
import { createLink } from "../../lib/adb/link.ts";
import { createPhones, type Phones } from "../../lib/adb/phones.ts";
import { CALLS_MAX, CLIENT_CALLS_MAX } from "../../lib/adb/queue.ts";
import { EXIT_MARKER } from "../../lib/adb/exit_marker.ts";
import { createHttpHandler, type HttpHandler } from "../../lib/mcp/http_serve.ts";
import { createServer } from "../../lib/mcp/server.ts";
import { textResult } from "../../lib/tools/call.ts";
import { defineServerTool, LOOKS_ONLY, type Tool } from "../../lib/tools/tool.ts";
import { exited } from "../helpers/fake_adb.ts";
import { serverDeps, textOf } from "../helpers/in_process.ts";
import { heldRunner } from "./held_runner.ts";

/** One phone-eye's shared resources over a held runner: one listed phone, R58N. */
function lab() {
  const adb = heldRunner();
  const phones: Phones = createPhones({
    set: { kind: "listed", serials: ["R58N"], from: "PHONE_EYE_DEVICES" },
    link: createLink({ run: adb.run, timeoutMs: 60_000 }),
    makeDevice: (phone) => createDevice({ run: adb.run, timeoutMs: 60_000, ...phone }),
  });
  return { adb, deps: serverDeps(phones, () => {}) };
}

type Deps = ReturnType<typeof lab>["deps"];

/** A client connected in process to its own MCP server over `deps`, as on stdio. */
async function inProcess(deps: Deps, tools?: readonly Tool[]): Promise<Client & AsyncDisposable> {
  const server = createServer(deps, tools === undefined ? {} : { tools });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const sdk = new Client({ name: "stdio", version: "0" });
  await sdk.connect(clientSide);
  return Object.assign(sdk, {
    [Symbol.asyncDispose]: async () => {
      await sdk.close();
      await server.close();
    },
  });
}

/** An HTTP handler over `deps`, in process, that lets one address hold many requests at once. */
function httpOver(deps: Deps, tools?: readonly Tool[]): HttpHandler {
  return createHttpHandler({
    settings: {
      listen: { hostname: "127.0.0.1", port: 8080 },
      token: undefined,
      origins: [],
      tls: undefined,
    },
    server: (session) => createServer(deps, { ...(tools === undefined ? {} : { tools }), session }),
    logError: () => {},
    maxInFlightPerClient: 1000,
  });
}

/** The SDK's client over `handler`: a 2025 session, or the 2026 revision's requests alone. */
async function overHttp(
  handler: HttpHandler,
  protocol: "2025-11-25" | "2026-07-28" = "2025-11-25",
): Promise<Client & AsyncDisposable> {
  const sdk = new Client(
    { name: "client-share-test", version: "0" },
    protocol === "2026-07-28" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  await sdk.connect(
    new StreamableHTTPClientTransport(new URL("http://127.0.0.1:8080/mcp"), {
      fetch: (input, init) => handler.fetch(new Request(input, init), "127.0.0.1"),
    }),
  );
  return Object.assign(sdk, { [Symbol.asyncDispose]: () => sdk.close() });
}

const home = (sdk: Client) =>
  sdk.callTool({ name: "phone_key", arguments: { key: "home", settle: false } }).then((r) => ({
    isError: r.isError === true,
    text: textOf(r),
  }));

/** Answers every input held now and later, until `done` settles. */
async function answerInputs(adb: ReturnType<typeof heldRunner>, done: Promise<unknown>) {
  let finished = false;
  done.finally(() => finished = true);
  while (!finished) {
    const next = await Promise.race([adb.next(/ input /), done.then(() => undefined)]);
    next?.answer(exited(0, `${EXIT_MARKER}0\n`));
  }
}

Deno.test({
  name:
    "one client's burst takes its share of a phone, the rest refused at once, and another client's call is served",
  permissions: "none",
  async fn() {
    const { adb, deps } = lab();
    const handler = httpOver(deps);
    await using greedy = await overHttp(handler);
    await using other = await overHttp(handler);
    const burst = Array.from({ length: 3 * CLIENT_CALLS_MAX }, () => home(greedy));
    // The first press reaches the phone and is held there; the others of the share wait in its
    // queue, and the calls past the share are answered at once.
    await adb.next(/ input keyevent 3/);
    const refusedAtOnce = burst.slice(CLIENT_CALLS_MAX);
    for (const reply of await Promise.all(refusedAtOnce)) {
      assert.equal(reply.isError, true);
      assert.match(
        reply.text,
        new RegExp(
          `^Cannot press a key: busy: this client already has ${CLIENT_CALLS_MAX} calls for this phone, its share \\(the phone takes ${CALLS_MAX} at once, shared by every client\\); wait for an answer`,
        ),
      );
    }
    // Another client is admitted while the first still holds its share.
    const served = home(other);
    const all = Promise.all([...burst.slice(0, CLIENT_CALLS_MAX), served]);
    await answerInputs(adb, all);
    for (const reply of await all) assert.equal(reply.isError, false, reply.text);
    assert.equal(adb.most, 1, "one press on the phone at a time");
    await handler.close();
  },
});

Deno.test({
  name:
    "the only client (stdio) may use the whole phone: its burst is held by the phone's queue alone",
  permissions: "none",
  async fn() {
    const { adb, deps } = lab();
    await using only = await inProcess(deps);
    const burst = Array.from({ length: 3 * CLIENT_CALLS_MAX }, () => home(only));
    const all = Promise.all(burst);
    await answerInputs(adb, all);
    const refused = (await all).filter((r) => r.isError);
    assert.deepEqual(refused, [], "no call past a client's share was refused");
  },
});

/** A verb that says which client the server took its call for. */
const whoAmI = defineServerTool({
  name: "who_am_i",
  title: "Who am I",
  description: "answers with the call's client",
  inputSchema: z.strictObject({}),
  annotations: LOOKS_ONLY,
  action: "say who called",
  handler: (_deps, _args, call) => Promise.resolve(textResult(call.client ?? "(none)")),
});

Deno.test({
  name:
    "over HTTP each session is its own client, and without a session the client's address is; in process, none",
  permissions: "none",
  async fn() {
    const { deps } = lab();
    const handler = httpOver(deps, [whoAmI]);
    const who = async (client: Client) =>
      textOf(await client.callTool({ name: "who_am_i", arguments: {} }));
    try {
      await using a = await overHttp(handler);
      await using b = await overHttp(handler);
      const first = await who(a);
      assert.notEqual(first, "(none)");
      assert.equal(await who(a), first, "one session, one client across its calls");
      assert.notEqual(await who(b), first, "another session, another client");
      await using stateless = await overHttp(handler, "2026-07-28");
      const [one, two] = [await who(stateless), await who(stateless)];
      assert.notEqual(one, "(none)");
      assert.equal(one, two, "without a session, the client is its address, across requests");
      assert.notEqual(one, first, "and not a session's client");
    } finally {
      await handler.close();
    }
    // In process (as on stdio) the server has one client, which is given no share.
    await using local = await inProcess(deps, [whoAmI]);
    assert.equal(await who(local), "(none)");
  },
});
