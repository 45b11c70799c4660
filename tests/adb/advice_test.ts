// Advice that fits the mode in force: a device error names the setting that picks the phones
// (ANDROID_SERIAL, PHONE_EYE_DEVICES, or the agent's device), never a phone outside
// PHONE_EYE_DEVICES; several phones and no device says to pass one; adb missing reads the same
// from every verb, phone_devices and the doctor.

import assert from "node:assert/strict";
import { classifyAdbFailure } from "../../lib/adb/classify.ts";
import { createDevice } from "../../lib/adb/device.ts";
import { type AttachedDevice, restated } from "../../lib/adb/errors.ts";
import { createLink } from "../../lib/adb/link.ts";
import { createPhones } from "../../lib/adb/phones.ts";
import type { RunAdb } from "../../lib/adb/runner.ts";
import { runDoctor } from "../../lib/app/doctor.ts";
import { loadConfig, type PhoneSet } from "../../lib/config/config.ts";
import { createVision } from "../../lib/vision/vision.ts";
import { exited, fakeAdb, rejectsWith } from "../helpers/fake_adb.ts";
import { connectInProcess, textOf } from "../helpers/in_process.ts";

const DEVICES: PhoneSet = {
  kind: "listed",
  serials: ["R58M123ABC", "192.168.1.20:5555"],
  from: "PHONE_EYE_DEVICES",
};
const SERIAL: PhoneSet = { kind: "listed", serials: ["R58M123ABC"], from: "ANDROID_SERIAL" };
const ANY: PhoneSet = { kind: "any" };

/** adb lists a near miss, one listed phone offline, and a phone nobody listed. */
const ATTACHED: AttachedDevice[] = [
  { serial: "R58M123ABD", state: "device" },
  { serial: "192.168.1.20:5555", state: "offline" },
  { serial: "STRANGER01", state: "device" },
];

/** The device error adb's `text` gives for a command on `serial`. */
function failure(text: string, serial: string | undefined) {
  const result = classifyAdbFailure(exited(1, "", text), {
    serial,
    command: "shell input tap 1 2",
    acts: false,
  });
  assert.ok(!result.ok, text);
  return result.error;
}

Deno.test({
  name:
    "a dead listed phone is advised in the words of the mode in force, naming no phone outside PHONE_EYE_DEVICES",
  permissions: "none",
  fn() {
    const dead = failure("error: device 'R58M123ABC' not found\n", "R58M123ABC");
    const listed = restated(dead, { attached: ATTACHED, set: DEVICES });
    assert.equal(
      listed.what,
      "no Android device reachable at R58M123ABC; of PHONE_EYE_DEVICES, adb sees: 192.168.1.20:5555 (offline)",
    );
    assert.match(listed.fix!, /^if "R58M123ABC" is mistyped in PHONE_EYE_DEVICES, whoever runs/);
    assert.match(listed.fix!, /for Wi-Fi run "adb connect <phone-ip>:5555" and list that address/);
    assert.doesNotMatch(listed.message, /ANDROID_SERIAL|R58M123ABD|STRANGER01/);
    assert.deepEqual(listed.attached, [{ serial: "192.168.1.20:5555", state: "offline" }]);
    assert.equal(
      restated(dead, { attached: ATTACHED.slice(2), set: DEVICES }).what,
      "no Android device reachable at R58M123ABC; adb sees none of PHONE_EYE_DEVICES",
    );

    // ANDROID_SERIAL names one phone: the whole list shows the right serial beside the typo.
    const single = restated(dead, { attached: ATTACHED, set: SERIAL });
    assert.match(single.what, /adb sees: R58M123ABD \(device\), 192\.168\.1\.20:5555 \(offline\)/);
    assert.match(single.fix!, /^if "R58M123ABC" is a typo, set ANDROID_SERIAL \(or --serial\)/);

    // With * the agent picks the phone.
    const any = restated(dead, { attached: ATTACHED, set: ANY });
    assert.match(any.fix!, /^if another phone is meant, give device with its serial/);
    assert.doesNotMatch(any.message, /ANDROID_SERIAL|PHONE_EYE_DEVICES/);
  },
});

Deno.test({
  name:
    "more than one device: without a serial the agent is told to pass device with the serials; a serial two answer to is fixed where the mode names it",
  permissions: "none",
  fn() {
    const several = restated(failure("error: more than one device/emulator\n", undefined), {
      attached: ATTACHED.slice(0, 1).concat(ATTACHED.slice(2)),
      set: { kind: "default" },
    });
    assert.equal(several.code, "MULTIPLE_DEVICES");
    assert.match(
      several.message,
      /adb sees: R58M123ABD \(device\), STRANGER01 \(device\); give device with the serial of the one to drive \(phone_devices lists them\)$/,
    );
    assert.doesNotMatch(several.message, /ANDROID_SERIAL|restart/);

    const twice = failure("adb: more than one device with serial model:Pixel\n", "model:Pixel");
    const fixes = [SERIAL, DEVICES, ANY].map((set) => restated(twice, { set }).fix);
    assert.deepEqual(fixes, [
      'set ANDROID_SERIAL (or --serial) to one exact serial from "adb devices"',
      'whoever runs phone-eye puts one exact serial from "adb devices" in PHONE_EYE_DEVICES instead',
      "give device with one exact serial from phone_devices",
    ]);
  },
});

Deno.test({
  name:
    "a listed address that will not attach is told in PHONE_EYE_DEVICES' words, naming only the listed phones",
  permissions: "none",
  async fn() {
    const adb = fakeAdb([
      [/get-state/, exited(1, "", "error: device '10.0.0.2:5555' not found\n")],
      [/^connect /, exited(1, "failed to connect to '10.0.0.2:5555': Connection refused\n")],
      [/^devices$/, exited(0, "List of devices attached\nSTRANGER01\tdevice\n\n")],
    ]);
    const phones = createPhones({
      set: { kind: "listed", serials: ["10.0.0.2:5555", "R58N"], from: "PHONE_EYE_DEVICES" },
      link: createLink({ run: adb.run, timeoutMs: 1000 }),
      makeDevice: (phone) => createDevice({ run: adb.run, timeoutMs: 1000, ...phone }),
    });
    const error = await rejectsWith(
      (await phones.resolve("10.0.0.2:5555")).screenSize(),
      "NO_DEVICE",
      /no Android device reachable at 10\.0\.0\.2:5555 .*; adb sees none of PHONE_EYE_DEVICES; if "10\.0\.0\.2:5555" is mistyped in PHONE_EYE_DEVICES/,
    );
    assert.doesNotMatch(error.message, /STRANGER01|ANDROID_SERIAL/);
  },
});

/** A runner for a machine where adb is not on PATH, as Deno reports it. */
const noAdb: RunAdb = () =>
  Promise.resolve({
    kind: "spawn-failed",
    error: Object.assign(new Error("Failed to spawn 'adb': entity not found"), {
      name: "NotFound",
    }),
  });

const NOT_ON_PATH = /adb was not found on PATH; install it with .*then restart phone-eye/;

Deno.test({
  name:
    "adb missing is said in the same words by every verb, phone_devices, the phone rule and the doctor, which blames no permission",
  permissions: "none",
  async fn() {
    for (const set of [{ kind: "default" }, ANY, DEVICES] as const) {
      const phones = createPhones({
        set,
        link: createLink({ run: noAdb, timeoutMs: 1000 }),
        makeDevice: (phone) => createDevice({ run: noAdb, timeoutMs: 1000, ...phone }),
      });
      const eye = await connectInProcess({ phones });
      try {
        const listed = await eye.client.callTool({ name: "phone_devices", arguments: {} });
        assert.match(textOf(listed), new RegExp(`^Cannot list the phones: ${NOT_ON_PATH.source}`));
        const key = await eye.client.callTool({
          name: "phone_key",
          arguments: { key: "home", settle: false },
        });
        const device = set.kind === "listed" ? "R58M123ABC" : "R58N";
        const named = await eye.client.callTool({
          name: "phone_key",
          arguments: { key: "home", settle: false, device },
        });
        for (const [result, what] of [[key, "without device"], [named, "with device"]] as const) {
          // Several listed phones and no device: which phone comes first, before any adb run.
          if (set.kind === "listed" && what === "without device") continue;
          assert.match(
            textOf(result),
            new RegExp(`^Cannot press a key: ${NOT_ON_PATH.source}`),
            `${set.kind}, ${what}`,
          );
        }
      } finally {
        await eye.close();
      }
    }

    const config = loadConfig(() => undefined);
    const checks = await runDoctor({
      config,
      phones: createPhones({
        set: config.phones,
        link: createLink({ run: noAdb, timeoutMs: 1000 }),
        makeDevice: (phone) => createDevice({ run: noAdb, timeoutMs: 1000, ...phone }),
      }),
      vision: createVision(config.vision),
      // Deno reports --allow-run=adb refused when there was no adb on PATH to grant it to.
      query: (descriptor) => Promise.resolve(descriptor.name !== "run"),
      build: { kind: "source", net: [] },
    });
    const adb = checks.find((c) => c.gate === "adb")!;
    assert.match(adb.detail.join("\n"), new RegExp(`^Cannot run adb: ${NOT_ON_PATH.source}`));
    const permissions = checks.find((c) => c.gate === "the permissions")!;
    assert.ok(
      permissions.detail.includes(
        "--  run adb: not judged, because adb is not on PATH (the run grant is given to the adb found there at start-up; see the adb line)",
      ),
      permissions.detail.join("\n"),
    );
    assert.ok(!permissions.detail.some((line) => line.startsWith("!!  run adb")));
  },
});
