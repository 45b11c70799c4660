// The adb layer under faults and hostile input: reconnects that do not cut each other.

import assert from "node:assert/strict";
import { screencapPngCommand, tapCommand, uiDumpCommand } from "../lib/adb/commands.ts";
import { createDevice } from "../lib/adb/device.ts";
import { AdbError } from "../lib/adb/errors.ts";
import { exited, fakeAdb, type FakeAnswer } from "./helpers/fake_adb.ts";

const WIFI = "192.0.2.9:5555";
const closed = exited(1, "", "error: closed\n");
const offline = exited(1, "", "error: device offline\n");

async function rejectsWith(promise: Promise<unknown>, code: string, message?: RegExp) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof AdbError, String(error));
    assert.equal(error.code, code, error.message);
    if (message) assert.match(error.message, message);
    return true;
  });
}

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
    const shot = link.device.run(screencapPngCommand(), { action: "take a screenshot" });
    const tree = link.device.run(uiDumpCommand("/data/local/tmp/a.xml", false), {
      action: "read the UI tree",
    });
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
    const link = heldLink();
    const tap = link.device.run(tapCommand(5, 6), { action: "tap" });
    const tree = link.device.run(uiDumpCommand("/data/local/tmp/a.xml", false), {
      action: "read the UI tree",
    });
    await link.answer(/input tap/, closed);
    await rejectsWith(tap, "RECONNECTED");
    await link.answer(/uiautomator/, closed);
    await link.answer(/uiautomator/, exited(0, "<hierarchy/>"));
    assert.equal((await tree).text, "<hierarchy/>");
    assert.equal(count(link.calls, "disconnect "), 1);
    assert.equal(link.calls.filter((c) => c.includes("input tap")).length, 1);
  },
});

Deno.test({
  name:
    "a call that failed on the old link after a failed reconnect gets that answer in its own words",
  permissions: "none",
  async fn() {
    const link = heldLink(exited(0, `failed to connect to '${WIFI}': Connection refused\n`));
    const shot = link.device.run(screencapPngCommand(), { action: "take a screenshot" });
    const tree = link.device.run(uiDumpCommand("/data/local/tmp/a.xml", false), {
      action: "read the UI tree",
    });
    await link.answer(/screencap/, offline);
    await rejectsWith(shot, "NO_DEVICE", /^Cannot take a screenshot: no Android device reachable/);
    await link.answer(/uiautomator/, offline);
    await rejectsWith(
      tree,
      "NO_DEVICE",
      /^Cannot read the UI tree: no Android device reachable at 192\.0\.2\.9:5555 \(failed to connect/,
    );
    assert.equal(count(link.calls, "connect "), 1);
  },
});

Deno.test({
  name: "a call that began after the latest reconnect and fails reconnects again",
  permissions: "none",
  async fn() {
    const link = heldLink();
    const first = link.device.run(screencapPngCommand(), { action: "take a screenshot" });
    await link.answer(/screencap/, offline);
    await link.answer(/screencap/, exited(0, "PNG"));
    await first;
    const second = link.device.run(screencapPngCommand(), { action: "take a screenshot" });
    await link.answer(/screencap/, offline);
    await link.answer(/screencap/, exited(0, "PNG2"));
    assert.equal((await second).text, "PNG2");
    assert.equal(count(link.calls, "disconnect "), 2);
  },
});
