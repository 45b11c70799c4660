// The adb layer under faults and hostile input: honest words after an action that may have
// happened, reconnects that do not cut each other, and control characters refused at the door.

import assert from "node:assert/strict";
import { screencapPngCommand, uiDumpCommand } from "../../lib/adb/screen_commands.ts";
import { tapCommand } from "../../lib/adb/input_commands.ts";
import { createDevice, type Device } from "../../lib/adb/device.ts";
import { OUTPUT_CAPS } from "../../lib/adb/runner.ts";
import { visionQuestion } from "../../lib/tools/phone_look.ts";
import { ToolInputError } from "../../lib/core/errors.ts";
import { exited, fakeAdb, type FakeAnswer, rejectsWith, timedOut } from "../helpers/fake_adb.ts";
import { connectInProcess, textOf } from "../helpers/in_process.ts";

const WIFI = "192.0.2.9:5555";
const closed = exited(1, "", "error: closed\n");
const offline = exited(1, "", "error: device offline\n");

// ---- item 6: after an action that may have happened, look before repeating it ----

/** Every acting verb: its call, the device command it sends, and its action in messages. */
const ACTING: ReadonlyArray<[string, Record<string, unknown>, RegExp, string]> = [
  ["phone_tap", { x: 540, y: 1200 }, /^input tap /, "tap"],
  ["phone_tap", { x: 540, y: 1200, hold_ms: 800 }, /^input swipe /, "long-press"],
  ["phone_swipe", { x1: 540, y1: 2000, x2: 540, y2: 600 }, /^input swipe /, "swipe"],
  ["phone_type", { text: "hello" }, /^input text /, "type text"],
  ["phone_key", { key: "home" }, /^input keyevent /, "press a key"],
  [
    "phone_intent",
    { data: "https://example.com/" },
    /^am start /,
    "start the intent",
  ],
  ["phone_intent", { package: "com.android.settings" }, /^monkey /, "start the intent"],
];

const SERIALS: ReadonlyArray<[string, string | undefined]> = [
  ["a USB serial", "R58M123ABC"],
  ["the default device", undefined],
  ["a Wi-Fi address", WIFI],
];

/** Outcomes after which nobody knows whether the phone acted, and `adb connect`'s answer. */
const UNKNOWN: ReadonlyArray<[string, FakeAnswer, FakeAnswer]> = [
  ["a timeout", timedOut(1000), exited(0, `connected to ${WIFI}\n`)],
  [
    "a reply cut short",
    exited(0, "", "", { cutShort: true }),
    exited(0, `connected to ${WIFI}\n`),
  ],
  ["a link error after sending", closed, exited(0, `already connected to ${WIFI}\n`)],
  // adb from 2024 on exits 255 with nothing on stderr when the link drops (docs/android.md, the adb client).
  ["a silent exit 255", exited(255), exited(0, `connected to ${WIFI}\n`)],
  [
    "a link error, then a failed reconnect",
    exited(1, "", "error: protocol fault (couldn't read status): Connection reset by peer\n"),
    exited(0, `failed to connect to '${WIFI}': Connection refused\n`),
  ],
  [
    "a flood of output",
    { kind: "too-large", stream: "stdout", capBytes: OUTPUT_CAPS.text, output: "text" },
    exited(0, `connected to ${WIFI}\n`),
  ],
];

Deno.test({
  name:
    "every acting verb, on every kind of serial, says an unknown outcome may have happened and to look first",
  permissions: "none",
  async fn() {
    let cases = 0;
    for (const [tool, args, sends, action] of ACTING) {
      for (const [serialKind, serial] of SERIALS) {
        for (const [outcomeKind, answer, connect] of UNKNOWN) {
          const adb = fakeAdb([
            [/input |am start|monkey/, answer],
            [/^connect /, connect],
          ]);
          const device = createDevice({ run: adb.run, serial, timeoutMs: 1000 });
          const mcp = await connectInProcess({ device });
          try {
            const result = await mcp.client.callTool({ name: tool, arguments: args });
            const text = textOf(result);
            const where = `${tool} ${JSON.stringify(args)} on ${serialKind} after ${outcomeKind}`;
            assert.equal(result.isError, true, where);
            assert.match(
              text,
              new RegExp(
                `^Cannot tell whether the phone did ${action}: .+\\. It may have happened: look at the screen \\(phone_look or phone_shot\\) before repeating it; `,
              ),
              `${where}: ${text}`,
            );
            assert.doesNotMatch(text, /then call the tool again/, where);
            assert.equal(adb.sent.filter((c) => sends.test(c)).length, 1, `${where}: repeated`);
            cases++;
          } finally {
            await mcp.close();
          }
        }
      }
    }
    assert.equal(cases, ACTING.length * SERIALS.length * UNKNOWN.length);
  },
});

Deno.test({
  name: "a timed-out tap does not claim it was stopped: input may still be running on the phone",
  permissions: "none",
  async fn() {
    const adb = fakeAdb([[/input tap/, timedOut(500)]]);
    const device = createDevice({ run: adb.run, serial: "R58M123ABC", timeoutMs: 500 });
    await rejectsWith(
      device.run(tapCommand(5, 6)),
      "TIMEOUT",
      /^"adb shell input tap 5 6" did not finish within 500 ms; adb was stopped, but the command may still be running on the phone; /,
      { uncertain: true },
    );
  },
});

Deno.test({
  name: "read-only verbs keep their plain words: nothing to look at before trying again",
  permissions: "none",
  async fn() {
    for (const [serialKind, serial] of SERIALS) {
      const adb = fakeAdb([[/screencap|uiautomator/, timedOut(1000)]]);
      const device = createDevice({ run: adb.run, serial, timeoutMs: 1000 });
      const mcp = await connectInProcess({ device });
      try {
        const shot = textOf(await mcp.client.callTool({ name: "phone_shot", arguments: {} }));
        assert.match(
          shot,
          /^Cannot take a screenshot: "adb exec-out screencap -p" did not finish within 1000 ms and was stopped; /,
          serialKind,
        );
        assert.doesNotMatch(shot, /may have happened/, serialKind);
      } finally {
        await mcp.close();
      }
    }
    // A USB link cut under a read: the plain words, and the way to call again.
    const adb = fakeAdb([[/uiautomator/, exited(0, "", "", { cutShort: true })]]);
    const device = createDevice({ run: adb.run, serial: undefined, timeoutMs: 1000 });
    await rejectsWith(
      device.run(uiDumpCommand("/data/local/tmp/x.xml")),
      "TRANSPORT",
      /^the phone's answer was cut short .*then call the tool again$/,
      { uncertain: false },
    );
  },
});

// ---- item 7: reconnects do not cut each other ----

/**
 * A Wi-Fi link whose device commands are held until the test answers them, one by one. Like a real
 * link, `adb disconnect` ends it: a command that began before the latest disconnect can only fail
 * with "error: closed", whatever answer the test gives it.
 */
function heldLink(connectAnswer: FakeAnswer = exited(0, `connected to ${WIFI}\n`)) {
  let epoch = 0;
  const held: Array<{ line: string; epoch: number; resolve: (a: FakeAnswer) => void }> = [];
  let arrived: (() => void) | undefined;
  const adb = fakeAdb([
    [/^disconnect /, () => {
      epoch++;
      return Promise.resolve(exited(0, `disconnected ${WIFI}\n`));
    }],
    [/^connect /, () => Promise.resolve(connectAnswer)],
    [/ (shell|exec-out) /, (line) =>
      new Promise<FakeAnswer>((resolve) => {
        held.push({ line, epoch, resolve });
        arrived?.();
      })],
  ]);
  /** Waits until a held command matching `pattern` has arrived; answer() releases it. */
  async function next(pattern: RegExp): Promise<{ answer(answer: FakeAnswer): void }> {
    for (;;) {
      const at = held.findIndex((h) => pattern.test(h.line));
      if (at >= 0) {
        const [call] = held.splice(at, 1);
        return { answer: (answer) => call!.resolve(call!.epoch === epoch ? answer : closed) };
      }
      await new Promise<void>((resolve) => arrived = resolve);
    }
  }
  return {
    device: createDevice({ run: adb.run, serial: WIFI, timeoutMs: 1000 }),
    calls: adb.calls,
    next,
    /** Waits for the next held command matching `pattern` and answers it. */
    async answer(pattern: RegExp, answer: FakeAnswer): Promise<void> {
      (await next(pattern)).answer(answer);
    },
  };
}

const count = (calls: string[], prefix: string) => calls.filter((c) => c.startsWith(prefix)).length;

Deno.test({
  name:
    "a read that fails after another call's reconnect replays on the new link instead of cutting it again",
  permissions: "none",
  async fn() {
    // phone_look's pattern: both channels are on the link when it drops; the screenshot's failure
    // arrives first and reconnects, the tree's a moment after that reconnect has ended.
    const link = heldLink();
    const shot = link.device.run(screencapPngCommand());
    const tree = link.device.run(uiDumpCommand("/data/local/tmp/a.xml"));
    const treeOnOldLink = await link.next(/uiautomator/);
    await link.answer(/screencap/, offline);
    // The screenshot's replay has arrived, so its reconnect has ended: only now does the tree's
    // failure arrive, from an attempt that began on the old link.
    const replay = await link.next(/screencap/);
    treeOnOldLink.answer(offline);
    await link.answer(/uiautomator/, exited(0, "<hierarchy/>"));
    replay.answer(exited(0, "PNG"));
    assert.equal((await shot).text, "PNG");
    assert.equal((await tree).text, "<hierarchy/>");
    assert.equal(count(link.calls, "disconnect "), 1);
    assert.equal(count(link.calls, "connect "), 1);
  },
});

Deno.test({
  name:
    "a tap cut by the drop is reported, and a read cut by the same drop replays without reconnecting",
  permissions: "none",
  async fn() {
    // The read arrives first: a read that arrives after a tap waits for it (queue.ts), so only an
    // earlier read is on the link beside the tap when it drops.
    const link = heldLink();
    const tree = link.device.run(uiDumpCommand("/data/local/tmp/a.xml"));
    const tap = link.device.run(tapCommand(5, 6));
    await link.answer(/input tap/, closed);
    await rejectsWith(tap, "RECONNECTED", /reconnected/, { uncertain: true });
    await link.answer(/uiautomator/, closed);
    await link.answer(/uiautomator/, exited(0, "<hierarchy/>"));
    assert.equal((await tree).text, "<hierarchy/>");
    assert.equal(count(link.calls, "disconnect "), 1);
    assert.equal(link.calls.filter((c) => c.includes("input tap")).length, 1);
  },
});

Deno.test({
  name:
    "a call that failed on the old link after a failed reconnect gets that answer for its own command",
  permissions: "none",
  async fn() {
    const link = heldLink(exited(0, `failed to connect to '${WIFI}': Connection refused\n`));
    const shot = link.device.run(screencapPngCommand());
    const tree = link.device.run(uiDumpCommand("/data/local/tmp/a.xml"));
    await link.answer(/screencap/, offline);
    await rejectsWith(shot, "NO_DEVICE", /^no Android device reachable/);
    await link.answer(/uiautomator/, offline);
    await rejectsWith(
      tree,
      "NO_DEVICE",
      /^no Android device reachable at 192\.0\.2\.9:5555 \(failed to connect/,
    );
    assert.equal(count(link.calls, "connect "), 1);
  },
});

Deno.test({
  name: "a call that began after the latest reconnect and fails reconnects again",
  permissions: "none",
  async fn() {
    const link = heldLink();
    const first = link.device.run(screencapPngCommand());
    await link.answer(/screencap/, offline);
    await link.answer(/screencap/, exited(0, "PNG"));
    await first;
    const second = link.device.run(screencapPngCommand());
    await link.answer(/screencap/, offline);
    await link.answer(/screencap/, exited(0, "PNG2"));
    assert.equal((await second).text, "PNG2");
    assert.equal(count(link.calls, "disconnect "), 2);
  },
});

// ---- item 8: control characters are refused at the door ----

/** A valid value for every free-form (string) argument of every tool. */
const VALID_STRINGS: Record<string, Record<string, string>> = {
  phone_look: { question: "Where is the Send button?", wait_for: "Saved", wait_gone: "Saved" },
  phone_tap: { element: "Settings" },
  phone_type: { text: "hello", element: "note_text" },
  phone_key: { key: "home" },
  phone_intent: {
    action: "android.intent.action.VIEW",
    data: "https://example.com/path",
    component: "com.android.chrome/.Main",
    package: "com.android.chrome",
  },
};

Deno.test({
  name: "a control character in any free-form argument of any tool is refused before adb runs",
  permissions: "none",
  async fn() {
    const adb = fakeAdb();
    const device: Device = createDevice({ run: adb.run, serial: undefined, timeoutMs: 1000 });
    const mcp = await connectInProcess({ device });
    try {
      const { tools } = await mcp.client.listTools();
      let checked = 0;
      for (const tool of tools) {
        const properties = (tool.inputSchema.properties ?? {}) as Record<
          string,
          { type?: string; anyOf?: Array<{ type?: string }> }
        >;
        for (const [field, schema] of Object.entries(properties)) {
          // A union that admits a string (phone_key's key: string or number) is free-form too.
          const types = schema.anyOf?.map((t) => t.type) ?? [schema.type];
          if (!types.includes("string")) continue;
          // Every verb's `device` (deviceArg) is a serial, checked by the same whitelist.
          const valid = VALID_STRINGS[tool.name]?.[field] ??
            (field === "device" ? "emulator-5554" : undefined);
          assert.ok(valid, `no valid value for ${tool.name}.${field}: add one to VALID_STRINGS`);
          for (const control of ["\0", "\x01", "\x1b", "\x7f", "\n", "\t", "\r"]) {
            // A question goes to the vision model, where line breaks and tabs are ordinary.
            if (tool.name === "phone_look" && /[\t\n\r]/.test(control)) continue;
            const value: string = `${valid.slice(0, 4)}${control}${valid.slice(4)}`;
            const result = await mcp.client.callTool({
              name: tool.name,
              arguments: { [field]: value },
            });
            const where: string = `${tool.name}.${field} = ${JSON.stringify(value)}`;
            assert.equal(result.isError, true, where);
            assert.match(textOf(result), /control character/, `${where}: ${textOf(result)}`);
            assert.doesNotMatch(textOf(result), /not found on PATH|could not be started/, where);
            checked++;
          }
        }
      }
      assert.ok(checked >= 7 * 6, `only ${checked} cases`);
      assert.deepEqual(adb.calls, [], "a refused argument reached adb");
    } finally {
      await mcp.close();
    }
  },
});

Deno.test({
  name: "a NUL in phone_intent's data is named as such, not reported as adb missing from PATH",
  permissions: "none",
  async fn() {
    const adb = fakeAdb();
    const device = createDevice({ run: adb.run, serial: undefined, timeoutMs: 1000 });
    const mcp = await connectInProcess({ device });
    try {
      const result = await mcp.client.callTool({
        name: "phone_intent",
        arguments: { data: "https://example.com/\0x" },
      });
      assert.equal(result.isError, true);
      assert.equal(
        textOf(result),
        "Cannot start the intent: Refused data: it contains a control character (NUL, U+0000), which phone_intent does not pass; remove it",
      );
      assert.deepEqual(adb.calls, []);
    } finally {
      await mcp.close();
    }
  },
});

Deno.test({
  name: "a question's line breaks and tabs reach the vision model as spaces; other controls do not",
  permissions: "none",
  fn() {
    assert.equal(visionQuestion("Where is\r\nSend?\tAnd Back?\n"), "Where is Send? And Back? ");
    assert.equal(visionQuestion(undefined), undefined);
    assert.throws(
      () => visionQuestion("Where\0 is Send?"),
      (error: unknown) =>
        error instanceof ToolInputError &&
        /^the question contains a control character \(NUL, U\+0000\)/.test(error.what),
    );
  },
});
