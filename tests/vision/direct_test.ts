// Tests for the direct (OpenAI-compatible) vision route against a real local HTTP server.
import { stablePort } from "../helpers/ports.ts";
import { deepEqual, match, ok } from "node:assert/strict";
import { type Clock, realClock } from "../../lib/core/clock.ts";
import type { VisionConfig } from "../../lib/config/config.ts";
import { MAX_RESPONSE_BYTES, readCapped } from "../../lib/vision/capped_body.ts";
import {
  keySecrets,
  networkFailure,
  redact,
  scrubSecrets,
  urlSecrets,
} from "../../lib/vision/errors.ts";
import { createVision, UNCONFIGURED_MESSAGE } from "../../lib/vision/vision.ts";
import { type FloodSpec, startOpenAiServer } from "../fixtures/openai_server.ts";
import { jpg, png } from "../fixtures/vision_images.ts";
import { FakeClock } from "../helpers/fake_clock.ts";
import { assertHungUp, KEY, KEY_PART, rejectsWith } from "../helpers/vision_errors.ts";
import { waitFor } from "../helpers/wait_for.ts";

const MiB = 1024 * 1024;
/** A chat completion whose content string never ends: the shape of a runaway or hostile server. */
const ENDLESS_ANSWER: FloodSpec = {
  prefix: '{"choices":[{"index":0,"message":{"role":"assistant","content":"',
  limitBytes: 64 * MiB,
};
/** The same, trickled slowly enough that the deadline comes long before the cap. */
const TRICKLED_ANSWER: FloodSpec = {
  ...ENDLESS_ANSWER,
  limitBytes: 3 * MiB,
  chunkBytes: 16 * 1024,
  paceMs: 10,
};

/** KEY with every character written as a JSON \u escape, as some servers serialise non-ASCII-safe text. */
function jsonEscaped(text: string): string {
  return [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
}

const MODEL = "test-vision-1";

function direct(
  baseUrl: string,
  extra: { apiKey?: string; timeoutMs?: number; model?: string; clock?: Clock } = {},
) {
  const config: VisionConfig = {
    route: "direct",
    baseUrl,
    apiKey: extra.apiKey,
    model: extra.model ?? MODEL,
    timeoutMs: extra.timeoutMs ?? 5_000,
  };
  return createVision(config, { fetch, clock: extra.clock ?? realClock });
}

Deno.test("direct vision sends a keyless request with the image as a data URL and returns the answer", async () => {
  const server = startOpenAiServer({ model: MODEL });
  const vision = direct(server.url);
  try {
    const answer = await vision.describe(png(108, 240), "Where is the Send button?");
    match(answer, /Send button at \(980, 2250\)/);
    deepEqual(vision.route, "direct");
    deepEqual(vision.endpoint, `http://127.0.0.1:${server.port}`);
    const [req] = server.requests;
    ok(req);
    deepEqual(req.path, "/v1/chat/completions");
    deepEqual(req.headers.authorization, undefined);
    deepEqual(req.model, MODEL);
    deepEqual(req.prompt, "Where is the Send button?");
    deepEqual(req.image?.mimeType, "image/png");
    deepEqual([req.image?.width, req.image?.height], [108, 240]);
    const body = req.body as Record<string, unknown>;
    deepEqual(body.temperature, 0);
    deepEqual(typeof body.max_tokens, "number");
  } finally {
    await vision.close();
    await server.close();
  }
});

Deno.test("direct vision sends the key only as a Bearer header and handles a JPEG", async () => {
  const server = startOpenAiServer({
    apiKey: KEY,
    answer: "A login form; Sign in at (540, 1800).",
  });
  const vision = direct(server.url, { apiKey: KEY });
  try {
    const answer = await vision.describe(jpg(64, 128), "What is on screen?");
    deepEqual(answer, "A login form; Sign in at (540, 1800).");
    const [req] = server.requests;
    deepEqual(req?.headers.authorization, `Bearer ${KEY}`);
    deepEqual(req?.image?.mimeType, "image/jpeg");
    deepEqual([req?.image?.width, req?.image?.height], [64, 128]);
    ok(!JSON.stringify(req?.body).includes(KEY), "the key must not travel in the body");
  } finally {
    await server.close();
  }
});

Deno.test("direct vision joins an answer that comes back as an array of text parts", async () => {
  const server = startOpenAiServer({
    answer: "OK button at (500, 900)",
    answerAsParts: true,
  });
  try {
    deepEqual(await direct(server.url).describe(png(8, 8), "q"), "OK button at (500, 900)");
  } finally {
    await server.close();
  }
});

Deno.test("direct vision reports a wrong key as UNAUTHORIZED without echoing it", async () => {
  const server = startOpenAiServer({ apiKey: "sk-the-right-one" });
  try {
    await rejectsWith(
      direct(server.url, { apiKey: KEY }).describe(png(8, 8), "q"),
      "UNAUTHORIZED",
      [
        `127.0.0.1:${server.port}`,
        "401",
        "PHONE_EYE_VISION_API_KEY",
      ],
    );
  } finally {
    await server.close();
  }
});

Deno.test("direct vision says a key is needed when a keyed server gets none", async () => {
  const server = startOpenAiServer({ apiKey: KEY });
  try {
    await rejectsWith(direct(server.url).describe(png(8, 8), "q"), "UNAUTHORIZED", [
      "401",
      "none is set",
    ]);
  } finally {
    await server.close();
  }
});

Deno.test("direct vision hints at /v1 when the base URL misses it (404)", async () => {
  const server = startOpenAiServer();
  try {
    const base = server.url.replace(/\/v1$/, "");
    await rejectsWith(direct(base, { apiKey: KEY }).describe(png(8, 8), "q"), "HTTP", [
      "404",
      `127.0.0.1:${server.port}`,
      "/v1",
      "PHONE_EYE_VISION_BASE_URL",
    ]);
  } finally {
    await server.close();
  }
});

Deno.test("direct vision names the model when the server does not have it (404)", async () => {
  const server = startOpenAiServer({ model: MODEL });
  try {
    await rejectsWith(
      direct(server.url, { model: "no-such-model" }).describe(png(8, 8), "q"),
      "HTTP",
      [
        "404",
        "no-such-model",
        "does not exist",
        "PHONE_EYE_VISION_MODEL",
      ],
    );
  } finally {
    await server.close();
  }
});

Deno.test("direct vision reports 429 as RATE_LIMITED with the Retry-After delay", async () => {
  const server = startOpenAiServer({ status: 429, headers: { "retry-after": "7" } });
  try {
    await rejectsWith(
      direct(server.url, { apiKey: KEY }).describe(png(8, 8), "q"),
      "RATE_LIMITED",
      [
        "429",
        "retry after 7 s",
      ],
    );
  } finally {
    await server.close();
  }
});

Deno.test("direct vision explains a 413 as the screenshot being too large", async () => {
  const server = startOpenAiServer({ status: 413, body: "Request Entity Too Large" });
  try {
    await rejectsWith(direct(server.url).describe(png(8, 8), "q"), "HTTP", [
      "413",
      "KB",
      "smaller",
    ]);
  } finally {
    await server.close();
  }
});

Deno.test("direct vision scrubs the key from a 500 body that echoes the Authorization header", async () => {
  const server = startOpenAiServer({ apiKey: KEY, status: 500, echoAuthHeader: true });
  const vision = direct(server.url, { apiKey: KEY });
  try {
    await rejectsWith(vision.describe(png(8, 8), "q"), "HTTP", ["500", `127.0.0.1:${server.port}`]);
    // Raw text bodies, with and without the Bearer prefix, the way proxies and debug pages print them.
    server.set({
      echoAuthHeader: false,
      status: 502,
      body: `upstream error; headers: Authorization: Bearer ${KEY}`,
    });
    await rejectsWith(vision.describe(png(8, 8), "q"), "HTTP", ["502", "upstream error"]);
    server.set({
      status: 503,
      body: JSON.stringify({ error: { message: `key ${KEY} is overloaded` } }),
    });
    const err = await rejectsWith(vision.describe(png(8, 8), "q"), "HTTP", [
      "503",
      "is overloaded",
    ]);
    match(err.message, /\[redacted\]/);
  } finally {
    await server.close();
  }
});

Deno.test("direct vision refuses to follow a redirect and never prints where it pointed", async () => {
  const server = startOpenAiServer({
    status: 307,
    headers: { location: "https://elsewhere.example/v1/chat/completions" },
  });
  try {
    const err = await rejectsWith(
      direct(server.url, { apiKey: KEY }).describe(png(8, 8), "q"),
      "HTTP",
      ["307", "does not print where they point", "PHONE_EYE_VISION_BASE_URL"],
    );
    ok(!err.message.includes("elsewhere.example"), err.message);
    deepEqual(server.requests.length, 1);
  } finally {
    await server.close();
  }
});

Deno.test("direct vision gives up at the timeout and names PHONE_EYE_VISION_TIMEOUT_MS", async () => {
  const server = startOpenAiServer({ delayMs: 10_000 });
  const clock = new FakeClock();
  try {
    const pending = direct(server.url, { timeoutMs: 150, clock }).describe(png(8, 8), "q");
    const rejected = rejectsWith(pending, "TIMEOUT", [
      "150 ms",
      "PHONE_EYE_VISION_TIMEOUT_MS",
      `127.0.0.1:${server.port}`,
    ]);
    await waitFor(() => server.requests.length === 1, "the request");
    await clock.advance(150);
    await rejected;
  } finally {
    await server.close();
  }
});

Deno.test("direct vision stops when the caller aborts", async () => {
  const server = startOpenAiServer({ delayMs: 10_000 });
  const controller = new AbortController();
  try {
    const pending = direct(server.url).describe(png(8, 8), "q", controller.signal);
    await waitFor(() => server.requests.length > 0, "the request to reach the server");
    controller.abort();
    await rejectsWith(pending, "ABORTED", ["cancelled"]);
  } finally {
    await server.close();
  }
});

Deno.test("direct vision calls malformed answers BAD_RESPONSE", async () => {
  const server = startOpenAiServer({ apiKey: KEY });
  const vision = direct(server.url, { apiKey: KEY });
  try {
    const cases: [string, string][] = [
      ["<html>proxy login</html>", "not JSON"],
      [JSON.stringify({ choices: [] }), "no choices"],
      [JSON.stringify({ choices: [{ index: 0 }] }), "no message"],
      [
        JSON.stringify({
          choices: [{ message: { role: "assistant", content: null }, finish_reason: "length" }],
        }),
        "finish_reason length",
      ],
    ];
    for (const [body, why] of cases) {
      server.set({ body });
      await rejectsWith(vision.describe(png(8, 8), "q"), "BAD_RESPONSE", [
        why,
        `127.0.0.1:${server.port}`,
      ]);
    }
  } finally {
    await server.close();
  }
});

Deno.test("direct vision stops reading an answer past 4 MiB, says so, and the next look works", async () => {
  const server = startOpenAiServer({ flood: ENDLESS_ANSWER });
  const vision = direct(server.url, { apiKey: KEY });
  try {
    await rejectsWith(vision.describe(png(8, 8), "q"), "TOO_LARGE", [
      `127.0.0.1:${server.port}`,
      "more than 4 MiB",
      "stopped reading",
      "PHONE_EYE_VISION_BASE_URL",
    ]);
    await assertHungUp(server.floods[0]);
    server.set({ flood: undefined });
    match(await vision.describe(png(8, 8), "q"), /Send button/);
  } finally {
    await server.close();
  }
});

Deno.test("direct vision explains a failure status from the start of an endless error page", async () => {
  const server = startOpenAiServer({
    status: 502,
    flood: { prefix: "<html>Bad gateway: upstream gone ", limitBytes: 64 * MiB },
  });
  try {
    await rejectsWith(direct(server.url).describe(png(8, 8), "q"), "HTTP", [
      "502",
      "Bad gateway: upstream gone",
    ]);
    await assertHungUp(server.floods[0]);
  } finally {
    await server.close();
  }
});

Deno.test("direct vision cancels an answer still streaming at the timeout or the caller's abort", async () => {
  const server = startOpenAiServer({ flood: TRICKLED_ANSWER });
  const clock = new FakeClock();
  try {
    const timing = direct(server.url, { timeoutMs: 300, clock }).describe(png(8, 8), "q");
    // The deadline comes once the answer is flowing, as it would for a slow, endless one.
    const rejected = rejectsWith(timing, "TIMEOUT", ["300 ms"]);
    await waitFor(() => (server.floods[0]?.sent ?? 0) >= 64 * 1024, "the answer to be flowing");
    await clock.advance(300);
    await rejected;
    const timedOut = server.floods[0];
    const atTimeout = timedOut?.sent ?? 0;
    await assertHungUp(timedOut, atTimeout + MiB);

    const controller = new AbortController();
    const pending = direct(server.url).describe(png(8, 8), "q", controller.signal);
    // Abort once the answer is flowing, not before the server has begun it.
    await waitFor(() => (server.floods[1]?.sent ?? 0) >= 64 * 1024, "the answer to be flowing");
    controller.abort();
    await rejectsWith(pending, "ABORTED", ["cancelled"]);
    const aborted = server.floods[1];
    await assertHungUp(aborted, (aborted?.sent ?? 0) + MiB);
  } finally {
    await server.close();
  }
});

Deno.test("direct vision scrubs the exact key from an answer that echoes it", async () => {
  const server = startOpenAiServer({
    apiKey: KEY,
    answer: (req) => `You sent ${req.headers.authorization}; the key was ${KEY}. OK at (5, 9)`,
  });
  try {
    const answer = await direct(server.url, { apiKey: KEY }).describe(png(8, 8), "q");
    ok(!answer.includes(KEY) && !answer.includes(KEY_PART), answer);
    deepEqual(answer, "You sent Bearer [redacted]; the key was [redacted]. OK at (5, 9)");
  } finally {
    await server.close();
  }
});

Deno.test("direct vision scrubs a \\u-escaped key from JSON error and answer bodies", async () => {
  const escaped = jsonEscaped(KEY);
  const hidden = (text: string) =>
    !text.includes(jsonEscaped(KEY_PART)) && !text.includes(KEY_PART);
  const server = startOpenAiServer({
    status: 500,
    // Not the { error: { message } } shape: the raw body is what gets quoted.
    body: `{"detail":"upstream refused key ${escaped}"}`,
  });
  const vision = direct(server.url, { apiKey: KEY });
  try {
    const raw = await rejectsWith(vision.describe(png(8, 8), "q"), "HTTP", [
      "500",
      "upstream refused key [redacted]",
    ]);
    ok(hidden(raw.message), raw.message);
    // The { error: { message } } shape: JSON.parse decodes the escape before the message is quoted.
    server.set({ body: `{"error":{"message":"key ${escaped} is over quota"}}` });
    await rejectsWith(vision.describe(png(8, 8), "q"), "HTTP", ["500", "key [redacted] is over"]);
    // A 200 that is not a chat completion is quoted raw in BAD_RESPONSE.
    server.set({ status: undefined, body: `{"echo":"${escaped}","choices":[]}` });
    const bad = await rejectsWith(vision.describe(png(8, 8), "q"), "BAD_RESPONSE", ["no choices"]);
    ok(hidden(bad.message), bad.message);
    // An answer whose text itself holds the escape (double-escaped in the JSON).
    server.set({
      body: JSON.stringify({
        choices: [{ message: { role: "assistant", content: `key: ${escaped}` } }],
      }),
    });
    deepEqual(await vision.describe(png(8, 8), "q"), "key: [redacted]");
  } finally {
    await server.close();
  }
});

Deno.test("direct vision reports connection refused as UNREACHABLE with the address to check", async () => {
  // Outside the ephemeral range, so no connection of the suite's can be using it meanwhile.
  const port = stablePort();
  await rejectsWith(
    direct(`http://127.0.0.1:${port}/v1`, { apiKey: KEY }).describe(png(8, 8), "q"),
    "UNREACHABLE",
    [
      `http://127.0.0.1:${port}`,
      "connection refused",
      "PHONE_EYE_VISION_BASE_URL",
    ],
  );
});

Deno.test({
  name: "direct vision reports a host outside Deno's net permission as NOT_PERMITTED",
  permissions: { net: ["localhost"] },
  async fn() {
    await rejectsWith(
      direct("http://127.0.0.1:8181/v1?token=abc", { apiKey: KEY }).describe(png(8, 8), "q"),
      "NOT_PERMITTED",
      [
        "127.0.0.1:8181",
        "from source, start with --allow-net=127.0.0.1:8181",
        "deno task compile --vision-host 127.0.0.1:8181",
      ],
    );
  },
});

Deno.test({
  name: "vision endpoint keeps only scheme, host and port of the configured URL",
  permissions: "none",
  fn() {
    const vision = direct("https://user.example:8443/secret-path/v1?api-key=zzz");
    deepEqual(vision.endpoint, "https://user.example:8443");
  },
});

Deno.test({
  name: "vision without configuration answers UNCONFIGURED naming the env vars to set",
  permissions: "none",
  async fn() {
    const vision = createVision({ route: "none" });
    deepEqual(vision.route, "none");
    await rejectsWith(vision.describe(png(8, 8), "q"), "UNCONFIGURED", [
      "PHONE_EYE_VISION_API_KEY",
      "PHONE_EYE_VISION_BASE_URL",
      "PHONE_EYE_VISION_MODEL",
      "PHONE_EYE_VISION_URL",
    ]);
    deepEqual(UNCONFIGURED_MESSAGE.includes("PHONE_EYE_VISION_URL"), true);
    await vision.close();
  },
});

Deno.test({
  name: "unavailable says why vision is off without a describe() call, and is unset on a route",
  permissions: "none",
  async fn() {
    const unset = createVision({ route: "none" });
    deepEqual(unset.unavailable?.setup, UNCONFIGURED_MESSAGE);
    const invalid = createVision({
      route: "none",
      problem: "PHONE_EYE_VISION_BASE_URL is not a URL",
    });
    deepEqual(
      invalid.unavailable?.setup,
      "Vision settings are invalid: PHONE_EYE_VISION_BASE_URL is not a URL. Fix them and restart " +
        "phone-eye; the other tools work without vision.",
    );
    // The agent's words: the full note for a session's first look, one line after it.
    deepEqual(
      invalid.unavailable?.brief,
      "settings invalid (PHONE_EYE_VISION_BASE_URL is not a URL; see the first look's note)",
    );
    deepEqual(
      unset.unavailable?.brief,
      "not configured (set PHONE_EYE_VISION_API_KEY or PHONE_EYE_VISION_URL; see the first look's note)",
    );
    // describe() still refuses with the same words, for a caller that does not ask first, and
    // says first that it failed.
    const refused = await rejectsWith(invalid.describe(png(8, 8), "q"), "UNCONFIGURED", []);
    deepEqual(refused.message, `Cannot ask a vision model: ${invalid.unavailable?.setup}`);
    const routes = [
      createVision({
        route: "direct",
        baseUrl: "http://127.0.0.1:9/v1",
        apiKey: undefined,
        model: MODEL,
        timeoutMs: 1000,
      }),
      createVision({
        route: "mcp",
        url: "http://127.0.0.1:9/mcp",
        tool: "describe",
        timeoutMs: 1000,
      }),
    ];
    deepEqual(routes.map((v) => [v.route, v.unavailable]), [["direct", undefined], [
      "mcp",
      undefined,
    ]]);
    for (const vision of [unset, invalid, ...routes]) await vision.close();
  },
});

Deno.test({
  name: "networkFailure classifies Deno's DNS failure without quoting the URL it embeds",
  permissions: "none",
  fn() {
    // The shape Deno 2 gives an unresolvable host (observed with `fetch`).
    const err = new TypeError("fetch failed", {
      cause: new Error(
        "error sending request for url (http://nohost.invalid/v1/chat/completions?key=zzz): client error (Connect): dns error: failed to lookup address information: Name or service not known",
      ),
    });
    const v = networkFailure(err, "http://nohost.invalid", "PHONE_EYE_VISION_BASE_URL");
    deepEqual(v?.code, "UNREACHABLE");
    match(v?.message ?? "", /nohost\.invalid does not resolve/);
    ok(!v?.message.includes("key=zzz"));
    deepEqual(networkFailure(new Error("other"), "http://x", "PHONE_EYE_VISION_URL"), undefined);
  },
});

Deno.test({
  name: "redact finds a configured URL's token as sent, percent-decoded and HTML-escaped",
  permissions: "none",
  fn() {
    const token = "pe+url/TOKEN=7Hq2xVw9";
    const url = `https://vision.example/s/pe-path-SEGMENT-55aa/mcp?v=1&token=${
      encodeURIComponent(token)
    }`;
    const secrets = urlSecrets(url);
    const echoes = [
      `Cannot POST /s/pe-path-SEGMENT-55aa/mcp?v=1&amp;token=${encodeURIComponent(token)}`,
      `invalid token ${token}`,
      `invalid token ${encodeURIComponent(token)}`,
      "no route for pe-path-SEGMENT-55aa",
    ];
    for (const text of echoes) {
      const out = redact(text, secrets);
      ok(!out.includes("TOKEN") && !out.includes("SEGMENT"), `${text} -> ${out}`);
    }
    // Short values and segments are left alone unless they come as part of the whole URL.
    deepEqual(redact("v=1 at /mcp", secrets), "v=1 at /mcp");
    deepEqual(urlSecrets("http://127.0.0.1:8080/mcp"), []);
  },
});

Deno.test({
  name: "redact and readCapped leave ordinary text alone and stop at the cap",
  permissions: "none",
  async fn() {
    deepEqual(redact("a \\u0041 stays", keySecrets(KEY)), "a \\u0041 stays");
    deepEqual(redact(`x ${encodeURIComponent(KEY)} y`, keySecrets(KEY)), "x [redacted] y");
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        c.enqueue(new TextEncoder().encode("é".repeat(1000)));
      },
    });
    const read = await readCapped(body, 4001, new AbortController().signal);
    deepEqual(read.truncated, true);
    // 2000 two-byte characters fit in 4001 bytes; the odd byte is a cut character, shown as U+FFFD.
    deepEqual(read.text, "é".repeat(2000) + "\uFFFD");
    deepEqual(MAX_RESPONSE_BYTES, 4 * MiB);
  },
});

Deno.test({
  name: "scrubSecrets removes the key, bearer tokens and key-shaped strings",
  permissions: "none",
  fn() {
    const text =
      `{"headers":{"authorization":"Bearer ${KEY}"}} raw=${KEY} other sk-live-abcdefgh12 api_key=foo123`;
    const out = scrubSecrets(text, [KEY]);
    ok(!out.includes(KEY));
    ok(!out.includes("sk-live-abcdefgh12"));
    ok(!out.includes("foo123"));
    match(out, /raw=\[redacted\]/);
  },
});
