// Fuzz: malformed tool calls through the real SDK client and server (in process, a fake phone),
// and malformed JSON-RPC lines into main.ts over stdio (real adb, the simulated phone). Each gets a
// refusal it can read; none crashes or wedges the server.
//
// Seeded: the seed is printed, and PHONE_EYE_FUZZ_SEED=<seed> replays a run. PHONE_EYE_FUZZ_CALLS
// and PHONE_EYE_FUZZ_LINES change the counts: `deno task test` runs a sample of the calls (400,
// in process), and `deno task test:long` the full corpus (4000 calls, and 2000 lines into main.ts,
// which each cost a subprocess's time).

import assert from "node:assert/strict";
import { z } from "zod";
import { createDevice } from "../../lib/adb/device.ts";
import { TOOLS } from "../../lib/tools/index.ts";
import { fakeAdb } from "../helpers/fake_adb.ts";
import { connectInProcess, textOf } from "../helpers/in_process.ts";
import { type Random, seededRandom } from "../helpers/prng.ts";
import { type RawPhoneEye, type Reply, startRawPhoneEye } from "../helpers/raw_stdio.ts";
import { startRig } from "../helpers/rig.ts";

const CALLS = Number(Deno.env.get("PHONE_EYE_FUZZ_CALLS") ?? 400);
const LINES = Number(Deno.env.get("PHONE_EYE_FUZZ_LINES") ?? 200);
/**
 * Lines over the 10 MiB cap cost ~150 ms of CPU each (built, sent, read and discarded): a handful
 * proves the point in the long run, one in the sample (the reliability table sends another). The
 * lines with a megabyte argument cost ~50 ms each: the sample keeps three.
 */
const LONG_LINES = LINES >= 2000;
const HUGE_LINES = LONG_LINES ? 3 : 1;
const MEGABYTE_LINES = LONG_LINES ? Infinity : 3;

function announce(what: string, rng: Random): void {
  // deno-lint-ignore no-console
  console.error(`${what}: seed ${rng.seed} (replay with PHONE_EYE_FUZZ_SEED=${rng.seed})`);
}

// ---- malformed tool calls, generated from the tools' own schemas ----

interface JsonProperty {
  type?: "integer" | "number" | "string" | "boolean";
  anyOf?: JsonProperty[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
}

/** A field as the mutations see it: the JSON types it admits, and the string/integer bounds. */
interface Property {
  /** "integer" (only integers), "string", "string|number" (phone_key's key), or "boolean" (settle). */
  type: "integer" | "string" | "string|number" | "boolean";
  minimum?: number | undefined;
  maximum?: number | undefined;
  maxLength?: number | undefined;
}

function property(p: JsonProperty): Property {
  const types = new Set((p.anyOf ?? [p]).map((a) => a.type));
  const string = (p.anyOf ?? [p]).find((a) => a.type === "string");
  const type = types.has("string")
    ? (types.size > 1 ? "string|number" : "string")
    : types.has("boolean")
    ? "boolean"
    : "integer";
  return { type, minimum: p.minimum, maximum: p.maximum, maxLength: string?.maxLength };
}

const SCHEMAS = new Map(TOOLS.map((tool) => {
  const schema = z.toJSONSchema(tool.inputSchema, { io: "input" }) as {
    properties?: Record<string, JsonProperty>;
    required?: string[];
  };
  const properties = Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([name, p]) => [name, property(p)]),
  );
  return [tool.name, { properties, required: schema.required ?? [] }];
}));

/** A call each tool accepts: the base every mutation starts from. */
const VALID: Record<string, Record<string, unknown>> = {
  phone_look: { question: "Where is Notes?" },
  phone_tap: { x: 10, y: 10 },
  phone_swipe: { x1: 10, y1: 10, x2: 20, y2: 20 },
  phone_type: { text: "a" },
  phone_shot: {},
  phone_key: { key: "home" },
  phone_intent: { package: "com.android.settings" },
};

/** Values each string field refuses although they are strings of the right length. */
const REFUSED_STRINGS: Record<string, Record<string, readonly string[]>> = {
  phone_type: { text: ["naïve", "😀", "line1\nline2", "tab\there", "nul\0byte", "esc\x1b[31m"] },
  phone_key: { key: ["hoem", "KEYCODE_NOPE", "0", "99999", "-1", "back; reboot"] },
  phone_intent: {
    action: ["android.intent.action.VIEW;reboot", "a b", "$(id)", "..", "9start"],
    data: ["no-scheme", "https://x.test/$(id)", "https://x.test/a b", "`id`"],
    component: ["com.x", "com.x/", "/.Main", "com.x/.Main;id"],
    package: ["settings", "com..x", "com.x;reboot", "com.x&&id"],
  },
};

const MEGABYTE = "a".repeat(1024 * 1024);
const UNKNOWN_TOOLS = [
  "nope",
  "",
  "phone_tapp",
  "PHONE_TAP",
  "phone_tap ",
  " phone_tap",
  "phone-tap",
  "phone_tap\u0000",
  "phone_\ud800tap",
  "tools/call",
  "__proto__",
  "constructor",
  "x".repeat(100_000),
];
const ODD_VALUES: readonly unknown[] = [null, true, false, [], {}, [1], { x: 1 }, "12", ""];
const BAD_NUMBERS: readonly number[] = [
  NaN,
  Infinity,
  -Infinity,
  -1,
  1.5,
  -0.5,
  2 ** 53,
  -(2 ** 53),
  1e300,
  -1e300,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
];

interface MalformedCall {
  /** What was broken, for failure messages. */
  what: string;
  /** tools/call params as sent. */
  params: Record<string, unknown>;
}

function withLoneSurrogate(rng: Random, value: string): string {
  const at = rng.int(value.length + 1);
  const half = rng.pick(["\ud800", "\udbff", "\udc00", "\udfff"]);
  return value.slice(0, at) + half + value.slice(at);
}

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

/** One tools/call whose arguments no tool may accept. */
function malformedCall(rng: Random): MalformedCall {
  const name = rng.pick(TOOLS).name;
  const { properties, required } = SCHEMAS.get(name)!;
  const base = { ...VALID[name]! };
  const fields = Object.keys(properties);
  const call = (what: string, args: unknown): MalformedCall => ({
    what: `${name}: ${what}`,
    params: { name, arguments: args },
  });
  for (;;) {
    switch (rng.int(11)) {
      case 0: {
        const tool = rng.pick(UNKNOWN_TOOLS);
        return {
          what: `unknown tool ${JSON.stringify(tool.slice(0, 30))}`,
          params: { name: tool, arguments: rng.chance(0.5) ? {} : base },
        };
      }
      case 1: {
        if (required.length === 0) continue;
        const missing = rng.pick(required);
        const args = { ...base };
        delete args[missing];
        return call(`missing ${missing}`, args);
      }
      case 2: {
        const extra = rng.pick([
          "extra",
          "X",
          "duration",
          "hold",
          "text ",
          "constructor",
          "toString",
        ]);
        // Not "__proto__": the SDK's params schema rebuilds `arguments` and never copies that key,
        // so it reaches neither the tool nor its schema (harmless, and not refusable here).
        const args = JSON.parse(JSON.stringify(base));
        Object.defineProperty(args, extra, {
          value: rng.pick([1, "a", null, { a: 1 }]),
          enumerable: true,
          configurable: true,
          writable: true,
        });
        return call(`extra field ${extra}`, args);
      }
      case 3: {
        if (fields.length === 0) continue;
        const field = rng.pick(fields);
        const kind = properties[field]!.type;
        const value = rng.pick(
          ODD_VALUES.filter((v) =>
            !(kind.includes("string") && typeof v === "string") &&
            !(kind !== "string" && typeof v === "number") &&
            !(kind === "boolean" && typeof v === "boolean")
          ).concat(kind === "string" ? [5, 0, -1] : kind === "integer" ? ["10", "ten"] : []),
        );
        return call(`${field} = ${JSON.stringify(value)}`, { ...base, [field]: value });
      }
      case 4: {
        const ints = fields.filter((f) => properties[f]!.type === "integer");
        if (ints.length === 0) continue;
        const field = rng.pick(ints);
        const p = properties[field]!;
        const value = rng.pick([...BAD_NUMBERS, (p.minimum ?? 0) - 1, (p.maximum ?? 0) + 1]);
        return call(`${field} = ${value}`, { ...base, [field]: value });
      }
      case 5: {
        const strings = fields.filter((f) => properties[f]!.type.includes("string"));
        if (strings.length === 0) continue;
        const field = rng.pick(strings);
        const p = properties[field]!;
        const value = rng.chance(0.5)
          ? MEGABYTE
          : "b".repeat((p.maxLength ?? 2000) + 1 + rng.int(100));
        return call(`${field} of ${value.length} characters`, { ...base, [field]: value });
      }
      case 6: {
        const strings = fields.filter((f) => properties[f]!.type.includes("string"));
        if (strings.length === 0) continue;
        const field = rng.pick(strings);
        const start = typeof base[field] === "string" ? base[field] as string : "abc";
        return call(`lone surrogate in ${field}`, {
          ...base,
          [field]: withLoneSurrogate(rng, start),
        });
      }
      case 7: {
        const refused = REFUSED_STRINGS[name];
        if (refused === undefined) continue;
        const field = rng.pick(Object.keys(refused));
        const value = rng.pick(refused[field]!);
        return call(`${field} = ${JSON.stringify(value)}`, {
          ...(name === "phone_intent" ? {} : base),
          [field]: value,
        });
      }
      case 8: {
        // Wrong nesting: the arguments one level too deep, or not an object at all.
        const shape = rng.int(6);
        if (shape === 0) return call("arguments nested in arguments", { arguments: base });
        if (shape === 1) return call("arguments as an array", Object.values(base));
        if (shape === 2) return call("arguments as a string", JSON.stringify(base));
        if (shape === 3) return call("arguments null", null);
        if (shape === 4 && fields.length > 0) {
          const field = rng.pick(fields);
          return call(`${field} nested 1000 deep`, { ...base, [field]: nested(1000) });
        }
        if (required.length === 0 && name !== "phone_intent") continue;
        return { what: `${name}: arguments beside name`, params: { name, ...base } };
      }
      case 9: {
        // Points off the 1080×2400 screen in either orientation: valid numbers, refused places.
        if (name === "phone_tap") return call("off screen", { x: 2400 + rng.int(17_000), y: 5 });
        if (name === "phone_swipe") {
          return call("end off screen", { ...base, y2: 2400 + rng.int(17_000), x2: 1500 });
        }
        if (name === "phone_intent") return call("no field at all", {});
        continue;
      }
      case 10: {
        const params = rng.pick<Record<string, unknown>>([
          { name: 5, arguments: base },
          { name: null },
          { arguments: base },
          { name: [name] },
          { name: { name } },
        ]);
        return { what: `tools/call params ${JSON.stringify(params).slice(0, 60)}`, params };
      }
    }
  }
}

/** A stack trace line, or the wording of a failure nobody wrote for the agent. */
const UNCLEAR = /\n\s+at |\bat [\w.<>]+ \(.*:\d+:\d+\)|unexpected(ly)? error|failed unexpectedly/i;

function assertRefusal(
  label: string,
  outcome: { error: { code: number; message: string } } | { isError?: unknown; text: string },
): void {
  if ("error" in outcome) {
    assert.ok(
      [-32600, -32601, -32602].includes(outcome.error.code),
      `${label}: ${outcome.error.code}`,
    );
    assert.ok(outcome.error.message.length > 0, `${label}: empty error message`);
    assert.doesNotMatch(outcome.error.message, UNCLEAR, label);
    return;
  }
  assert.equal(outcome.isError, true, `${label} was not refused: ${outcome.text.slice(0, 300)}`);
  assert.ok(outcome.text.length > 0 && outcome.text.length < 10_000, `${label}: ${outcome.text}`);
  assert.doesNotMatch(outcome.text, UNCLEAR, label);
}

Deno.test({
  name: `${CALLS} malformed tool calls each get a readable refusal and nothing reaches the phone`,
  permissions: { env: ["PHONE_EYE_FUZZ_SEED"] },
  async fn() {
    const rng = seededRandom("PHONE_EYE_FUZZ_SEED");
    announce(`fuzz ${CALLS} tool calls`, rng);
    const adb = fakeAdb();
    const device = createDevice({ run: adb.run, serial: "127.0.0.1:5555", timeoutMs: 1000 });
    const mcp = await connectInProcess({ device });
    const kinds = new Map<string, number>();
    try {
      for (let i = 0; i < CALLS; i++) {
        const call = malformedCall(rng);
        const label = `seed ${rng.seed}, call ${i} (${call.what})`;
        const kind = call.what.replace(/^phone_\w+: /, "").split(/[ =]/)[0]!;
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
        let outcome: Parameters<typeof assertRefusal>[1];
        try {
          const result = await mcp.client.callTool(call.params as never);
          outcome = { isError: result.isError, text: textOf(result) };
        } catch (error) {
          const e = error as { code?: number; message?: string };
          assert.equal(typeof e.code, "number", `${label}: threw ${String(error)}`);
          outcome = { error: { code: e.code!, message: e.message ?? "" } };
        }
        assertRefusal(label, outcome);
      }
      // Nothing that acts ever reached the phone: only queries (the screen size for off-screen
      // points, the keyboards for non-ASCII text).
      const acting = /(^|; )(input|am|monkey|cmd) |ime (set|enable)|settings put/;
      assert.deepEqual([...new Set(adb.sent)].filter((c) => acting.test(c)), []);
      assert.deepEqual(mcp.logged, []);
      // The server still serves: a normal call answers.
      const tap = await mcp.client.callTool({
        name: "phone_tap",
        arguments: { x: 5, y: 6, settle: false },
      });
      assert.equal(textOf(tap), "Tapped (5, 6).");
      assert.equal(adb.sent.at(-1), "input tap 5 6");
      assert.ok(kinds.size >= 10, JSON.stringify([...kinds]));
    } finally {
      await mcp.close();
    }
  },
});

// ---- malformed JSON-RPC lines into main.ts ----

/** What the server must answer to one line. */
type Expect =
  | { answer: { id: string | number | null; code: number } }
  | { silent: true }
  /** A reply with this id that `check` accepts (the SDK's own answers: method not found, …). */
  | { reply: string | number; check: (reply: Reply) => void };

interface Line {
  what: string;
  bytes: Uint8Array;
  expect: Expect;
}

const enc = new TextEncoder();
const json = (value: unknown) => enc.encode(JSON.stringify(value));

/** JSON text of `value` with non-finite numbers as the literals JSON.parse reads as ±Infinity. */
function jsonWithInfinity(value: unknown): Uint8Array {
  const text = JSON.stringify(
    value,
    (_key, v) => typeof v === "number" && !Number.isFinite(v) ? `\u0001${v}` : v,
  );
  return enc.encode(
    text.replace(
      /"\\u0001(-?Infinity|NaN)"/g,
      (_, n) => n === "NaN" ? "null" : n.replace("Infinity", "1e999"),
    ),
  );
}

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const answer = (id: string | number | null, code: number): Expect => ({ answer: { id, code } });

/**
 * One line no client should send, and what it must get back. `n` makes ids unique. Without
 * `huge`, a line over the 10 MiB cap is not drawn (nor built); without `megabyte`, no line whose
 * string argument is a megabyte.
 */
function malformedLine(
  rng: Random,
  n: number,
  { huge, megabyte }: { huge: boolean; megabyte: boolean },
): Line {
  const id = rng.chance(0.5) ? n : `f${n}`;
  const request = (method: string, params?: unknown) => ({
    jsonrpc: "2.0",
    id,
    method,
    ...(params === undefined ? {} : { params }),
  });
  let kind = rng.int(16);
  while ((kind === 13 && !huge) || (kind === 15 && !megabyte)) kind = rng.int(16);
  switch (kind) {
    case 0: {
      const whole = JSON.stringify(request("tools/list"));
      const cut = 1 + rng.int(whole.length - 1);
      return {
        what: "truncated JSON",
        bytes: enc.encode(whole.slice(0, cut)),
        expect: answer(null, PARSE_ERROR),
      };
    }
    case 1: {
      const bytes = new Uint8Array(1 + rng.int(300));
      for (let i = 0; i < bytes.length; i++) {
        let b = rng.int(256);
        while (b === 0x0a) b = rng.int(256);
        bytes[i] = b;
      }
      // A first byte no JSON text can start with: the line is garbage whatever follows.
      bytes[0] = rng.pick([0x00, 0x01, 0x07, 0x1b, 0x7f, 0x80, 0xc3, 0xfe, 0xff, 0x23, 0x3c]);
      return { what: "binary garbage", bytes, expect: answer(null, PARSE_ERROR) };
    }
    case 2: {
      const text = rng.pick([
        "Content-Length: 52",
        "hello",
        "{'jsonrpc': '2.0'}",
        '{"jsonrpc":"2.0","id":1,"method":"ping",}',
        "NaN",
        "[".repeat(100_000),
        '{"a":'.repeat(50_000),
      ]);
      return {
        what: `not JSON: ${JSON.stringify(text.slice(0, 20))}`,
        bytes: enc.encode(text),
        expect: answer(null, PARSE_ERROR),
      };
    }
    case 3: {
      const version = rng.pick<unknown>(["1.0", "2", 2, 2.0, null, "2.0 ", undefined]);
      const message: Record<string, unknown> = { ...request("ping") };
      if (version === undefined) delete message.jsonrpc;
      else message.jsonrpc = version;
      return {
        what: `jsonrpc ${JSON.stringify(version)}`,
        bytes: json(message),
        expect: answer(id, INVALID_REQUEST),
      };
    }
    case 4: {
      const odd = rng.pick<unknown>([{}, [], true, false, 1.5, -0.5, 1e300, 2 ** 53, null, [1]]);
      return {
        what: `id ${JSON.stringify(odd)}`,
        bytes: json({
          jsonrpc: "2.0",
          id: odd,
          method: rng.pick(["ping", "tools/list", "tools/call"]),
        }),
        expect: answer(null, INVALID_REQUEST),
      };
    }
    case 5: {
      const method = rng.pick<unknown>([5, null, {}, [], true]);
      return {
        what: `method ${JSON.stringify(method)}`,
        bytes: json({ jsonrpc: "2.0", id, method }),
        expect: answer(id, INVALID_REQUEST),
      };
    }
    case 6: {
      const params = rng.pick<unknown>(["str", 5, [], [1, 2], true, null]);
      return {
        what: `params ${JSON.stringify(params)}`,
        bytes: json(request(rng.pick(["tools/call", "tools/list", "ping"]), params)),
        expect: answer(id, INVALID_REQUEST),
      };
    }
    case 7: {
      const batch = rng.pick<unknown[]>([[], [request("ping")], [1, 2], [
        request("tools/list"),
        request("ping"),
      ]]);
      return {
        what: `batch of ${batch.length}`,
        bytes: json(batch),
        expect: answer(null, INVALID_REQUEST),
      };
    }
    case 8: {
      const value = rng.pick<unknown>([42, "str", true, null, -1, 0]);
      return {
        what: `scalar ${JSON.stringify(value)}`,
        bytes: json(value),
        expect: answer(null, INVALID_REQUEST),
      };
    }
    case 9: {
      const value = rng.pick<unknown>([{}, { foo: 1 }, { jsonrpc: "2.0" }, {
        jsonrpc: "2.0",
        result: {},
      }, { jsonrpc: "2.0", id, error: "bad" }]);
      return {
        what: `object ${JSON.stringify(value)}`,
        bytes: json(value),
        expect: answer(null, INVALID_REQUEST),
      };
    }
    case 10: {
      // Valid messages that need no answer: an unknown notification, a response to nothing.
      const value = rng.pick<unknown>([
        {
          jsonrpc: "2.0",
          method: `notifications/${rng.pick(["nope", "x/y", "initialized2"])}`,
          params: {},
        },
        { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "never-sent" } },
        { jsonrpc: "2.0", method: "whatever/else" },
        { jsonrpc: "2.0", id: `r${n}`, result: {} },
        { jsonrpc: "2.0", id: `r${n}`, error: { code: -1, message: "no" } },
      ]);
      return {
        what: `needs no answer: ${JSON.stringify(value)}`,
        bytes: json(value),
        expect: { silent: true },
      };
    }
    case 11: {
      const method = rng.pick([
        "nope",
        "tools/nope",
        "resources/list",
        "prompts/get",
        "TOOLS/LIST",
        "",
        "a".repeat(5000),
      ]);
      return {
        what: `unknown method ${JSON.stringify(method.slice(0, 20))}`,
        bytes: json(request(method, {})),
        expect: {
          reply: id,
          check: (r) => assert.equal(r.error?.code, -32601, JSON.stringify(r).slice(0, 300)),
        },
      };
    }
    case 12: {
      const call = malformedCall(rng);
      return {
        what: `tools/call: ${call.what}`,
        bytes: jsonWithInfinity(request("tools/call", call.params)),
        expect: {
          reply: id,
          check: (r) => {
            const label = `line ${n} (tools/call: ${call.what})`;
            if (r.error) assertRefusal(label, { error: r.error });
            else assertRefusal(label, { isError: r.result?.isError, text: textOf(r.result ?? {}) });
          },
        },
      };
    }
    case 13: {
      // A line longer than the 10 MiB cap, with or without a message's shape.
      const size = 10 * 1024 * 1024 + 1 + rng.int(1024 * 1024);
      const text = rng.chance(0.5) ? "x".repeat(size) : JSON.stringify(
        request("tools/call", { name: "phone_type", arguments: { text: "t".repeat(size) } }),
      );
      return {
        what: `a line of ${text.length} bytes`,
        bytes: enc.encode(text),
        expect: answer(null, INVALID_REQUEST),
      };
    }
    case 14: {
      // Raw bytes that are not UTF-8 inside a string: refused by the wire, where they start, with
      // the request's id; never decoded as U+FFFD and typed (issue 17 item 8).
      const head = enc.encode(
        `{"jsonrpc":"2.0","id":${
          JSON.stringify(id)
        },"method":"tools/call","params":{"name":"phone_type","arguments":{"text":"a`,
      );
      const tail = enc.encode(`b"}}}`);
      const bad = new Uint8Array([0xff, 0xc3, 0x28, 0xed, 0xa0, 0x80]);
      return {
        what: "invalid UTF-8 inside a string",
        bytes: new Uint8Array([...head, ...bad, ...tail]),
        expect: {
          reply: id,
          check: (r) => {
            assert.equal(r.error?.code, -32700, `line ${n} (invalid UTF-8): ${JSON.stringify(r)}`);
            assert.match(r.error.message, new RegExp(`invalid UTF-8 at byte ${head.length} `));
          },
        },
      };
    }
    default: {
      // A string argument of a megabyte, well under the line cap: refused by its schema.
      const field = rng.pick(["text", "question"]);
      const tool = field === "text" ? "phone_type" : "phone_look";
      return {
        what: `a megabyte ${field}`,
        bytes: json(request("tools/call", { name: tool, arguments: { [field]: MEGABYTE } })),
        expect: {
          reply: id,
          check: (r) => {
            assertRefusal(`line ${n} (a megabyte ${field})`, {
              isError: r.result?.isError,
              text: textOf(r.result ?? {}),
            });
            assert.match(
              textOf(r.result ?? {}),
              /must be a string of (1 to |at most )2000 characters, not a string of \d+ characters/,
            );
          },
        },
      };
    }
  }
}

/** Sends one line and a ping after it; checks what came back for the line. */
async function sendLine(eye: RawPhoneEye, line: Line, n: number, seed: number): Promise<void> {
  const label = `seed ${seed}, line ${n} (${line.what})`;
  const ping = `ping-${n}`;
  const bytes = new Uint8Array(line.bytes.length + 1);
  bytes.set(line.bytes);
  bytes[line.bytes.length] = 0x0a;
  await eye.write(bytes);
  await eye.write(`${JSON.stringify({ jsonrpc: "2.0", id: ping, method: "ping" })}\n`);
  const expect = line.expect;
  const echoed = "reply" in expect
    ? expect.reply
    : "answer" in expect && expect.answer.id !== null
    ? expect.answer.id
    : undefined;
  const replies: Reply[] = [];
  if (echoed !== undefined) replies.push(await eye.until((m) => m.id === echoed));
  assert.deepEqual((await eye.until((m) => m.id === ping)).result, {}, label);
  // The wire answers a broken line before it reads the next, so a null-id answer precedes the ping.
  replies.push(...eye.drain());
  if ("silent" in expect) {
    assert.deepEqual(replies, [], `${label}: answered a message that needs no answer`);
  } else if ("answer" in expect) {
    assert.equal(replies.length, 1, `${label}: ${JSON.stringify(replies).slice(0, 500)}`);
    const [reply] = replies as [Reply];
    assert.equal(reply.id, expect.answer.id, label);
    assert.equal(reply.error?.code, expect.answer.code, `${label}: ${JSON.stringify(reply)}`);
    assert.doesNotMatch(reply.error?.message ?? "", UNCLEAR, label);
  } else {
    assert.equal(replies.length, 1, `${label}: ${JSON.stringify(replies).slice(0, 500)}`);
    try {
      expect.check(replies[0]!);
    } catch (error) {
      throw new Error(`${label}: ${(error as Error).message}`);
    }
  }
}

Deno.test({
  name:
    `${LINES} malformed JSON-RPC lines each get their JSON-RPC answer, and main.ts keeps serving`,
  ignore: Deno.env.get("PHONE_EYE_LONG") !== "1",
}, async () => {
  const rng = seededRandom("PHONE_EYE_FUZZ_SEED");
  announce(`fuzz ${LINES} JSON-RPC lines`, rng);
  await using rig = await startRig({ phoneEye: false });
  const eye = await startRawPhoneEye({ env: rig.env });
  try {
    // A broken line before the handshake is answered too, and the handshake still works after it.
    await sendLine(
      eye,
      { what: "garbage first", bytes: enc.encode("}{"), expect: answer(null, PARSE_ERROR) },
      -1,
      rng.seed,
    );
    const init = await eye.initialize();
    assert.equal((init.result?.serverInfo as { name?: string })?.name, "phone-eye");

    const kinds = new Map<string, number>();
    let huge = 0;
    let megabyte = 0;
    for (let n = 0; n < LINES; n++) {
      const line = malformedLine(rng, n, {
        huge: huge < HUGE_LINES,
        megabyte: megabyte < MEGABYTE_LINES,
      });
      if (line.bytes.length > 10 * 1024 * 1024) huge++;
      if (line.what.startsWith("a megabyte")) megabyte++;
      const kind = line.what.split(/[ :]/)[0]!;
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      await sendLine(eye, line, n, rng.seed);
    }
    assert.ok(kinds.size >= 12, JSON.stringify([...kinds]));

    // Still serving: the tool list, and a real tap that reaches the phone once.
    await eye.write(`${JSON.stringify({ jsonrpc: "2.0", id: "list", method: "tools/list" })}\n`);
    const list = await eye.until((m) => m.id === "list");
    assert.equal((list.result?.tools as unknown[]).length, TOOLS.length);
    await eye.write(
      `${
        JSON.stringify({
          jsonrpc: "2.0",
          id: "tap",
          method: "tools/call",
          params: { name: "phone_tap", arguments: { x: 7, y: 8, settle: false } },
        })
      }\n`,
    );
    const tap = await eye.until((m) => m.id === "tap");
    assert.equal(textOf(tap.result ?? {}), "Tapped (7, 8).");
    assert.deepEqual(
      rig.sim.toolCalls("input"),
      [["tap", "7", "8"]],
      "only the real tap reached the phone",
    );
    assert.doesNotMatch(eye.stderr(), UNCLEAR);
  } finally {
    const status = await eye.close();
    assert.equal(
      status.code,
      0,
      `phone-eye exited with ${status.code}: ${eye.stderr().slice(-2000)}`,
    );
  }
});
