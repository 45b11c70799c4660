// Tests for the MCP vision route: the SDK client against a real SDK server on 127.0.0.1.
import { deepEqual, match, ok } from "node:assert/strict";
import type { VisionConfig } from "../../lib/config/config.ts";
import type { Clock } from "../../lib/core/clock.ts";
import type { Vision, VisionImage } from "../../lib/vision/route.ts";
import { createVision } from "../../lib/vision/vision.ts";
import { startMcpVisionServer } from "../fixtures/mcp_vision_server.ts";
import { type FloodSpec, startOpenAiServer } from "../fixtures/openai_server.ts";
import { jpg, png } from "../fixtures/vision_images.ts";
import { FakeClock } from "../helpers/fake_clock.ts";
import { assertHungUp, rejectsWith } from "../helpers/vision_errors.ts";
import { waitFor } from "../helpers/wait_for.ts";

const MiB = 1024 * 1024;
/** Where the token sits in the tests' configured URLs; shaped like no generic credential pattern. */
const TOKEN = "pe+url/TOKEN=7Hq2xVw9";
const TOKEN_PART = "7Hq2xVw9";

/** The forms of TOKEN that must never appear in a message or answer. */
function tokenForms(): string[] {
  return [TOKEN, encodeURIComponent(TOKEN), TOKEN_PART];
}

/** The MCP route; with `clock`, its deadlines move only when the test advances that clock. */
function mcp(
  url: string,
  extra: { tool?: string; timeoutMs?: number; clock?: Clock } = {},
): Vision {
  const config: VisionConfig = {
    route: "mcp",
    url,
    tool: extra.tool ?? "describe_image",
    timeoutMs: extra.timeoutMs ?? 5_000,
  };
  return createVision(config, { fetch, ...(extra.clock ? { clock: extra.clock } : {}) });
}

Deno.test("mcp vision calls describe_image with the image as a data URL and returns its text", async () => {
  const server = startMcpVisionServer();
  const vision = mcp(server.url);
  try {
    const answer = await vision.describe(png(108, 240), "Where is Send?");
    match(answer, /Send button at \(980, 2250\)/);
    deepEqual(vision.route, "mcp");
    deepEqual(vision.endpoint, `http://127.0.0.1:${server.port}`);
    const [call] = server.calls;
    deepEqual(call?.prompt, "Where is Send?");
    deepEqual(call?.image, {
      mimeType: "image/png",
      byteLength: call?.image.byteLength,
      width: 108,
      height: 240,
    });
    await vision.describe(jpg(32, 64), "and now?");
    deepEqual(server.calls[1]?.image.mimeType, "image/jpeg");
    deepEqual([server.calls[1]?.image.width, server.calls[1]?.image.height], [32, 64]);
  } finally {
    await vision.close();
    await server.close();
  }
});

Deno.test("mcp vision opens one session on first use and reuses it for every later call", async () => {
  const server = startMcpVisionServer({ answer: (c) => `seen ${c.prompt}` });
  const vision = mcp(server.url);
  try {
    deepEqual(server.handshakes, 0, "no connection before the first describe");
    deepEqual(await vision.describe(png(8, 8), "one"), "seen one");
    deepEqual(await vision.describe(png(8, 8), "two"), "seen two");
    const both = await Promise.all([
      vision.describe(png(8, 8), "3"),
      vision.describe(png(8, 8), "4"),
    ]);
    deepEqual(both, ["seen 3", "seen 4"]);
    deepEqual(server.handshakes, 1);
    deepEqual(new Set(server.calls.map((c) => c.sessionId)).size, 1);
  } finally {
    await vision.close();
    await server.close();
  }
});

Deno.test("mcp vision shares one handshake between calls that start together", async () => {
  const server = startMcpVisionServer();
  const vision = mcp(server.url);
  try {
    await Promise.all([1, 2, 3].map((i) => vision.describe(png(8, 8), `q${i}`)));
    deepEqual(server.handshakes, 1);
    deepEqual(server.calls.length, 3);
  } finally {
    await vision.close();
    await server.close();
  }
});

Deno.test("mcp vision reconnects once and retries after the server restarts", async () => {
  const server = startMcpVisionServer();
  const vision = mcp(server.url);
  try {
    await vision.describe(png(8, 8), "before");
    await server.restart();
    match(await vision.describe(png(8, 8), "after"), /Send button/);
    deepEqual(server.handshakes, 2);
    deepEqual(server.calls.map((c) => c.prompt), ["before", "after"]);
    await vision.describe(png(8, 8), "again");
    deepEqual(server.handshakes, 2, "the new session is reused too");
  } finally {
    await vision.close();
    await server.close();
  }
});

Deno.test("mcp vision says UNREACHABLE while the server is down and recovers when it is back", async () => {
  const server = startMcpVisionServer();
  const vision = mcp(server.url);
  try {
    await vision.describe(png(8, 8), "up");
    await server.stop();
    await rejectsWith(vision.describe(png(8, 8), "down"), "UNREACHABLE", [
      `http://127.0.0.1:${server.port}`,
      "connection refused",
      "PHONE_EYE_VISION_URL",
    ]);
    await server.start();
    deepEqual(server.calls.length, 1);
    match(await vision.describe(png(8, 8), "back"), /Send button/);
    deepEqual(server.calls.map((c) => c.prompt), ["up", "back"]);
  } finally {
    await vision.close();
    await server.close();
  }
});

Deno.test("mcp vision names PHONE_EYE_VISION_TOOL and the server's tools when the tool is missing", async () => {
  const server = startMcpVisionServer({ tool: "look_at_image" });
  const vision = mcp(server.url);
  try {
    await rejectsWith(vision.describe(png(8, 8), "q"), "TOOL_MISSING", [
      '"describe_image"',
      "look_at_image",
      "PHONE_EYE_VISION_TOOL",
      `127.0.0.1:${server.port}`,
    ]);
    deepEqual(server.calls.length, 0);
  } finally {
    await vision.close();
    await server.close();
  }
});

Deno.test("mcp vision turns an isError tool result into TOOL_ERROR carrying the tool's text", async () => {
  const server = startMcpVisionServer({ toolError: "model overloaded, try later" });
  const vision = mcp(server.url);
  try {
    await rejectsWith(vision.describe(png(8, 8), "q"), "TOOL_ERROR", [
      "model overloaded, try later",
      "describe_image",
    ]);
    deepEqual(server.handshakes, 1, "a tool error is not a dead session: no reconnect");
    server.set({ toolError: undefined });
    match(await vision.describe(png(8, 8), "q"), /Send button/);
    deepEqual(server.handshakes, 1);
  } finally {
    await vision.close();
    await server.close();
  }
});

Deno.test("mcp vision times out a slow tool, names the limit, and reconnects for the next look", async () => {
  const server = startMcpVisionServer({ delayMs: 10_000 });
  const clock = new FakeClock();
  const vision = mcp(server.url, { timeoutMs: 300, clock });
  try {
    const rejected = rejectsWith(vision.describe(png(8, 8), "slow"), "TIMEOUT", [
      "300 ms",
      "PHONE_EYE_VISION_TIMEOUT_MS",
      `127.0.0.1:${server.port}`,
    ]);
    await waitFor(() => server.calls.length > 0, "the call to reach the server");
    await clock.advance(300);
    await rejected;
    server.set({ delayMs: undefined });
    match(await vision.describe(png(8, 8), "fast"), /Send button/);
    // The timed-out answer could still be streaming in: phone-eye hung up on that session.
    deepEqual(server.handshakes, 2);
  } finally {
    await vision.close();
    await server.close();
  }
});

Deno.test("mcp vision bounds the handshake on its clock and ends the request a silent server holds", async () => {
  // Takes each request and never answers it: the server/discover probe is the first, and stays open.
  const held: Request[] = [];
  const quit = new AbortController();
  const silent = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: quit.signal, onListen: () => {} },
    (req) => {
      held.push(req);
      return new Promise<Response>((resolve) => {
        quit.signal.addEventListener("abort", () => resolve(new Response(null, { status: 503 })));
      });
    },
  );
  const signals: AbortSignal[] = [];
  const watched: typeof fetch = (input, init) => {
    if (init?.signal) signals.push(init.signal);
    return fetch(input, init);
  };
  const clock = new FakeClock();
  const url = `http://127.0.0.1:${silent.addr.port}/mcp`;
  const vision = createVision({ route: "mcp", url, tool: "describe_image", timeoutMs: 300 }, {
    fetch: watched,
    clock,
  });
  try {
    const rejected = rejectsWith(vision.describe(png(8, 8), "q"), "TIMEOUT", ["300 ms"]);
    await waitFor(() => held.length > 0, "the handshake to reach the server");
    await clock.advance(300);
    await rejected;
    deepEqual(held.length, 1, "no second handshake, no call");
    ok(signals.length > 0, "the probe's fetch carries a signal");
    deepEqual(signals.map((s) => s.aborted), signals.map(() => true), "the probe was hung up on");
  } finally {
    await vision.close();
    quit.abort();
    await silent.finished;
  }
});

Deno.test("mcp vision stops when the caller aborts", async () => {
  const server = startMcpVisionServer({ delayMs: 10_000 });
  const vision = mcp(server.url);
  const controller = new AbortController();
  try {
    const pending = vision.describe(png(8, 8), "q", controller.signal);
    await waitFor(() => server.calls.length > 0, "the call to reach the server");
    controller.abort();
    await rejectsWith(pending, "ABORTED", ["cancelled"]);
  } finally {
    await vision.close();
    await server.close();
  }
});

Deno.test("mcp vision hints at the endpoint path when the URL answers 404", async () => {
  const server = startMcpVisionServer();
  const vision = mcp(server.url.replace(/\/mcp$/, "/wrong"));
  try {
    await rejectsWith(vision.describe(png(8, 8), "q"), "HTTP", [
      "404",
      "PHONE_EYE_VISION_URL",
      "/mcp",
    ]);
    deepEqual(server.handshakes, 0);
  } finally {
    await vision.close();
    await server.close();
  }
});

Deno.test("mcp vision close() ends the session on the server", async () => {
  const server = startMcpVisionServer();
  const vision = mcp(server.url);
  try {
    await vision.describe(png(8, 8), "q");
    deepEqual(server.openSessions, 1);
    await vision.close();
    deepEqual(server.openSessions, 0);
    await rejectsWith(vision.describe(png(8, 8), "q"), "UNCONFIGURED", ["closed"]);
  } finally {
    await server.close();
  }
});

Deno.test({
  name: "mcp vision reports a host outside Deno's net permission as NOT_PERMITTED",
  permissions: { net: ["localhost"] },
  async fn() {
    const vision = mcp("http://127.0.0.1:8282/mcp?token=abc");
    try {
      const err = await rejectsWith(vision.describe(png(8, 8), "q"), "NOT_PERMITTED", [
        "127.0.0.1:8282",
        "PHONE_EYE_VISION_URL",
        "deno task compile --vision-host 127.0.0.1:8282",
      ]);
      ok(!err.message.includes("token=abc"));
      deepEqual(vision.endpoint, "http://127.0.0.1:8282");
    } finally {
      await vision.close();
    }
  },
});

Deno.test("mcp vision pointed at a server that does not speak MCP says what to check", async () => {
  const plain = startOpenAiServer({ body: JSON.stringify({ hello: "not json-rpc" }) });
  const vision = mcp(`${plain.url}/chat/completions`);
  try {
    await rejectsWith(vision.describe(png(8, 8), "q"), "BAD_RESPONSE", [
      `127.0.0.1:${plain.port}`,
      "not the MCP",
      "PHONE_EYE_VISION_URL",
    ]);
  } finally {
    await vision.close();
    await plain.close();
  }
});

Deno.test("mcp vision close() during a call ends that call without opening a new session", async () => {
  const server = startMcpVisionServer({ delayMs: 10_000 });
  const vision = mcp(server.url);
  try {
    const pending = vision.describe(png(8, 8), "q");
    await waitFor(() => server.calls.length > 0, "the call to reach the server");
    await vision.close();
    await rejectsWith(pending, "ABORTED", ["closed"]);
    deepEqual(server.handshakes, 1);
    deepEqual(server.openSessions, 0);
  } finally {
    await server.close();
  }
});

Deno.test("mcp vision also speaks to a 2026-07-28-only server, which has no sessions", async () => {
  const server = startMcpVisionServer({ protocol: "modern", answer: (c) => `modern ${c.prompt}` });
  const vision = mcp(server.url);
  try {
    deepEqual(await vision.describe(png(16, 32), "one"), "modern one");
    deepEqual(await vision.describe(png(16, 32), "two"), "modern two");
    deepEqual(server.handshakes, 1, "one server/discover, then plain calls");
    deepEqual(server.calls.map((c) => [c.sessionId, c.image.width, c.image.height]), [
      [undefined, 16, 32],
      [undefined, 16, 32],
    ]);
    await server.restart();
    deepEqual(await vision.describe(png(16, 32), "three"), "modern three");
    deepEqual(server.handshakes, 1, "nothing to re-establish after a stateless server restarts");
  } finally {
    await vision.close();
    await server.close();
  }
});

Deno.test("mcp vision times out on a 2026-07-28-only server and then carries on", async () => {
  const server = startMcpVisionServer({ protocol: "modern", delayMs: 10_000 });
  const clock = new FakeClock();
  const vision = mcp(server.url, { timeoutMs: 200, clock });
  try {
    const rejected = rejectsWith(vision.describe(png(8, 8), "slow"), "TIMEOUT", ["200 ms"]);
    await waitFor(() => server.calls.length > 0, "the call to reach the server");
    await clock.advance(200);
    await rejected;
    server.set({ delayMs: undefined });
    match(await vision.describe(png(8, 8), "fast"), /Send button/);
  } finally {
    await vision.close();
    await server.close();
  }
});

Deno.test("mcp vision explains a 413 from a server's request-size limit", async () => {
  const server = startMcpVisionServer();
  const vision = mcp(server.url);
  // Past the SDK server's default 4 MiB body limit once base64-encoded; the bytes need not be a real PNG.
  const huge: VisionImage = {
    bytes: new Uint8Array(3_300_000),
    mimeType: "image/png",
    width: 1,
    height: 1,
  };
  try {
    await rejectsWith(vision.describe(huge, "q"), "HTTP", ["413", "KB", "smaller"]);
    deepEqual(server.handshakes, 1, "a 413 is not a dead session");
  } finally {
    await vision.close();
    await server.close();
  }
});

Deno.test("mcp vision hangs up on an answer past 4 MiB (SSE or JSON), says so, and the next look reconnects", async () => {
  const floods: [string, FloodSpec][] = [
    // One SSE event whose data line never ends: the SDK's parser would buffer all of it.
    ["sse", { prefix: "event: message\ndata: ", limitBytes: 64 * MiB }],
    ["json", {
      prefix: '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"',
      contentType: "application/json",
      limitBytes: 64 * MiB,
    }],
  ];
  const server = startMcpVisionServer();
  const vision = mcp(server.url);
  try {
    for (const [i, [kind, flood]] of floods.entries()) {
      server.set({ flood });
      await rejectsWith(vision.describe(png(8, 8), kind), "TOO_LARGE", [
        `127.0.0.1:${server.port}`,
        "more than 4 MiB",
        "next look reconnects",
        "PHONE_EYE_VISION_URL",
      ]);
      await assertHungUp(server.floods[i]);
      server.set({ flood: undefined });
      match(await vision.describe(png(8, 8), "after"), /Send button/);
      deepEqual(server.handshakes, 2 + i, `${kind}: a new session after the hang-up`);
    }
  } finally {
    await vision.close();
    await server.close();
  }
});

Deno.test("mcp vision stops reading an answer still streaming at the timeout, on both protocol eras", async () => {
  for (const protocol of ["sessions", "modern"] as const) {
    // SSE comments trickled well under the cap: only the deadline can end this answer.
    const server = startMcpVisionServer({
      protocol,
      flood: {
        filler: ": still thinking\n",
        limitBytes: 3 * MiB,
        chunkBytes: 16 * 1024,
        paceMs: 10,
      },
    });
    const clock = new FakeClock();
    const vision = mcp(server.url, { timeoutMs: 300, clock });
    try {
      // The deadline comes once the answer is flowing, as it would for a slow, endless one.
      const rejected = rejectsWith(vision.describe(png(8, 8), "q"), "TIMEOUT", ["300 ms"]);
      await waitFor(() => (server.floods[0]?.sent ?? 0) >= 64 * 1024, "the answer to be flowing");
      await clock.advance(300);
      await rejected;
      const flood = server.floods[0];
      await assertHungUp(flood, (flood?.sent ?? 0) + MiB);
      server.set({ flood: undefined });
      match(await vision.describe(png(8, 8), "q"), /Send button/, protocol);
    } finally {
      await vision.close();
      await server.close();
    }
  }
});

Deno.test("mcp vision: one call's abort does not fail another call on the same session", async () => {
  const server = startMcpVisionServer({ delayMs: 10_000, answer: (c) => `seen ${c.prompt}` });
  const vision = mcp(server.url);
  const controller = new AbortController();
  try {
    const cancelled = vision.describe(png(8, 8), "cancelled", controller.signal);
    const kept = vision.describe(png(8, 8), "kept");
    await waitFor(() => server.calls.length === 2, "both calls to reach the server");
    // Both are held on the server until the abort; a call arriving after it is answered at once.
    server.set({ delayMs: undefined });
    controller.abort();
    await rejectsWith(cancelled, "ABORTED", ["cancelled"]);
    // The hang-up cut "kept" off too; it is sent again on a fresh session.
    deepEqual(await kept, "seen kept");
    deepEqual(server.calls.map((c) => c.prompt), ["cancelled", "kept", "kept"]);
    deepEqual(server.handshakes, 2);
  } finally {
    await vision.close();
    await server.close();
  }
});

Deno.test("mcp vision never quotes the URL's token from an Express-style 404 page", async () => {
  const server = startMcpVisionServer();
  const url = `${server.url.replace(/\/mcp$/, "/wrong")}?v=1&token=${encodeURIComponent(TOKEN)}`;
  const vision = mcp(url);
  try {
    const err = await rejectsWith(vision.describe(png(8, 8), "q"), "HTTP", [
      "404",
      "Cannot POST [redacted]",
      "PHONE_EYE_VISION_URL",
    ]);
    for (const form of [...tokenForms(), "/wrong?", "v=1&amp;token"]) {
      ok(!err.message.includes(form), `${form} leaked into: ${err.message}`);
    }
  } finally {
    await vision.close();
    await server.close();
  }
});

Deno.test("mcp vision scrubs the URL's token from an answer and a tool error that echo it", async () => {
  const url = (s: { url: string }) => `${s.url}?token=${encodeURIComponent(TOKEN)}`;
  const server = startMcpVisionServer({
    answer: `Called as /mcp?token=${encodeURIComponent(TOKEN)} with ${TOKEN}; OK at (5, 9)`,
  });
  const vision = mcp(url(server));
  try {
    const answer = await vision.describe(png(8, 8), "q");
    deepEqual(answer, "Called as [redacted] with [redacted]; OK at (5, 9)");
    server.set({ toolError: `refused ${TOKEN} for tool describe_image` });
    const err = await rejectsWith(vision.describe(png(8, 8), "q"), "TOOL_ERROR", ["refused"]);
    for (const form of tokenForms()) ok(!err.message.includes(form), err.message);
  } finally {
    await vision.close();
    await server.close();
  }
});
