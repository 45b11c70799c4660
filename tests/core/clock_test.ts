// lib/core/clock.ts: a sleep ends when its clock reaches it or its signal aborts, and leaves no timer.
// The fake clock (tests/helpers/fake_clock.ts) is what the other tests advance instead of waiting.

import assert from "node:assert/strict";
import { realClock } from "../../lib/core/clock.ts";
import { FakeClock } from "../helpers/fake_clock.ts";

Deno.test("a sleep ends when the clock reaches it, not before", async () => {
  const clock = new FakeClock();
  let woke = false;
  const sleeping = clock.sleep(1_000).then(() => woke = true);
  await clock.advance(999);
  assert.equal(woke, false);
  await clock.advance(1);
  await sleeping;
  assert.equal(woke, true);
  assert.equal(clock.now(), 1_000);
  assert.equal(clock.pending, 0);
});

Deno.test("an aborted sleep rejects with the signal's reason and cancels its timer", async () => {
  const clock = new FakeClock();
  const controller = new AbortController();
  const sleeping = clock.sleep(60_000, controller.signal);
  assert.equal(clock.pending, 1);
  controller.abort(new Error("look cancelled"));
  await assert.rejects(sleeping, /look cancelled/);
  assert.equal(clock.pending, 0);
  await assert.rejects(clock.sleep(1, controller.signal), /look cancelled/);
  assert.equal(clock.pending, 0, "a sleep on an aborted signal sets no timer");
});

Deno.test("timers fire in order of their due time, each at its own time", async () => {
  const clock = new FakeClock();
  const fired: Array<[string, number]> = [];
  clock.setTimer(300, () => fired.push(["c", clock.now()]));
  clock.setTimer(100, () => {
    fired.push(["a", clock.now()]);
    clock.setTimer(100, () => fired.push(["b", clock.now()]));
  });
  const cancel = clock.setTimer(250, () => fired.push(["never", clock.now()]));
  cancel();
  await clock.advance(1_000);
  assert.deepEqual(fired, [["a", 100], ["b", 200], ["c", 300]]);
});

Deno.test("the real clock sleeps and can be cut short", async () => {
  const before = realClock.now();
  await realClock.sleep(0);
  assert.ok(realClock.now() >= before);
  const controller = new AbortController();
  const sleeping = realClock.sleep(60_000, controller.signal);
  controller.abort(new Error("stop"));
  // The test sanitizer fails the test if the 60 s timer were left running.
  await assert.rejects(sleeping, /stop/);
});
