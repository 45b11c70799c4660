// The classifier against every adb client text docs/android.md records (the adb client), as adb 29.0.6
// prints them ("error: …") and as adb 34+ does ("adb: …" for `adb shell`, "error: …" still for
// exec-out), with the exit statuses each gives.

import assert from "node:assert/strict";
import { screencapPngCommand } from "../../lib/adb/screen_commands.ts";
import { tapCommand } from "../../lib/adb/input_commands.ts";
import { createDevice } from "../../lib/adb/device.ts";
import { parseAdbDevices } from "../../lib/adb/attached.ts";
import {
  AdbError,
  type AdbErrorCode,
  adbSees,
  troubleFacts,
  withAttached,
} from "../../lib/adb/errors.ts";
import { classifyAdbFailure } from "../../lib/adb/classify.ts";
import type { AdbOutcome } from "../../lib/adb/runner.ts";
import { exited, fakeAdb } from "../helpers/fake_adb.ts";

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
      /more than one Android device is attached and no serial was chosen; give device with the serial of the one to drive/,
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
        // "closed" keeps "error: " in adb 34 too (docs/android.md); the classifier accepts both.
        const stderr = text.stderr(form.prefix);
        for (const serial of [WIFI, undefined]) {
          // The plain facts (acts: false); an acting call's are adb_hostile_test.ts's.
          const ctx = { serial, command: "shell input tap 1 2", acts: false };
          const result = classifyAdbFailure(exited(form.status, "", stderr), ctx);
          const what = `${form.client}: ${JSON.stringify(stderr)}, serial ${serial}`;
          assert.ok(!result.ok, what);
          assert.equal(result.error.code, text.code, what);
          assert.equal(result.error.uncertain, false, what);
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
    await assert.rejects(device.run(tapCommand(1, 2)), (error: unknown) => {
      assert.ok(error instanceof AdbError);
      assert.equal(error.code, "RECONNECTED");
      return true;
    });
    const shot = await device.run(screencapPngCommand());
    assert.equal(shot.text, "PNG-whole-IEND");
    assert.equal(adb.sent.filter((c) => c === "input tap 1 2").length, 1);
    assert.equal(adb.sent.filter((c) => c === "screencap -p").length, 2);
  },
});

const seen = (...lines: Array<[string, string]>) =>
  lines.map(([serial, state]) => ({ serial, state }));

Deno.test({
  name: "a device error names what adb sees, so a mistyped serial stands beside the right one",
  permissions: "none",
  fn() {
    const notFound = classifyAdbFailure(
      exited(1, "", "error: device 'R58M123ABC' not found\n"),
      { serial: "R58M123ABC", command: "shell input tap 1 2", acts: false },
    );
    assert.ok(!notFound.ok && notFound.error.trouble !== undefined);
    // Without the list (not read yet, or `adb devices` failed): nothing is said about it.
    assert.doesNotMatch(notFound.error.message, /adb sees/);
    const attached = seen(["R58M123ABD", "device"], ["192.168.1.20:5555", "offline"]);
    const named = withAttached(notFound.error, attached);
    assert.equal(named.code, "NO_DEVICE");
    assert.deepEqual(named.attached, attached);
    assert.equal(
      named.what,
      "no Android device reachable at R58M123ABC; adb sees: R58M123ABD (device), 192.168.1.20:5555 (offline)",
    );
    assert.equal(
      named.fix,
      'if "R58M123ABC" is a typo, set ANDROID_SERIAL (or --serial) to one of those; otherwise plug the phone in by USB with USB debugging on, or for Wi-Fi run "adb connect <phone-ip>:5555" and set ANDROID_SERIAL to that address',
    );
    assert.deepEqual(troubleFacts(notFound.error.trouble, []), {
      what: "no Android device reachable at R58M123ABC; adb sees no device",
      fix:
        'plug the phone in by USB with USB debugging on, or for Wi-Fi run "adb connect <phone-ip>:5555" and set ANDROID_SERIAL to that address',
      uncertain: false,
    });
  },
});

Deno.test({
  name: "every kind of device error takes the list: none, offline, unauthorized, more than one",
  permissions: "none",
  fn() {
    const ctx = (serial: string | undefined) => ({
      serial,
      command: "shell input keyevent 3",
      acts: false,
    });
    const cases: Array<{
      stderr: string;
      serial: string | undefined;
      attached: ReturnType<typeof seen>;
      code: AdbErrorCode;
      says: RegExp;
    }> = [
      {
        stderr: "error: no devices/emulators found\n",
        serial: undefined,
        attached: [],
        code: "NO_DEVICE",
        says: /^no Android device reachable; adb sees no device; plug the phone/,
      },
      {
        // The only phone is offline: it is named, with the way back.
        stderr: "error: device offline\n",
        serial: undefined,
        attached: seen(["192.168.1.20:5555", "offline"]),
        code: "NO_DEVICE",
        says:
          /no Android device reachable; adb sees: 192\.168\.1\.20:5555 \(offline\); an offline phone usually comes back after "adb reconnect offline"/,
      },
      {
        stderr: "adb: device offline\n",
        serial: "emulator-5554",
        attached: seen(["emulator-5554", "offline"], ["R58M123ABD", "device"]),
        code: "NO_DEVICE",
        says:
          /at emulator-5554; adb sees: emulator-5554 \(offline\), R58M123ABD \(device\); an offline phone usually comes back after "adb reconnect offline" or replugging its cable; plug/,
      },
      {
        stderr: UNAUTHORIZED_LINES("error: "),
        serial: "R58M123ABD",
        attached: seen(["R58M123ABD", "unauthorized"]),
        code: "UNAUTHORIZED",
        says:
          /the phone at R58M123ABD has not authorized this computer; adb sees: R58M123ABD \(unauthorized\); unlock it/,
      },
      {
        stderr: "error: more than one device/emulator\n",
        serial: undefined,
        attached: seen(["R58M123ABD", "device"], ["192.168.1.20:5555", "device"]),
        code: "MULTIPLE_DEVICES",
        says:
          /no serial was chosen; adb sees: R58M123ABD \(device\), 192\.168\.1\.20:5555 \(device\); give device with the serial of the one to drive/,
      },
    ];
    for (const c of cases) {
      const result = classifyAdbFailure(exited(1, "", c.stderr), ctx(c.serial));
      assert.ok(!result.ok, c.stderr);
      const named = withAttached(result.error, c.attached);
      assert.equal(named.code, c.code);
      assert.match(named.message, c.says);
      assert.doesNotMatch(named.message, /typo/, "the serial is listed, or none was given");
    }
  },
});

Deno.test({
  name:
    "a long list is cut with a count, and errors that are not about the device are kept as they are",
  permissions: "none",
  fn() {
    const many = Array.from(
      { length: 11 },
      (_, i) => ({ serial: `emulator-${5554 + 2 * i}`, state: "device" }),
    );
    assert.equal(
      adbSees(many),
      `adb sees: ${many.slice(0, 8).map((d) => `${d.serial} (device)`).join(", ")} and 3 more`,
    );
    const closed = classifyAdbFailure(exited(1, "", "error: closed\n"), {
      serial: WIFI,
      command: "shell input tap 1 2",
      acts: true,
    });
    assert.ok(!closed.ok);
    assert.equal(closed.error.trouble, undefined);
    assert.equal(withAttached(closed.error, many), closed.error);
  },
});

Deno.test({
  name: "adb devices is read only from its header on, and anything else is no list at all",
  permissions: "none",
  fn() {
    assert.deepEqual(
      parseAdbDevices(
        "* daemon not running; starting now at tcp:5037\n* daemon started successfully\nList of devices attached\nR58M123ABD\tdevice\n192.168.1.20:5555\toffline\nemulator-5554\tunauthorized\n\n",
      ),
      seen(["R58M123ABD", "device"], ["192.168.1.20:5555", "offline"], [
        "emulator-5554",
        "unauthorized",
      ]),
    );
    assert.deepEqual(parseAdbDevices("List of devices attached\r\n\r\n"), []);
    // A USB phone the user may not open: the state is the rest of the line, cut for the message.
    const [denied] = parseAdbDevices(
      "List of devices attached\n0123456789ABCDEF\tno permissions (missing udev rules? user is in the plugdev group); see [http://developer.android.com/tools/device.html]\n",
    )!;
    assert.equal(denied?.serial, "0123456789ABCDEF");
    assert.match(denied?.state ?? "", /^no permissions \(missing udev rules\? .{20,}…$/);
    assert.equal(denied?.state.length, 80);
    // A line with a control character is not a device adb listed: it is left out.
    assert.deepEqual(
      parseAdbDevices("List of devices attached\nR58M\x1b[31mX\tdevice\nR58M123ABD\tdevice\n"),
      seen(["R58M123ABD", "device"]),
    );
    assert.equal(parseAdbDevices("adb: usage: unknown command devices\n"), null);
  },
});
