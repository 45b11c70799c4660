// lib/adb/link.ts: every adb call that is not one phone's command (devices, get-state, connect,
// wait-for-device, version) runs within the server's HOST_SLOTS, however many calls arrive at once.

import assert from "node:assert/strict";
import { createDevice } from "../../lib/adb/device.ts";
import { createLink, HOST_SLOTS } from "../../lib/adb/link.ts";
import { createPhones } from "../../lib/adb/phones.ts";
import type { PhoneSet } from "../../lib/config/config.ts";
import { AgentError } from "../../lib/core/errors.ts";
import { EXIT_MARKER } from "../../lib/adb/exit_marker.ts";
import type { RunAdb } from "../../lib/adb/runner.ts";
import { exited } from "../helpers/fake_adb.ts";
import { heldRunner } from "./held_runner.ts";

/**
 * A phone registry and its Devices on one link over a held runner; `host` counts the host-wide
 * calls (any but a phone's shell or exec-out) alive at once, apart from the phones' own commands.
 */
function phonesOn(set: PhoneSet) {
  const adb = heldRunner();
  const host = { alive: 0, most: 0 };
  const run: RunAdb = async (args, limits) => {
    const hostWide = !args.includes("shell") && !args.includes("exec-out");
    if (hostWide) host.most = Math.max(host.most, ++host.alive);
    try {
      return await adb.run(args, limits);
    } finally {
      if (hostWide) host.alive -= 1;
    }
  };
  const link = createLink({ run, timeoutMs: 1000 });
  const phones = createPhones({
    set,
    link,
    makeDevice: (phone) => createDevice({ run, timeoutMs: 1000, ...phone }),
  });
  return { adb, host, link, phones };
}

Deno.test({
  name: "host-wide adb calls run at most HOST_SLOTS at once across the phones sharing a link",
  permissions: "none",
  async fn() {
    const { adb, link } = phonesOn({ kind: "default" });
    const devices = ["a", "b", "c"].map((serial) =>
      createDevice({ run: adb.run, serial, timeoutMs: 1000, link })
    );
    const calls = devices.flatMap((d) => [d.linkHealth(), link.host(["version"])]);
    let answered = 0;
    while (answered < calls.length) {
      const [call] = await adb.holding(1);
      call!.answer(exited(0, "ok"));
      answered += 1;
    }
    await Promise.all(calls);
    assert.equal(adb.most, HOST_SLOTS);
  },
});

Deno.test({
  name:
    "a thousand calls naming serials adb does not list run at most HOST_SLOTS adb processes at once",
  permissions: "none",
  async fn() {
    for (const set of [{ kind: "any" }, { kind: "default" }] as const) {
      const { adb, phones } = phonesOn(set);
      const calls = Array.from(
        { length: 1000 },
        (_, i) =>
          phones.resolve(`unknown-${i}`).then(
            () => "resolved",
            (error: unknown) => error instanceof AgentError ? error.code : String(error),
          ),
      );
      // Each call asks adb what it lists, once; the runner holds every process until answered.
      for (let answered = 0; answered < calls.length; answered++) {
        const [call] = await adb.holding(1);
        assert.equal(call!.line, "devices");
        call!.answer(exited(0, "List of devices attached\nR58N\tdevice\n\n"));
      }
      assert.deepEqual([...new Set(await Promise.all(calls))], ["UNKNOWN_PHONE"]);
      assert.equal(adb.most, HOST_SLOTS, `PHONE_EYE_DEVICES ${set.kind}`);
    }
  },
});

/** The answer a phone adb does not list yet gets, for each step of attaching it. */
function attachAnswer(line: string) {
  const serial = line.split(" ")[1]!;
  if (/ get-state$/.test(line)) return exited(1, "", `error: device '${serial}' not found\n`);
  if (/^connect /.test(line)) return exited(0, `connected to ${serial}\n`);
  if (/^devices$/.test(line)) return exited(0, "List of devices attached\n\n");
  if (/ shell wm size/.test(line)) {
    return exited(0, `Physical size: 1080x2400\n${EXIT_MARKER}0\n`);
  }
  return exited(0, ""); // wait-for-device
}

const listed = (count: number): PhoneSet => ({
  kind: "listed",
  serials: Array.from({ length: count }, (_, i) => `10.0.1.${i + 1}:5555`) as [
    string,
    ...string[],
  ],
  from: "PHONE_EYE_DEVICES",
});

Deno.test({
  name: "the roster connects forty listed addresses within HOST_SLOTS adb processes",
  permissions: "none",
  async fn() {
    const { adb, phones } = phonesOn(listed(40));
    const roster = phones.roster();
    // Per address: get-state ("not found"), connect, wait-for-device; then one `adb devices`.
    for (let answered = 0; answered < 40 * 3 + 1; answered++) {
      const [call] = await adb.holding(1);
      call!.answer(attachAnswer(call!.line));
    }
    assert.equal((await roster).length, 40);
    assert.equal(adb.lines.filter((l) => l.startsWith("connect ")).length, 40);
    assert.equal(adb.most, HOST_SLOTS);
  },
});

Deno.test({
  name: "twenty listed addresses used at once are attached within HOST_SLOTS adb processes",
  permissions: "none",
  async fn() {
    const { adb, host, phones } = phonesOn(listed(20));
    const sizes = Array.from(
      { length: 20 },
      async (_, i) => (await phones.resolve(`10.0.1.${i + 1}:5555`)).screenSize(),
    );
    for (let answered = 0; answered < 20 * 4; answered++) {
      const [call] = await adb.holding(1);
      call!.answer(attachAnswer(call!.line));
    }
    assert.equal((await Promise.all(sizes)).length, 20);
    // Each phone's own command (`wm size`) is its own process; the attaches are host-wide.
    assert.equal(host.most, HOST_SLOTS);
  },
});
