// The end-to-end rig itself: whatever way a test ends, phone-eye, the adb server and the phone are
// gone afterwards (the resource sanitizer catches a listener or a pipe left open).

import assert from "node:assert/strict";
import { type Rig, startRig } from "../helpers/rig.ts";

async function answers(port: number): Promise<boolean> {
  try {
    (await Deno.connect({ hostname: "127.0.0.1", port })).close();
    return true;
  } catch {
    return false;
  }
}

Deno.test("a test that throws still ends phone-eye, the adb server and the phone", async () => {
  let rig: Rig | undefined;
  await assert.rejects(async () => {
    await using r = await startRig();
    rig = r;
    assert.equal((await r.call("phone_key", { key: "home", settle: false })).isError, undefined);
    throw new Error("the test failed here");
  }, /the test failed here/);
  assert.ok(rig);
  await assert.rejects(rig.call("phone_key", { key: "home" }), /Not connected/);
  assert.equal(await answers(rig.adb.port), false, "the adb server still answers");
  assert.equal(await answers(rig.sim.port), false, "the phone still answers");
  assert.equal(await Deno.stat(rig.sim.root).then(() => true, () => false), false);
});

Deno.test("a phone-eye that cannot start fails the rig with its stderr, and the rest is torn down", async () => {
  await assert.rejects(
    startRig({ flags: ["--no-such-flag"] }),
    /phone-eye did not start: .*--no-such-flag/,
  );
});
