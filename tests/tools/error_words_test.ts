// Every error text phone-eye hands an agent starts by saying it failed ("Cannot …", "Refused: …",
// "Failed …"): Codex flags no error to its model, so an isError result reaches it only as words
// (docs/clients.md). Walked two ways: the adb error builders over every kind of outcome,
// and every verb called in process with bad arguments and on a phone that fails every way.

import assert from "node:assert/strict";
import { createDevice } from "../../lib/adb/device.ts";
import { type AdbCallContext, AdbError, withAttached } from "../../lib/adb/errors.ts";
import { classifyAdbFailure, connectFailure } from "../../lib/adb/classify.ts";
import type { AdbOutcome } from "../../lib/adb/runner.ts";
import { failureWords } from "../../lib/core/errors.ts";
import { TOOLS } from "../../lib/tools/index.ts";
import { exited, fakeAdb, type FakeAnswer, timedOut } from "../helpers/fake_adb.ts";
import { connectInProcess, textOf } from "../helpers/in_process.ts";

/** The words an error text may open with. */
const FAILURE_WORDS = /^(Cannot|Refused|Failed)\b/;

const enc = new TextEncoder();

function spawnError(name: string, message = `Failed to spawn 'adb': ${name}`): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}

/** One of each kind of outcome the runner reports, and each adb error text the classifier knows. */
const FAULTS: Array<[string, FakeAnswer]> = [
  ["adb not on PATH", { kind: "spawn-failed", error: spawnError("NotFound") }],
  ["adb refused by the sandbox", { kind: "spawn-failed", error: spawnError("NotCapable") }],
  ["adb not executable", { kind: "spawn-failed", error: spawnError("PermissionDenied") }],
  ["adb not started", {
    kind: "spawn-failed",
    error: spawnError("Error", "Failed to spawn 'adb': E2BIG"),
  }],
  ["a timeout", timedOut(1000)],
  ["too much text", { kind: "too-large", stream: "stdout", capBytes: 1 << 20, output: "text" }],
  ["too much image", { kind: "too-large", stream: "stdout", capBytes: 64 << 20, output: "image" }],
  ["too much error text", {
    kind: "too-large",
    stream: "stderr",
    capBytes: 1 << 20,
    output: "text",
  }],
  ["a silent 255", exited(255)],
  ["two devices", exited(1, "", "error: more than one device/emulator")],
  [
    "unauthorized",
    exited(1, "", "error: device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set"),
  ],
  ["not found", exited(1, "", "error: device '127.0.0.1:5555' not found")],
  ["offline", exited(1, "", "error: device offline")],
  ["link closed", exited(1, "", "error: closed")],
  ["protocol fault", exited(1, "", "error: protocol fault (couldn't read status): Success")],
  ["an exit code", exited(3, "", "something odd")],
  ["a device command's own failure", exited(0, "", "", { status: 1 })],
  [
    "a failure line on stdout",
    exited(
      0,
      "Error: Activity not started, unknown error code -96\nException occurred while executing\n",
    ),
  ],
];

/** Valid calls of every verb (typing both ways: `input text` and ADB Keyboard). */
const CALLS: Array<[string, Record<string, unknown>]> = [
  ["phone_look", {}],
  ["phone_look", { question: "Where is Send?" }],
  ["phone_tap", { x: 10, y: 20 }],
  ["phone_tap", { x: 10, y: 20, count: 2 }],
  ["phone_tap", { x: 10, y: 20, hold_ms: 800 }],
  ["phone_swipe", { x1: 10, y1: 900, x2: 10, y2: 100 }],
  ["phone_type", { text: "hello" }],
  ["phone_type", { text: "héllo" }],
  ["phone_shot", {}],
  ["phone_key", { key: "home" }],
  ["phone_intent", { package: "com.android.settings" }],
  ["phone_intent", { data: "https://example.com" }],
  ["phone_intent", { component: "com.android.settings/.Settings" }],
];

/** Calls every verb refuses before anything reaches the phone. */
const BAD_CALLS: Array<[string, Record<string, unknown>]> = [
  ...TOOLS.map((t): [string, Record<string, unknown>] => [t.name, { zz_stray: 1 }]),
  ["phone_tap", {}],
  ["phone_tap", { x: -1, y: 5 }],
  ["phone_tap", { x: 1.5, y: 5 }],
  ["phone_tap", { x: "10", y: 5 }],
  ["phone_tap", { x: 5000, y: 5 }],
  ["phone_tap", { x: 5, y: 5, count: 2, hold_ms: 800 }],
  ["phone_swipe", { x1: 0, y1: 0, x2: 0, y2: 9000 }],
  ["phone_swipe", { x1: 0, y1: 0, x2: 0, y2: 9, duration: 900 }],
  ["phone_type", { text: "" }],
  ["phone_type", { text: "line1\nline2" }],
  ["phone_type", { text: "x".repeat(2001) }],
  ["phone_key", { key: "hoem" }],
  ["phone_key", { key: "9999" }],
  ["phone_key", { key: 6.5 }],
  ["phone_key", { key: "enter\u0000" }],
  ["phone_intent", {}],
  ["phone_intent", { package: "com.x;reboot" }],
  ["phone_intent", { data: "https://x.test/\ud800" }],
  ["phone_look", { question: "where\u001b[31m" }],
];

/** Every isError text of `calls` on a phone whose adb answers every call with `answer`. */
async function errorTexts(
  answer: FakeAnswer | FakeAnswer[],
  calls: Array<[string, Record<string, unknown>]>,
  serial: string | undefined,
): Promise<Array<{ call: string; text: string }>> {
  const adb = fakeAdb([[/./, answer]]);
  const device = createDevice({ run: adb.run, serial, timeoutMs: 1000 });
  const mcp = await connectInProcess({ device });
  const texts: Array<{ call: string; text: string }> = [];
  try {
    for (const [name, args] of calls) {
      const result = await mcp.client.callTool({ name, arguments: args });
      if (result.isError === true) {
        texts.push({ call: `${name} ${JSON.stringify(args)}`, text: textOf(result) });
      }
    }
  } finally {
    await mcp.close();
  }
  return texts;
}

function assertFailureWords(texts: Array<{ call: string; text: string }>): void {
  for (const { call, text } of texts) {
    assert.match(text, FAILURE_WORDS, `${call} answered:\n${text}`);
  }
}

Deno.test({
  name: "every refusal of bad arguments starts by saying it was refused",
  permissions: "none",
  async fn() {
    const texts = await errorTexts(exited(0), BAD_CALLS, "127.0.0.1:5555");
    assert.equal(texts.length, BAD_CALLS.length, "every bad call is refused");
    assertFailureWords(texts);
  },
});

Deno.test({
  name: "every verb's error on a phone that fails every way starts by saying it failed",
  permissions: "none",
  async fn() {
    const seen = new Set<string>();
    let count = 0;
    for (const serial of ["127.0.0.1:5555", undefined]) {
      for (const [fault, answer] of FAULTS) {
        const texts = await errorTexts(answer, CALLS, serial);
        assert.ok(texts.length > 0, `${fault}: no verb failed`);
        assertFailureWords(texts.map((t) => ({ ...t, call: `${fault}, ${t.call}` })));
        for (const t of texts) seen.add(t.call.split(" ", 1)[0]!);
        count += texts.length;
      }
      // The link drops once, then the phone answers: acting verbs say they may have happened.
      const texts = await errorTexts([exited(1, "", "error: closed"), exited(0)], CALLS, serial);
      assertFailureWords(texts);
      count += texts.length;
    }
    assert.deepEqual(
      [...seen].sort(),
      // phone_devices answers a failing adb with each phone's state, as information, not an error.
      TOOLS.map((t) => t.name).filter((name) => name !== "phone_devices").sort(),
      "every verb failed somewhere",
    );
    assert.ok(count > 200, `only ${count} error texts were walked`);
  },
});

Deno.test({
  name: "every adb error, worded by a verb, starts by saying it failed, for every outcome",
  permissions: "none",
  fn() {
    const messages: string[] = [];
    const tap = (error: AdbError) => failureWords("tap", error);
    for (const acts of [true, false]) {
      for (const serial of ["127.0.0.1:5555", "R58M123ABC", undefined]) {
        const ctx: AdbCallContext = { serial, command: "shell input tap 1 2", acts };
        for (const [, answer] of FAULTS) {
          for (const os of ["linux", "darwin", "windows"]) {
            const result = classifyAdbFailure(answer, ctx, os);
            if (result.ok) continue;
            // Facts, never a finished sentence: the verb words every one of them.
            assert.equal(result.error.said, undefined);
            messages.push(tap(result.error));
            messages.push(
              tap(withAttached(result.error, [
                { serial: "R58M123ABD", state: "device" },
                { serial: "emulator-5554", state: "offline" },
              ])),
              tap(withAttached(result.error, [])),
            );
          }
        }
      }
      const said: AdbOutcome[] = [
        {
          kind: "exited",
          code: 0,
          stdout: enc.encode("failed to authenticate to 1.2.3.4:5555"),
          stderr: "",
        },
        {
          kind: "exited",
          code: 0,
          stdout: enc.encode("failed to connect to 1.2.3.4:5555"),
          stderr: "",
        },
        { kind: "timeout", timeoutMs: 1000, stdout: new Uint8Array(), stderr: "" },
        { kind: "too-large", stream: "stdout", capBytes: 1 << 20, output: "text" },
        { kind: "spawn-failed", error: spawnError("NotFound") },
      ];
      for (const outcome of said) {
        const error = connectFailure(outcome, { serial: "1.2.3.4:5555", uncertain: acts });
        assert.ok(error instanceof AdbError);
        assert.equal(error.said, undefined);
        messages.push(tap(error));
      }
    }
    assert.ok(messages.length > 300, `only ${messages.length} messages were built`);
    for (const message of messages) assert.match(message, FAILURE_WORDS, message);
  },
});
