// A hostile vision host that spells the key back in every way it can (letter case, percent and
// JSON escapes, base64 alone, as `Bearer <key>` and inside a longer blob, a redirect to
// http://<key>.evil.example/): no spelling reaches an answer, an error or a doctor line.

import { deepEqual, ok } from "node:assert/strict";
import { createDevice } from "../../lib/adb/device.ts";
import { createAdbRunner } from "../../lib/adb/runner.ts";
import { realClock } from "../../lib/core/clock.ts";
import { loadConfig, type VisionConfig } from "../../lib/config/config.ts";
import { formatChecks, runDoctor } from "../../lib/app/doctor.ts";
import { createPhones } from "../../lib/adb/phones.ts";
import { createLink } from "../../lib/adb/link.ts";
import { keySecrets, redact, scrubSecrets } from "../../lib/vision/errors.ts";
import { createVision } from "../../lib/vision/vision.ts";
import { startOpenAiServer } from "../fixtures/openai_server.ts";
import { png } from "../fixtures/vision_images.ts";
import { denoDir, testPermissionFlags } from "../helpers/phone_eye.ts";
import { randomFrom } from "../helpers/prng.ts";

const rng = randomFrom(0x17b3);
const chars = (alphabet: string, n: number) =>
  Array.from({ length: n }, () => alphabet[rng.int(alphabet.length)]).join("");
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** The shapes of real keys: OpenAI's legacy and project keys, OpenRouter's, Google's. */
const KEYS: Record<string, string> = {
  "sk-": `sk-${chars(ALNUM, 48)}`,
  "sk-proj-": `sk-proj-${chars(`${ALNUM}-_`, 156)}`,
  "sk-or-v1-": `sk-or-v1-${chars("0123456789abcdef", 64)}`,
  "AIza": `AIza${chars(`${ALNUM}-_`, 35)}`,
};

const enc = new TextEncoder();
const b64 = (text: string | Uint8Array) =>
  (typeof text === "string" ? enc.encode(text) : text).toBase64();
const urlSafe = (text: string) => text.replaceAll("+", "-").replaceAll("/", "_");

/** Every spelling of `key` a careless or hostile server might send back. */
function spellings(key: string): Record<string, string> {
  const blob = (lead: number) => {
    // The key inside a longer binary blob, at byte offset `lead` (so every base64 alignment).
    const bytes = new Uint8Array([...Array(lead + 5).fill(0xa5), ...enc.encode(key), 0x5a, 0x5b]);
    return b64(bytes);
  };
  return {
    "as is": key,
    "upper-cased": key.toUpperCase(),
    "lower-cased": key.toLowerCase(),
    "percent-encoded": [...enc.encode(key)].map((b) => `%${b.toString(16).toUpperCase()}`).join(""),
    "percent-encoded, lower hex": [...enc.encode(key)].map((b) => `%${b.toString(16)}`).join(""),
    "JSON \\u escapes": [...key].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
      .join(""),
    "base64": b64(key),
    "base64 of Bearer <key>": b64(`Bearer ${key}`),
    "url-safe base64 of Bearer <key>": urlSafe(b64(`Bearer ${key}`)).replace(/=+$/, ""),
    "Basic auth": `Basic ${b64(`user:${key}`)}`,
    "in a blob, alignment 0": blob(1),
    "in a blob, alignment 1": blob(2),
    "in a blob, alignment 2": blob(3),
    "url-safe, in a blob": urlSafe(blob(2)),
  };
}

/** Every 10 characters of `key` (lower-cased) and every 9 of its bytes, as sets: findKey runs on
 * a few hundred texts, and a lookup per position beats a search per window. */
const windowsOf = new Map<string, { textWindows: Set<string>; byteWindows: Set<string> }>();
function keyWindows(key: string) {
  let found = windowsOf.get(key);
  if (found === undefined) {
    const windows = (s: string, n: number) =>
      new Set(Array.from({ length: s.length - n + 1 }, (_, i) => s.slice(i, i + n)));
    found = {
      textWindows: windows(key.toLowerCase(), 10),
      byteWindows: windows(String.fromCharCode(...enc.encode(key)), 9),
    };
    windowsOf.set(key, found);
  }
  return found;
}

/**
 * Where `key` can still be read in `text`, or undefined: any 10 characters of it in any case, as
 * text or percent-decoded, or any 9 of its bytes in the base64 runs of the text, however aligned.
 */
function findKey(text: string, key: string): string | undefined {
  const { textWindows, byteWindows } = keyWindows(key);
  /** The first `n`-character slice of `s` that is one of `wanted`. */
  const firstIn = (s: string, n: number, wanted: Set<string>) => {
    for (let i = 0; i + n <= s.length; i++) {
      const w = s.slice(i, i + n);
      if (wanted.has(w)) return w;
    }
    return undefined;
  };
  const lower = text.toLowerCase();
  let decoded = lower;
  try {
    decoded = decodeURIComponent(lower.replace(/%(?![0-9a-f]{2})/g, "%25")).toLowerCase();
  } catch { /* keep it */ }
  const unescaped = lower.replace(
    /\\u([0-9a-f]{4})/g,
    (_, code: string) => String.fromCharCode(parseInt(code, 16)),
  ).toLowerCase();
  for (const t of [lower, decoded, unescaped]) {
    const w = firstIn(t, 10, textWindows);
    if (w !== undefined) return `"${w}" as text`;
  }
  for (const run of text.match(/[A-Za-z0-9+/_-]{12,}/g) ?? []) {
    const std = run.replaceAll("-", "+").replaceAll("_", "/");
    for (let at = 0; at < 4; at++) {
      const part = std.slice(at, at + Math.floor((std.length - at) / 4) * 4);
      let bytes: string;
      try {
        bytes = String.fromCharCode(...Uint8Array.fromBase64(part));
      } catch {
        continue;
      }
      if (firstIn(bytes, 9, byteWindows) !== undefined) return `base64 run ${run}`;
    }
  }
  return undefined;
}

function assertNoKey(text: string, key: string, what: string): void {
  const found = findKey(text, key);
  ok(found === undefined, `${what}: the key can be read (${found}) in: ${text}`);
}

function direct(baseUrl: string, apiKey: string) {
  const config: VisionConfig = {
    route: "direct",
    baseUrl,
    apiKey,
    model: "m",
    timeoutMs: 5_000,
  };
  return createVision(config, { fetch, clock: realClock });
}

async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (error) {
    return error instanceof Error ? `${error.message} ${error.stack ?? ""}` : String(error);
  }
  throw new Error("the call did not fail");
}

Deno.test({
  name: "the checker itself finds every spelling before scrubbing",
  permissions: "none",
  fn() {
    for (const key of Object.values(KEYS)) {
      for (const [how, text] of Object.entries(spellings(key))) {
        ok(findKey(`x ${text} y`, key) !== undefined, `the checker misses ${how}`);
      }
    }
  },
});

Deno.test({
  name: "redact and scrubSecrets hide every spelling of a real-shaped key and nothing else",
  permissions: "none",
  fn() {
    for (const [shape, key] of Object.entries(KEYS)) {
      const secrets = keySecrets(key);
      for (const [how, text] of Object.entries(spellings(key))) {
        const said = `the server said ${text}, then OK at (5, 9).`;
        const redacted = redact(said, secrets);
        assertNoKey(redacted, key, `${shape} ${how}, redact`);
        assertNoKey(scrubSecrets(said, secrets), key, `${shape} ${how}, scrubSecrets`);
        ok(redacted.endsWith(", then OK at (5, 9)."), "the rest stays as written");
      }
    }
    // An answer without the key is left exactly as the model wrote it.
    const words = "Settings is open; TAP the Wi-Fi row at (540, 310). base64 aGVsbG8gd29ybGQ=";
    deepEqual(redact(words, keySecrets(KEYS["sk-proj-"])), words);
  },
});

Deno.test({
  name: "scrubSecrets says [redacted] once, never [redacted]]",
  permissions: "none",
  fn() {
    const key = KEYS["sk-"]!;
    const out = scrubSecrets(
      `{"authorization":"Bearer ${key}","api_key":"${key}"} (Bearer ${key}) token=${key}`,
      keySecrets(key),
    );
    ok(!out.includes("[redacted]]"), out);
    ok(!out.includes("[redacted][redacted]"), out);
    assertNoKey(out, key, "scrubbed");
  },
});

Deno.test("a redirect to http://<key>.evil.example/ is neither followed nor printed", async () => {
  for (const [shape, key] of Object.entries(KEYS)) {
    const server = startOpenAiServer({
      status: 302,
      headers: { location: `http://${key}.evil.example/v1/chat/completions?k=${key}` },
      body: "",
    });
    try {
      const said = await failure(direct(server.url, key).describe(png(8, 8), "q"));
      assertNoKey(said, key, shape);
      ok(!said.includes("evil.example"), `the target is named: ${said}`);
      ok(said.includes("302") && said.includes("does not follow redirects"), said);
      deepEqual(server.requests.length, 1, "never followed");
    } finally {
      await server.close();
    }
  }
});

Deno.test("a vision host echoing the key in any spelling, in bodies and headers, shows none of it", async () => {
  for (const [shape, key] of Object.entries(KEYS)) {
    const all = Object.values(spellings(key)).join(" | ");
    const server = startOpenAiServer({ apiKey: key });
    const vision = direct(server.url, key);
    try {
      // A 200 answer that quotes them all: the answer keeps its words, not the key.
      server.set({
        apiKey: key,
        answer: () => `I see ${all}. OK at (5, 9)`,
      });
      const answer = await vision.describe(png(8, 8), "q");
      assertNoKey(answer, key, `${shape}, answer`);
      ok(answer.endsWith("OK at (5, 9)"), answer);
      // Error bodies of every kind of failure, raw and in OpenAI's { error: { message } } shape.
      for (const status of [400, 404, 429, 500, 503]) {
        for (const body of [all, JSON.stringify({ error: { message: all } })]) {
          server.set({ status, body, headers: { "retry-after": `soon ${all}` } });
          assertNoKey(await failure(vision.describe(png(8, 8), "q")), key, `${shape}, ${status}`);
        }
      }
      // A 200 that is not a chat completion is quoted raw.
      server.set({ status: undefined, headers: undefined, body: `{"echo":"${all}"}` });
      assertNoKey(await failure(vision.describe(png(8, 8), "q")), key, `${shape}, bad body`);
    } finally {
      await vision.close();
      await server.close();
    }
  }
});

/**
 * `phone-eye --doctor`'s report in this process, wired as main.ts wires it, with no adb on PATH:
 * the vision line is the point. What main.ts adds is the header and the exit status.
 */
async function doctorReport(key: string, baseUrl: string): Promise<string> {
  const env: Record<string, string> = {
    PATH: "/nonexistent",
    PHONE_EYE_VISION_API_KEY: key,
    PHONE_EYE_VISION_BASE_URL: baseUrl,
  };
  const config = loadConfig((name) => env[name], { keyInClear: "report" });
  const run = createAdbRunner({ binary: "adb", env: { PATH: "/nonexistent" } });
  const vision = createVision(config.vision, { fetch, clock: realClock });
  try {
    return formatChecks(
      await runDoctor({
        config,
        phones: createPhones({
          set: config.phones,
          link: createLink({ run, timeoutMs: 1000 }),
          makeDevice: ({ serial }) => createDevice({ run, serial, timeoutMs: 1000 }),
        }),
        vision,
        query: async (descriptor) => (await Deno.permissions.query(descriptor)).state === "granted",
        build: { kind: "source", net: [] },
      }),
    );
  } finally {
    await vision.close();
  }
}

/** The issue's redirect with the hex key it leaked exactly, and echoes of the other shapes. */
const DOCTOR_CASES = [
  ["sk-or-v1-", {
    status: 302,
    headers: { location: `http://${KEYS["sk-or-v1-"]}.evil.example/` },
  }],
  ["sk-proj-", { status: 500, body: Object.values(spellings(KEYS["sk-proj-"]!)).join(" | ") }],
  ["AIza", {
    status: 429,
    headers: { "retry-after": KEYS["AIza"]!.toUpperCase() },
    body: b64(`Bearer ${KEYS["AIza"]}`),
  }],
  ["sk-", { status: 503, body: JSON.stringify({ error: { message: b64(`x:${KEYS["sk-"]}`) } }) }],
] as const;

function assertDoctorSaysNoKey(printed: string, shape: string, status: number): void {
  const key = KEYS[shape]!;
  ok(printed.includes(`[FAIL] vision does not answer`), printed);
  ok(printed.includes(`HTTP ${status}`), printed);
  assertNoKey(printed, key, `${shape}, doctor, HTTP ${status}`);
  ok(!printed.includes("evil.example"), printed);
}

Deno.test("the doctor's report on a host that echoes the key in any shape, or redirects to it, holds none of it", async () => {
  for (const [shape, trouble] of DOCTOR_CASES) {
    const server = startOpenAiServer(trouble);
    try {
      assertDoctorSaysNoKey(await doctorReport(KEYS[shape]!, server.url), shape, trouble.status);
      deepEqual(server.requests.length, 1, "the redirect was not followed");
    } finally {
      await server.close();
    }
  }
});

Deno.test("--doctor against a host that redirects to http://<key>.evil.example/ prints none of it", async () => {
  // The issue's case end to end: main.ts's own stdout and stderr (a process start; the other
  // shapes go through the same report in process, above).
  const [shape, trouble] = DOCTOR_CASES[0];
  const home = await Deno.makeTempDir({ prefix: "phone-eye-doctor-" });
  const server = startOpenAiServer(trouble);
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        ...await testPermissionFlags(),
        new URL("../../main.ts", import.meta.url).pathname,
        "--doctor",
      ],
      clearEnv: true,
      env: {
        // No adb: its lines fail at once and no adb server starts; the vision line is the point.
        PATH: "/nonexistent",
        HOME: home,
        DENO_DIR: await denoDir(),
        NO_COLOR: "1",
        PHONE_EYE_VISION_API_KEY: KEYS[shape]!,
        PHONE_EYE_VISION_BASE_URL: server.url,
      },
      stdin: "null",
    }).output();
    const printed = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    assertDoctorSaysNoKey(printed, shape, trouble.status);
    deepEqual(server.requests.length, 1, "the redirect was not followed");
  } finally {
    await server.close();
    await Deno.remove(home, { recursive: true });
  }
});
