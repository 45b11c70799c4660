// The classifier against every adb client text ANDROID.md records ("The adb client"), as adb 29.0.6
// prints them ("error: …") and as adb 34+ does ("adb: …" for `adb shell`, "error: …" still for
// exec-out), with the exit statuses each gives.

import assert from "node:assert/strict";
import { screencapPngCommand, tapCommand } from "../lib/adb/commands.ts";
import { createDevice } from "../lib/adb/device.ts";
import { AdbError, type AdbErrorCode, classifyAdbFailure } from "../lib/adb/errors.ts";
import type { AdbOutcome } from "../lib/adb/runner.ts";
import { exited, fakeAdb } from "./helpers/fake_adb.ts";

const WIFI = "192.0.2.9:5555";

/** How each client reports its own errors: the prefix and exit status per service. */
const FORMS = [
  { client: "adb 29, shell", prefix: "error: ", status: 1 },
  { client: "adb 29 and 34+, exec-out", prefix: "error: ", status: 255 },
  { client: "adb 34+, shell", prefix: "adb: ", status: 1 },
] as const;

const UNAUTHORIZED_LINES = (prefix: string) =>
  `${prefix}device unauthorized.\n` +
  "This adb server's $ADB_VENDOR_KEYS is not set\n" +
  "Try 'adb kill-server' if that seems wrong.\n" +
  "Otherwise check for a confirmation dialog on your device.\n";

/** Every text, the code it must get, and what the message must say, with and without a serial. */
const TEXTS: Array<{
  stderr: (prefix: string) => string;
  code: AdbErrorCode;
  withSerial: RegExp;
  withoutSerial: RegExp;
}> = [
  {
    stderr: (p) => `${p}device '${WIFI}' not found\n`,
    code: "NO_DEVICE",
    withSerial:
      /no Android device reachable at 192\.0\.2\.9:5555; run "adb connect 192\.0\.2\.9:5555"/,
    withoutSerial: /no Android device reachable; plug the phone in by USB/,
  },
  {
    stderr: (p) => `${p}no devices/emulators found\n`,
    code: "NO_DEVICE",
    withSerial: /no Android device reachable at 192\.0\.2\.9:5555/,
    withoutSerial: /no Android device reachable; plug the phone in/,
  },
  {
    stderr: (p) => `${p}device offline\n`,
    code: "NO_DEVICE",
    withSerial: /no Android device reachable at 192\.0\.2\.9:5555/,
    withoutSerial: /no Android device reachable/,
  },
  {
    stderr: (p) => `${p}device still connecting\n`,
    code: "NO_DEVICE",
    withSerial: /no Android device reachable at 192\.0\.2\.9:5555/,
    withoutSerial: /no Android device reachable/,
  },
  {
    stderr: (p) => `${p}more than one device/emulator\n`,
    code: "MULTIPLE_DEVICES",
    withSerial: /more than one Android device answers to "192\.0\.2\.9:5555".*exact serial/,
    withoutSerial:
      /more than one Android device is attached and no serial was chosen; set ANDROID_SERIAL/,
  },
  {
    // adb 29 for an -s that matches two devices.
    stderr: (p) => `${p}more than one device\n`,
    code: "MULTIPLE_DEVICES",
    withSerial: /answers to "192\.0\.2\.9:5555"/,
    withoutSerial: /no serial was chosen/,
  },
  {
    // adb 34+ for an -s that matches two devices (a model: name, or one phone on USB and Wi-Fi).
    stderr: (p) => `${p}more than one device with serial ${WIFI}\n`,
    code: "MULTIPLE_DEVICES",
    withSerial: /answers to "192\.0\.2\.9:5555" \(adb also matches -s against model:/,
    withoutSerial: /more than one Android device/,
  },
  {
    stderr: UNAUTHORIZED_LINES,
    code: "UNAUTHORIZED",
    withSerial:
      /the phone at 192\.0\.2\.9:5555 has not authorized this computer; unlock it and accept the "Allow USB debugging\?" prompt/,
    withoutSerial: /the phone has not authorized this computer/,
  },
  {
    stderr: (p) => `${p}device still authorizing\n`,
    code: "UNAUTHORIZED",
    withSerial: /has not authorized this computer; unlock it and accept/,
    withoutSerial: /has not authorized this computer/,
  },
  {
    stderr: (p) => `${p}closed\n`,
    code: "TRANSPORT",
    withSerial: /the link to the phone at 192\.0\.2\.9:5555 broke during the call/,
    withoutSerial: /the link to the phone broke during the call/,
  },
];

Deno.test({
  name: "every adb client error text is classified the same with error: and adb: prefixes",
  permissions: "none",
  fn() {
    for (const text of TEXTS) {
      for (const form of FORMS) {
        // "closed" keeps "error: " in adb 34 too (ANDROID.md); the classifier accepts both.
        const stderr = text.stderr(form.prefix);
        for (const serial of [WIFI, undefined]) {
          // The plain words (acts: false); an acting call's are adb_hostile_test.ts's.
          const ctx = { action: "tap", serial, command: "shell input tap 1 2", acts: false };
          const result = classifyAdbFailure(exited(form.status, "", stderr), ctx);
          const what = `${form.client}: ${JSON.stringify(stderr)}, serial ${serial}`;
          assert.ok(!result.ok, what);
          assert.equal(result.error.code, text.code, what);
          assert.match(result.error.message, /^Cannot tap: /, what);
          assert.match(
            result.error.message,
            serial === undefined ? text.withoutSerial : text.withSerial,
            what,
          );
        }
      }
    }
  },
});

Deno.test({
  name: "a silent exit 255 is a dropped link (adb from 2024 on), even with half a PNG",
  permissions: "none",
  fn() {
    const ctx = {
      action: "take a screenshot",
      serial: WIFI,
      command: "exec-out screencap -p",
      acts: false,
    };
    const halfPng: AdbOutcome = {
      kind: "exited",
      code: 255,
      stdout: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a]),
      stderr: "",
    };
    for (const outcome of [halfPng, exited(255, "", "")]) {
      const result = classifyAdbFailure(outcome, ctx);
      assert.ok(!result.ok);
      assert.equal(result.error.code, "TRANSPORT");
      assert.match(result.error.message, /link to the phone at 192\.0\.2\.9:5555 dropped/);
    }
    // adb 29 and 34 exit 0 there instead: the output is passed on (the PNG check and the exit
    // marker catch the cut), and a 255 that says why is the device's own or adb's known text.
    assert.equal(classifyAdbFailure({ ...halfPng, code: 0 }, ctx).ok, true);
    const said = classifyAdbFailure(exited(255, "", "/system/bin/sh: x: not found\n"), ctx);
    assert.equal(said.ok ? null : said.error.code, "COMMAND_FAILED");
  },
});

Deno.test({
  name: "a silent 255 on Wi-Fi reconnects; a tap is then not repeated, a screenshot is",
  permissions: "none",
  async fn() {
    const adb = fakeAdb([
      [/input tap/, exited(255, "", "")],
      [/exec-out screencap/, [exited(255, "PNG-ha", ""), exited(0, "PNG-whole-IEND")]],
      [/^connect /, exited(0, `connected to ${WIFI}\n`)],
    ]);
    const device = createDevice({ run: adb.run, serial: WIFI, timeoutMs: 1000 });
    await assert.rejects(device.run(tapCommand(1, 2), { action: "tap" }), (error: unknown) => {
      assert.ok(error instanceof AdbError);
      assert.equal(error.code, "RECONNECTED");
      return true;
    });
    const shot = await device.run(screencapPngCommand(), {
      action: "take a screenshot",
    });
    assert.equal(shot.text, "PNG-whole-IEND");
    assert.equal(adb.sent.filter((c) => c === "input tap 1 2").length, 1);
    assert.equal(adb.sent.filter((c) => c === "screencap -p").length, 2);
  },
});
