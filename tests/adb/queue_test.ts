// The phone's queue through a Device with an injected runner that holds each adb call until the test
// answers it: processes at once, action order, shared reads, the busy refusal, and cancels.

import assert from "node:assert/strict";
import {
  screencapPngCommand,
  uiDumpCommand,
  uiDumpToTtyCommand,
} from "../../lib/adb/screen_commands.ts";
import { tapCommand } from "../../lib/adb/input_commands.ts";
import { createDevice } from "../../lib/adb/device.ts";
import { CALLS_MAX, createPhoneQueue, PHONE_SLOTS } from "../../lib/adb/queue.ts";
import { EXIT_MARKER } from "../../lib/adb/exit_marker.ts";
import { exited, rejectsWith } from "../helpers/fake_adb.ts";
import { heldRunner } from "./held_runner.ts";

const png = (text: string) => exited(0, text);
/** A text command's answer as the phone gives it: its output, then the exit marker's line. */
const shellOk = (_line: string, out = "") => exited(0, `${out}${EXIT_MARKER}0\n`);

Deno.test({
  name: "identical reads in flight share one adb process and each gets its answer",
  permissions: "none",
  async fn() {
    const adb = heldRunner();
    const device = createDevice({ run: adb.run, serial: "emulator-5554", timeoutMs: 1000 });
    const shots = Array.from(
      { length: 20 },
      () => device.run(screencapPngCommand()),
    );
    const [capture] = await adb.holding(1);
    capture!.answer(png("PNG"));
    const texts = await Promise.all(shots.map(async (s) => (await s).text));
    assert.deepEqual(texts, Array(20).fill("PNG"));
    assert.equal(adb.lines.length, 1);
    // Once answered the run is closed: a later read is a new capture.
    const later = device.run(screencapPngCommand());
    (await adb.holding(1))[0]!.answer(png("PNG2"));
    assert.equal((await later).text, "PNG2");
    assert.equal(adb.lines.length, 2);
  },
});

Deno.test({
  name:
    "reads share by what they read, whoever asks: two screenshots are one, a dump is not a screenshot",
  permissions: "none",
  async fn() {
    const adb = heldRunner();
    const device = createDevice({ run: adb.run, serial: "emulator-5554", timeoutMs: 1000 });
    // phone_shot's screenshot and phone_look's for the vision model read the same: one capture.
    const a = device.run(screencapPngCommand());
    const b = device.run(screencapPngCommand());
    const c = device.run(uiDumpToTtyCommand());
    const d = device.run(uiDumpToTtyCommand({ compressed: true }));
    const calls = await adb.holding(3);
    for (const call of calls) call.answer(png(`${call.line} dumped to: /dev/tty`));
    const [shotA, shotB] = await Promise.all([a, b, c, d]);
    assert.equal(shotA.text, shotB.text);
    assert.equal(adb.lines.length, 3);
    // The command's status read by the caller (ownStatus) changes what a run returns: not shared.
    const own = device.run(uiDumpToTtyCommand(), { ownStatus: true });
    const plain = device.run(uiDumpToTtyCommand());
    for (const call of await adb.holding(2)) call.answer(png(`${call.line} dumped to: /dev/tty`));
    await Promise.all([own, plain]);
    assert.equal(adb.lines.length, 5);
  },
});

Deno.test({
  name: "never more than PHONE_SLOTS adb processes for one phone, and every read still ends",
  permissions: "none",
  async fn() {
    const adb = heldRunner();
    const device = createDevice({ run: adb.run, serial: "emulator-5554", timeoutMs: 1000 });
    // Distinct reads (a fresh dump path each): nothing to share.
    const reads = Array.from(
      { length: 20 },
      (_, i) => device.run(uiDumpCommand(`/data/local/tmp/${i}.xml`)),
    );
    let answered = 0;
    while (answered < 20) {
      const [call] = await adb.holding(1);
      assert.ok(adb.alive <= PHONE_SLOTS);
      call!.answer(shellOk(call!.line, "<hierarchy/>"));
      answered += 1;
    }
    await Promise.all(reads);
    assert.equal(adb.most, PHONE_SLOTS);
  },
});

Deno.test({
  name:
    "actions run one at a time in arrival order, and a read that arrives after one waits for it",
  permissions: "none",
  async fn() {
    const adb = heldRunner();
    const device = createDevice({ run: adb.run, serial: "emulator-5554", timeoutMs: 1000 });
    const taps = [1, 2, 3].map((x) => device.run(tapCommand(x, 9)));
    const shot = device.run(screencapPngCommand());
    for (const x of [1, 2, 3]) {
      const held = await adb.holding(1);
      assert.equal(held.length, 1, "one action at a time, nothing beside it");
      assert.match(held[0]!.line, new RegExp(`input tap ${x} 9`));
      held[0]!.answer(shellOk(held[0]!.line));
      await taps[x - 1];
    }
    (await adb.next(/screencap/)).answer(png("PNG"));
    assert.equal((await shot).text, "PNG");
    assert.deepEqual(
      adb.lines.map((l) => /input tap \d|screencap/.exec(l)?.[0]),
      ["input tap 1", "input tap 2", "input tap 3", "screencap"],
    );
  },
});

Deno.test({
  name: "a read after an action never shares the capture taken before it",
  permissions: "none",
  async fn() {
    const adb = heldRunner();
    const device = createDevice({ run: adb.run, serial: "emulator-5554", timeoutMs: 1000 });
    const before = device.run(screencapPngCommand());
    const tap = device.run(tapCommand(1, 1));
    const after = device.run(screencapPngCommand());
    const held = await adb.holding(2); // the first capture and the tap, which does not wait for it
    held.find((h) => /screencap/.test(h.line))!.answer(png("BEFORE"));
    const tapCall = held.find((h) => /input tap/.test(h.line))!;
    tapCall.answer(shellOk(tapCall.line));
    await tap;
    (await adb.next(/screencap/)).answer(png("AFTER"));
    assert.equal((await before).text, "BEFORE");
    assert.equal((await after).text, "AFTER");
  },
});

Deno.test({
  name: "past CALLS_MAX calls a phone refuses at once with busy, and takes calls again once free",
  permissions: "none",
  async fn() {
    const adb = heldRunner();
    const device = createDevice({ run: adb.run, serial: "emulator-5554", timeoutMs: 1000 });
    const shots = Array.from(
      { length: CALLS_MAX },
      () => device.run(screencapPngCommand()),
    );
    await rejectsWith(
      device.run(tapCommand(1, 1)),
      "BUSY",
      new RegExp(
        `^busy: ${CALLS_MAX} calls are waiting for this phone; wait for them to finish`,
      ),
    );
    (await adb.holding(1))[0]!.answer(png("PNG"));
    await Promise.all(shots);
    const tap = device.run(tapCommand(1, 1));
    const call = await adb.next(/input tap/);
    call.answer(shellOk(call.line));
    await tap;
  },
});

Deno.test({
  name: "a cancelled call that is still queued leaves the queue without running",
  permissions: "none",
  async fn() {
    const adb = heldRunner();
    const device = createDevice({ run: adb.run, serial: "emulator-5554", timeoutMs: 1000 });
    const first = device.run(tapCommand(1, 1));
    const cancel = new AbortController();
    const second = device.run(tapCommand(2, 2), { signal: cancel.signal });
    const third = device.run(tapCommand(3, 3));
    const running = await adb.next(/input tap 1/);
    cancel.abort();
    await rejectsWith(second, "CANCELLED", /^the client cancelled the call/);
    running.answer(shellOk(running.line));
    await first;
    const next = await adb.next(/input tap/);
    assert.match(next.line, /input tap 3 3/);
    next.answer(shellOk(next.line));
    await third;
    assert.equal(adb.lines.filter((l) => l.includes("input tap 2")).length, 0);
  },
});

Deno.test({
  name: "a cancelled read kills its adb at once and frees its slot, with no reconnect or replay",
  permissions: "none",
  async fn() {
    const adb = heldRunner();
    // A Wi-Fi serial: a failed read there would normally reconnect and replay.
    const device = createDevice({ run: adb.run, serial: "192.0.2.9:5555", timeoutMs: 1000 });
    const cancel = new AbortController();
    const shot = device.run(screencapPngCommand(), {
      signal: cancel.signal,
    });
    await adb.holding(1);
    cancel.abort();
    await rejectsWith(shot, "CANCELLED");
    assert.equal(adb.killed, 1);
    assert.equal(adb.alive, 0);
    assert.equal(adb.lines.length, 1, "no get-state, connect or replay after a cancel");
  },
});

Deno.test({
  name: "a shared read is killed only when every caller sharing it has cancelled",
  permissions: "none",
  async fn() {
    const adb = heldRunner();
    const device = createDevice({ run: adb.run, serial: "emulator-5554", timeoutMs: 1000 });
    const cancels = [new AbortController(), new AbortController(), new AbortController()];
    const shots = cancels.map((c) => device.run(screencapPngCommand(), { signal: c.signal }));
    const [capture] = await adb.holding(1);
    cancels[0]!.abort();
    cancels[1]!.abort();
    await rejectsWith(shots[0]!, "CANCELLED");
    await rejectsWith(shots[1]!, "CANCELLED");
    assert.equal(adb.killed, 0, "one caller still reads it");
    capture!.answer(png("PNG"));
    assert.equal((await shots[2]!).text, "PNG");

    const again = [new AbortController(), new AbortController()];
    const both = again.map((c) => device.run(screencapPngCommand(), { signal: c.signal }));
    await adb.holding(1);
    for (const c of again) c.abort();
    for (const s of both) await rejectsWith(s, "CANCELLED");
    assert.equal(adb.killed, 1);
    assert.equal(adb.alive, 0);
  },
});

Deno.test({
  name: "an action already sent is let finish after a cancel, its result dropped, its turn kept",
  permissions: "none",
  async fn() {
    const adb = heldRunner();
    const device = createDevice({ run: adb.run, serial: "emulator-5554", timeoutMs: 1000 });
    const cancel = new AbortController();
    const tap = device.run(tapCommand(1, 1), { signal: cancel.signal });
    const shot = device.run(screencapPngCommand());
    const running = await adb.next(/input tap/);
    assert.equal(running.limits.signal, undefined, "an action's adb is never given a signal");
    cancel.abort();
    await rejectsWith(tap, "CANCELLED");
    assert.equal(adb.alive, 1, "the tap still runs");
    assert.equal(adb.held.length, 1, "the screenshot that arrived after it still waits");
    running.answer(shellOk(running.line));
    (await adb.next(/screencap/)).answer(png("PNG"));
    assert.equal((await shot).text, "PNG");
    assert.equal(adb.killed, 0);
  },
});

Deno.test({
  name: "a call whose signal is already aborted never reaches adb",
  permissions: "none",
  async fn() {
    const adb = heldRunner();
    const device = createDevice({ run: adb.run, serial: "emulator-5554", timeoutMs: 1000 });
    const signal = AbortSignal.abort();
    await rejectsWith(device.run(tapCommand(1, 1), { signal }), "CANCELLED");
    await rejectsWith(
      device.run(screencapPngCommand(), { signal }),
      "CANCELLED",
    );
    assert.equal(adb.lines.length, 0);
  },
});

Deno.test({
  name: "the queue answers a job that throws before its first await like any failure",
  permissions: "none",
  async fn() {
    const queue = createPhoneQueue({ slots: 1, callsMax: 2 });
    await assert.rejects(
      queue.run({
        acts: false,
        work: () => {
          throw new Error("at once");
        },
      }),
      /at once/,
    );
    assert.equal(queue.held, 0);
    assert.equal(queue.running, 0);
  },
});
