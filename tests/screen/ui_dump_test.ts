// The one dump reader (lib/screen/ui_dump.ts) and the per-phone screen state (phone_screen.ts):
// /dev/tty refused once means files from then on, for plain and window-state reads alike.

import assert from "node:assert/strict";
import { createDevice } from "../../lib/adb/device.ts";
import { BEFORE_MAX_AGE_MS, createScreens } from "../../lib/screen/phone_screen.ts";
import { dumpFinished, readDump } from "../../lib/screen/ui_dump.ts";
import { exited, fakeAdb } from "../helpers/fake_adb.ts";

const XML = '<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0"></hierarchy>';
const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test({
  name: "a tty dump counts as whole only with its last words, also after long focus lines",
  permissions: "none",
  fn() {
    // A phone with several displays prints a focus line per display before the dump.
    const focus = Array.from(
      { length: 8 },
      (_, i) =>
        `  mCurrentFocus=Window{5f0e1d${i} u0 com.example.app.with.a.long.name/com.example.app.with.a.long.name.MainActivity}\n`,
    ).join("");
    assert.ok(focus.length > 512);
    assert.equal(dumpFinished(bytes(`${focus}${XML.slice(0, 60)}`)), false);
    assert.equal(dumpFinished(bytes(`${focus}${XML}UI hierchary dumped to: /dev/tty\n`)), true);
    assert.equal(dumpFinished(bytes(`${XML}UI hierchary dumped to: /dev/tty\n`)), true);
    assert.equal(dumpFinished(bytes("ERROR: could not get idle state.\n")), true);
    assert.equal(dumpFinished(bytes("/system/bin/sh: uiautomator: not found\n")), true);
    assert.equal(dumpFinished(new Uint8Array()), false);
  },
});

Deno.test({
  name:
    "a phone that refuses /dev/tty is learned once: its later reads, with or without the window state, go to a file",
  permissions: "none",
  async fn() {
    const adb = fakeAdb([
      [/exec-out .*uiautomator dump \/dev\/tty$/, exited(0, "UI hierchary dumped to: /dev/tty\n")],
      [/shell .*uiautomator dump '\/data\/local\/tmp\/phone-eye-/, exited(0, XML)],
    ]);
    const device = createDevice({ run: adb.run, serial: "R58N", timeoutMs: 1000 });
    const screens = createScreens();
    const screen = screens.of(device);
    assert.equal(screens.of(device), screen, "one PhoneScreen per Device");
    assert.equal(screen.dumpsToTty, true);

    const first = await readDump(screen);
    assert.ok(first.dump.ok);
    assert.equal(screen.dumpsToTty, false);
    const state = await readDump(screen, { windowState: true });
    assert.ok(state.dump.ok);
    assert.deepEqual(
      adb.calls.map((c) => [c.split(" ").slice(2, 4).join(" "), c.includes("dumpsys window")]),
      [["exec-out uiautomator", false], ["shell uiautomator", false], ["shell uiautomator", true]],
    );
    assert.match(adb.calls[2]!, /uiautomator dump '\/data\/local\/tmp\/phone-eye-/);

    // Another phone of the same server has learned nothing.
    const other = createDevice({ run: adb.run, serial: "R58M", timeoutMs: 1000 });
    assert.equal(screens.of(other).dumpsToTty, true);
  },
});

Deno.test({
  name: "the screen before an action is the last one read, taken once and only while recent",
  permissions: "none",
  fn() {
    const device = createDevice({ run: fakeAdb().run, serial: undefined, timeoutMs: 1000 });
    const screen = createScreens().of(device);
    const seen = screen.remember({ elements: [], at: 1_000 });
    assert.deepEqual(seen, {
      elements: [],
      focus: undefined,
      keyboard: undefined,
      at: 1_000,
      actions: { sent: 0, read: 0 },
    });
    assert.equal(screen.beginAction(1_000 + BEFORE_MAX_AGE_MS).before, seen);
    assert.equal(screen.beginAction(1_000).before, undefined, "taken, not copied");
    screen.remember({ elements: [], at: 1_000, focus: "a/.B", keyboard: true });
    assert.equal(screen.beginAction(1_001 + BEFORE_MAX_AGE_MS).before, undefined, "too old");
    screen.remember({ elements: [], at: 5_000 });
    screen.beginAction(5_000); // an action with settle: false takes it all the same
    assert.equal(screen.beginAction(5_000).before, undefined);
  },
});

Deno.test({
  name:
    "each action on a phone is counted, and a read says how many had begun when it was sent and when it came back",
  permissions: "none",
  fn() {
    const device = createDevice({ run: fakeAdb().run, serial: undefined, timeoutMs: 1000 });
    const screens = createScreens();
    const screen = screens.of(device);
    assert.equal(screen.actions, 0);
    const first = screen.beginAction(0);
    assert.deepEqual(first, { before: undefined, number: 1 });
    const sent = screen.actions;
    screen.beginAction(0); // another call's action lands while the read is on its way
    const read = screen.remember({ elements: [], at: 10, actionsSent: sent });
    assert.deepEqual(read.actions, { sent: 1, read: 2 });
    assert.deepEqual(screen.beginAction(10), { before: read, number: 3 });
    // Another phone of the same server counts its own.
    const other = createDevice({ run: fakeAdb().run, serial: "R58M", timeoutMs: 1000 });
    assert.equal(screens.of(other).actions, 0);
  },
});

Deno.test({
  name:
    "an action that sent nothing after all puts its screen back, unless another action began or a read came since",
  permissions: "none",
  fn() {
    const device = createDevice({ run: fakeAdb().run, serial: undefined, timeoutMs: 1000 });
    const screen = createScreens().of(device);
    const seen = screen.remember({ elements: [], at: 0 });
    const refused = screen.beginAction(0);
    screen.sentNothing(refused);
    const again = screen.beginAction(0);
    assert.deepEqual(again.before?.elements, seen.elements);
    assert.deepEqual(again.before?.actions, { sent: 1, read: 1 }, "as if read after the refusal");

    screen.remember({ elements: [], at: 0 });
    const mine = screen.beginAction(0);
    screen.beginAction(0);
    screen.sentNothing(mine);
    assert.equal(screen.beginAction(0).before, undefined, "another action began since");
  },
});
