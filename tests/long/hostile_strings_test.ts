// The whole hostile-string corpus (tests/fixtures/hostile_strings.ts) through phone-eye, each adb
// client and the simulated phone's real sh. The fast suite sends one payload per class of shell
// trick (e2e_hand_test.ts); this file, run by `deno task test:long`, sends every one.

import assert from "node:assert/strict";
import { adbClients, testThroughEach } from "../helpers/adb_clients.ts";
import { startRig } from "../helpers/rig.ts";
import { hostileStrings } from "../fixtures/hostile_strings.ts";
import { sendHostile } from "../helpers/hostile_through_adb.ts";

const { clients } = await adbClients();

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

testThroughEach(
  clients,
  "every hostile string reaches the phone's real sh as one argument or is refused, and nothing runs",
  async (_t, adb) => {
    await using r = await startRig({ adbBinary: adb });
    const { typed, started } = await sendHostile(r, hostileStrings(r.sim.marker));
    assert.ok(typed >= 30 && started >= 3, `typed ${typed}, started ${started}`);
    assert.equal(await exists(r.sim.marker), false, "a hostile string executed on the phone");
  },
);
