import assert from "node:assert/strict";
import { deviceCommand } from "../../lib/adb/commands.ts";
import { keyeventCommand, tapCommand } from "../../lib/adb/input_commands.ts";
import { screencapPngCommand, uiDumpCommand } from "../../lib/adb/screen_commands.ts";
import { createDevice } from "../../lib/adb/device.ts";
import { AdbError, type AdbResult, isNetworkSerial } from "../../lib/adb/errors.ts";
import { classifyAdbFailure } from "../../lib/adb/classify.ts";
import { EXIT_MARKER, readExitMarker, splitExitMarker } from "../../lib/adb/exit_marker.ts";
import { runInput } from "../../lib/adb/input.ts";
import type { AdbOutcome } from "../../lib/adb/runner.ts";
import { AgentError } from "../../lib/core/errors.ts";
import { exited, fakeAdb, type FakeRule, rejectsWith, timedOut } from "../helpers/fake_adb.ts";

/** A read-only call: the classifier's plain facts (acting calls are tested in adb_hostile_test.ts). */
const ctx = {
  serial: "192.0.2.9:5555",
  command: "shell wm size",
  acts: false,
};

Deno.test({
  name: "classifyAdbFailure checks spawn failure, timeout, adb's texts, then the exit code",
  permissions: "none",
  fn() {
    const table: Array<[AdbOutcome, string | null, RegExp?]> = [
      [
        { kind: "spawn-failed", error: new Deno.errors.NotFound("x") },
        "ADB_NOT_FOUND",
        /apt-get install adb/,
      ],
      [
        { kind: "spawn-failed", error: new Deno.errors.NotCapable("x") },
        "ADB_NOT_PERMITTED",
        /on PATH/,
      ],
      [
        { kind: "timeout", timeoutMs: 20, stdout: new Uint8Array(), stderr: "" },
        "TIMEOUT",
        /^"adb shell wm size" did not finish within 20 ms.*PHONE_EYE_ADB_TIMEOUT_MS/,
      ],
      [
        exited(1, "", "error: more than one device/emulator\n"),
        "MULTIPLE_DEVICES",
        /ANDROID_SERIAL.*--serial/,
      ],
      [
        exited(
          1,
          "",
          "error: device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set\n",
        ),
        "UNAUTHORIZED",
        /Allow USB debugging/,
      ],
      [
        exited(1, "", "error: device '192.0.2.9:5555' not found\n"),
        "NO_DEVICE",
        /adb connect 192\.0\.2\.9:5555/,
      ],
      [
        exited(1, "", "error: no devices/emulators found\n"),
        "NO_DEVICE",
        /no Android device reachable/,
      ],
      [exited(1, "", "error: device offline\n"), "NO_DEVICE"],
      [
        exited(1, "", "error: closed\n"),
        "TRANSPORT",
        /link to the phone at 192\.0\.2\.9:5555 broke/,
      ],
      [
        exited(255, "", "/system/bin/sh: input: not found\n"),
        "COMMAND_FAILED",
        /exit code 255: .*input: not found/,
      ],
      [exited(0, "Starting: Intent"), null],
      // A device-side program may print "offline" itself; only adb's own error lines count.
      [exited(0, "wifi offline\n", ""), null],
    ];
    for (const [outcome, code, message] of table) {
      const result = classifyAdbFailure(outcome, ctx, "linux");
      assert.equal(result.ok ? null : result.error.code, code, JSON.stringify(outcome));
      if (message) assert.match(failure(result).message, message);
    }
  },
});

/** The error of a failed result; fails the test when the run was classified as a success. */
function failure(result: AdbResult): AdbError {
  assert.ok(!result.ok, "expected a failure, got a success");
  return result.error;
}

Deno.test({
  name: "a successful run carries adb's output with it, byte for byte",
  permissions: "none",
  fn() {
    const result = classifyAdbFailure(exited(0, "Starting: Intent\n", "warning\n"), ctx, "linux");
    assert.ok(result.ok);
    assert.equal(new TextDecoder().decode(result.stdout), "Starting: Intent\n");
    assert.equal(result.stderr, "warning\n");
  },
});

Deno.test({
  name: "an adb error is an AgentError whose cause keeps the spawn failure out of the message",
  permissions: "none",
  fn() {
    const spawnError = new Deno.errors.NotFound("No such file or directory (os error 2)");
    const error = failure(classifyAdbFailure({ kind: "spawn-failed", error: spawnError }, ctx));
    assert.ok(error instanceof AgentError);
    assert.equal(error.code, "ADB_NOT_FOUND");
    assert.equal(error.cause, spawnError);
    assert.doesNotMatch(error.message, /os error/);
  },
});

Deno.test({
  name: "the install hint names each OS's way to get platform-tools",
  permissions: "none",
  fn() {
    const notFound: AdbOutcome = { kind: "spawn-failed", error: new Deno.errors.NotFound("x") };
    assert.match(
      failure(classifyAdbFailure(notFound, ctx, "darwin")).message,
      /brew install android-platform-tools/,
    );
    assert.match(
      failure(classifyAdbFailure(notFound, ctx, "windows")).message,
      /winget install Google\.PlatformTools/,
    );
  },
});

Deno.test({
  name: "only ip:port serials count as Wi-Fi devices that adb connect can revive",
  permissions: "none",
  fn() {
    for (const s of ["192.168.1.20:5555", "127.0.0.1:40123", "phone.lan:5555", "[fe80::1]:5555"]) {
      assert.equal(isNetworkSerial(s), true, s);
    }
    for (const s of [undefined, "emulator-5554", "R58M123ABC", "adb-XYZ._adb-tls-connect._tcp"]) {
      assert.equal(isNetworkSerial(s), false, String(s));
    }
  },
});

/**
 * A UI dump whose link drops once ("device offline"), with adb answering `rules` besides: checks
 * the replay's answer and returns the adb calls made, each cut to its first three words.
 */
async function dumpAcrossDrop(rules: Array<[RegExp, FakeRule]>): Promise<string[]> {
  const adb = fakeAdb([
    [/shell uiautomator/, [exited(1, "", "error: device offline\n"), exited(0, "<hierarchy/>")]],
    ...rules,
  ]);
  const device = createDevice({ run: adb.run, serial: "192.0.2.9:5555", timeoutMs: 10_000 });
  const out = await device.run(uiDumpCommand("/data/local/tmp/a.xml"));
  assert.equal(out.text, "<hierarchy/>");
  // Waits are bounded well under the adb timeout: for adb's own retry (right after get-state)
  // 1.5 s, for the handshake after a connect 5 s.
  adb.calls.forEach((call, i) => {
    if (!call.includes("wait-for-device")) return;
    const bound = adb.calls[i - 1]!.includes("get-state") ? 1_500 : 5_000;
    assert.ok(adb.limits[i]!.timeoutMs <= bound, call);
  });
  return adb.calls.map((c) => c.split(" ").slice(0, 3).join(" "));
}

const CONNECTED: [RegExp, FakeRule] = [/^connect /, exited(0, "connected to 192.0.2.9:5555\n")];

Deno.test({
  name: "a dropped Wi-Fi link is revived once and a read-only command is replayed",
  permissions: "none",
  async fn() {
    assert.deepEqual(await dumpAcrossDrop([CONNECTED]), [
      "-s 192.0.2.9:5555 shell",
      // Not already revived by adb's server itself, so it is disconnected and connected again.
      "-s 192.0.2.9:5555 get-state",
      "disconnect 192.0.2.9:5555",
      "connect 192.0.2.9:5555",
      // "connected to" is not yet "device": the replay waits for the handshake to finish.
      "-s 192.0.2.9:5555 wait-for-device",
      "-s 192.0.2.9:5555 shell",
    ]);
  },
});

Deno.test({
  name: "an offline Wi-Fi device that adb's server revives itself is replayed on, never cut",
  permissions: "none",
  async fn() {
    const calls = await dumpAcrossDrop([
      [/get-state/, exited(1, "", "error: device offline\n")],
      [/wait-for-device/, exited(0, "")],
      CONNECTED,
    ]);
    assert.deepEqual(calls, [
      "-s 192.0.2.9:5555 shell",
      "-s 192.0.2.9:5555 get-state",
      // adb still holds the device and retries it itself: given a moment, it is back.
      "-s 192.0.2.9:5555 wait-for-device",
      "-s 192.0.2.9:5555 shell",
    ]);
  },
});

Deno.test({
  name: "an offline Wi-Fi device adb does not revive in time is disconnected and connected",
  permissions: "none",
  async fn() {
    const calls = await dumpAcrossDrop([
      [/get-state/, exited(1, "", "error: device offline\n")],
      [/wait-for-device/, [timedOut(1_500), exited(0, "")]],
      CONNECTED,
    ]);
    assert.deepEqual(calls, [
      "-s 192.0.2.9:5555 shell",
      "-s 192.0.2.9:5555 get-state",
      "-s 192.0.2.9:5555 wait-for-device",
      "disconnect 192.0.2.9:5555",
      "connect 192.0.2.9:5555",
      "-s 192.0.2.9:5555 wait-for-device",
      "-s 192.0.2.9:5555 shell",
    ]);
  },
});

Deno.test({
  name:
    "a tap cut by a dropped link is not replayed: the agent is told to look before repeating it",
  permissions: "none",
  async fn() {
    const adb = fakeAdb([
      [/input tap/, exited(1, "", "error: closed\n")],
      [/^connect /, exited(0, "already connected to 192.0.2.9:5555\n")],
    ]);
    const device = createDevice({ run: adb.run, serial: "192.0.2.9:5555", timeoutMs: 1000 });
    await rejectsWith(
      device.run(tapCommand(5, 6)),
      "RECONNECTED",
      /did not repeat the command, because the phone may already have received it/,
      { uncertain: true },
    );
    assert.equal(adb.calls.filter((c) => c.includes("input tap")).length, 1);
  },
});

Deno.test({
  name: "a failed adb connect (which exits 0) is reported as no device reachable with the hint",
  permissions: "none",
  async fn() {
    const adb = fakeAdb([
      [/input tap/, exited(1, "", "error: device '127.0.0.1:9' not found\n")],
      [/^connect /, exited(0, "failed to connect to '127.0.0.1:9': Connection refused\n")],
    ]);
    const device = createDevice({ run: adb.run, serial: "127.0.0.1:9", timeoutMs: 1000 });
    await rejectsWith(
      device.run(tapCommand(5, 6)),
      "NO_DEVICE",
      /no Android device reachable at 127\.0\.0\.1:9 \(failed to connect.*Connection refused\).*adb connect 127\.0\.0\.1:9/,
    );
  },
});

Deno.test({
  name: "an adb connect that fails to authenticate says to accept the prompt, not that it is gone",
  permissions: "none",
  async fn() {
    // adb connect exits 0 and answers "failed to authenticate to H:P" when the phone has not
    // accepted this computer's key (transport_local.cpp connect_device, EPERM).
    const adb = fakeAdb([
      [/uiautomator/, exited(1, "", "error: device offline\n")],
      [/^connect /, exited(0, "failed to authenticate to 192.0.2.9:5555\n")],
    ]);
    const device = createDevice({ run: adb.run, serial: "192.0.2.9:5555", timeoutMs: 1000 });
    await rejectsWith(
      device.run(uiDumpCommand("/data/local/tmp/a.xml")),
      "UNAUTHORIZED",
      /^the phone at 192\.0\.2\.9:5555 has not authorized this computer; unlock it and accept the "Allow USB debugging\?" prompt/,
    );
    // Not replayed: the phone would refuse it again until the prompt is accepted.
    assert.equal(adb.calls.filter((c) => c.includes("uiautomator")).length, 1);
  },
});

Deno.test({
  name: "a replayed read that fails again is reported, not retried forever",
  permissions: "none",
  async fn() {
    const adb = fakeAdb([
      [/exec-out/, exited(1, "", "error: device offline\n")],
      [/^connect /, exited(0, "connected to 192.0.2.9:5555\n")],
    ]);
    const device = createDevice({ run: adb.run, serial: "192.0.2.9:5555", timeoutMs: 1000 });
    await rejectsWith(
      device.run(screencapPngCommand()),
      "NO_DEVICE",
    );
    assert.equal(adb.calls.filter((c) => c.includes("connect 192")).length, 2); // disconnect + connect, once
  },
});

Deno.test({
  name: "a USB device that is gone is not reconnected: the message says how to attach one",
  permissions: "none",
  async fn() {
    const adb = fakeAdb([[/input/, exited(1, "", "error: no devices/emulators found\n")]]);
    const device = createDevice({ run: adb.run, serial: undefined, timeoutMs: 1000 });
    await rejectsWith(
      device.run(tapCommand(1, 1)),
      "NO_DEVICE",
      /USB debugging.*adb connect <phone-ip>:5555/,
    );
    // The command, then `adb devices` for the message: no connect, no second attempt.
    assert.equal(adb.calls.length, 2);
    assert.equal(adb.calls[1], "devices");
  },
});

Deno.test({
  name: "more than one device names the attached serials",
  permissions: "none",
  async fn() {
    const adb = fakeAdb([
      [/input/, exited(1, "", "error: more than one device/emulator\n")],
      [
        /^devices$/,
        exited(0, "List of devices attached\nemulator-5554\tdevice\n192.168.1.7:5555\toffline\n\n"),
      ],
    ]);
    const device = createDevice({ run: adb.run, serial: undefined, timeoutMs: 1000 });
    await rejectsWith(
      device.run(tapCommand(1, 1)),
      "MULTIPLE_DEVICES",
      /no serial was chosen; adb sees: emulator-5554 \(device\), 192\.168\.1\.7:5555 \(offline\); .*give device with the serial of the one to drive/,
    );
  },
});

Deno.test({
  name:
    "a truncated answer counts as a transport failure, so a screenshot is replayed after reconnect",
  permissions: "none",
  async fn() {
    const adb = fakeAdb([
      [/screencap/, [exited(0, "PNG-half"), exited(0, "PNG-whole-IEND")]],
      [/^connect /, exited(0, "connected to 192.0.2.9:5555\n")],
    ]);
    const device = createDevice({ run: adb.run, serial: "192.0.2.9:5555", timeoutMs: 1000 });
    const out = await device.run(screencapPngCommand(), {
      complete: (bytes) => new TextDecoder().decode(bytes).endsWith("IEND"),
    });
    assert.equal(out.text, "PNG-whole-IEND");
  },
});

Deno.test({
  name: "concurrent calls that find the link dropped share one reconnect",
  permissions: "none",
  async fn() {
    const adb = fakeAdb([
      [/exec-out (screencap|uiautomator)/, [
        exited(1, "", "error: device offline\n"),
        exited(1, "", "error: device offline\n"),
        exited(0, "ok"),
      ]],
      [/^connect /, exited(0, "connected to 192.0.2.9:5555\n")],
    ]);
    const device = createDevice({ run: adb.run, serial: "192.0.2.9:5555", timeoutMs: 1000 });
    await Promise.all([
      device.run(screencapPngCommand()),
      device.run(deviceCommand("exec-out", "uiautomator", ["dump", "/x"])),
    ]);
    assert.equal(adb.calls.filter((c) => c.startsWith("connect ")).length, 1);
  },
});

Deno.test({
  name: "the screen size is read once per server and an override wins",
  permissions: "none",
  async fn() {
    const adb = fakeAdb([[
      /wm size/,
      exited(0, "Physical size: 1080x2400\nOverride size: 720x1600\n"),
    ]]);
    const device = createDevice({ run: adb.run, serial: undefined, timeoutMs: 1000 });
    assert.deepEqual(await device.screenSize(), { width: 720, height: 1600 });
    assert.deepEqual(await device.screenSize(), { width: 720, height: 1600 });
    assert.equal(adb.calls.length, 1);
  },
});

Deno.test({
  name: "a text reply without the exit marker was cut short: a tap is reported, not replayed",
  permissions: "none",
  async fn() {
    // adb 29 exits 0 with empty output when a shell_v2 link dies mid-command.
    const adb = fakeAdb([
      [/input tap/, exited(0, "", "", { cutShort: true })],
      [/^connect /, exited(0, "connected to 192.0.2.9:5555\n")],
    ]);
    const device = createDevice({ run: adb.run, serial: "192.0.2.9:5555", timeoutMs: 1000 });
    await rejectsWith(device.run(tapCommand(5, 6)), "RECONNECTED");
    assert.equal(adb.sent.length, 1);
  },
});

Deno.test({
  name: "the exit marker carries the device command's status even on the legacy protocol",
  permissions: "none",
  async fn() {
    const adb = fakeAdb([[/input/, exited(0, "", "", { status: 127 })]]);
    const device = createDevice({ run: adb.run, serial: undefined, timeoutMs: 1000 });
    await rejectsWith(
      device.run(tapCommand(5, 6)),
      "COMMAND_FAILED",
      /exit code 127/,
    );
  },
});

Deno.test({
  name: "splitExitMarker separates output and status, also when output lacks a final newline",
  permissions: "none",
  fn() {
    assert.deepEqual(splitExitMarker(`a\nb\n${EXIT_MARKER}0\n`), { output: "a\nb\n", status: 0 });
    assert.deepEqual(splitExitMarker(`</hierarchy>${EXIT_MARKER}1\r\n`), {
      output: "</hierarchy>",
      status: 1,
    });
    assert.equal(splitExitMarker("partial output"), null);
    assert.equal(splitExitMarker(`${EXIT_MARKER}0\nmore after`), null);
    const read = readExitMarker(new TextEncoder().encode(`x\n${EXIT_MARKER}3\n`));
    assert.equal(read?.status, 3);
    assert.equal(new TextDecoder().decode(read?.stdout), "x\n");
  },
});

Deno.test({
  name: "input's failures that exit 0 are read from its text and reported with what it said",
  permissions: "none",
  async fn() {
    // The app_process `input` of older releases prints "Error: Unknown command: …" (and its
    // usage) for a command it lacks, and exits 0 (Input.java, cited at inputFailure).
    const adb = fakeAdb([[/input keyevent/, exited(0, "Error: Unknown command: keyevent\n")]]);
    const device = createDevice({ run: adb.run, serial: undefined, timeoutMs: 1000 });
    await rejectsWith(
      runInput(device, keyeventCommand(3)),
      "COMMAND_FAILED",
      /^the phone said: Error: Unknown command: keyevent$/,
    );
    await runInput(device, tapCommand(1, 2)); // prints nothing: it worked
    assert.deepEqual(adb.sent, ["input keyevent 3", "input tap 1 2"]);
  },
});

Deno.test({
  name:
    "a device error reads adb devices once, with the adb timeout; when that fails the list goes unsaid",
  permissions: "none",
  async fn() {
    const notFound = exited(1, "", "error: device 'R58M123ABC' not found\n");
    const listed = fakeAdb([
      [/input/, notFound],
      [/^devices$/, exited(0, "List of devices attached\nR58M123ABD\tdevice\n\n")],
    ]);
    const device = createDevice({ run: listed.run, serial: "R58M123ABC", timeoutMs: 1234 });
    await rejectsWith(
      device.run(tapCommand(1, 1)),
      "NO_DEVICE",
      /^no Android device reachable at R58M123ABC; adb sees: R58M123ABD \(device\); if "R58M123ABC" is a typo, set ANDROID_SERIAL/,
    );
    assert.deepEqual(listed.calls.slice(1), ["devices"]);
    assert.deepEqual(listed.limits[1], { timeoutMs: 1234, output: "text" });

    for (const failure of [timedOut(1234), exited(1, "", "error: cannot connect to daemon\n")]) {
      const broken = fakeAdb([[/input/, notFound], [/^devices$/, failure]]);
      const alone = createDevice({ run: broken.run, serial: "R58M123ABC", timeoutMs: 1234 });
      await rejectsWith(
        alone.run(tapCommand(1, 1)),
        "NO_DEVICE",
        /^no Android device reachable at R58M123ABC; plug the phone in by USB/,
      );
      assert.equal(broken.calls.filter((c) => c === "devices").length, 1);
    }

    // A success, or an error that is not about the device, never reads the list.
    const quiet = fakeAdb([[/input keyevent/, exited(1, "", "error: closed\n")]]);
    const usb = createDevice({ run: quiet.run, serial: undefined, timeoutMs: 1234 });
    await usb.run(tapCommand(1, 1));
    await rejectsWith(usb.run(keyeventCommand(3)), "TRANSPORT");
    assert.ok(!quiet.calls.includes("devices"), quiet.calls.join("\n"));
  },
});

Deno.test({
  name: "a Wi-Fi serial that cannot be revived names what adb sees after the failed connect",
  permissions: "none",
  async fn() {
    const adb = fakeAdb([
      [/input/, exited(1, "", "error: device '192.0.2.9:5555' not found\n")],
      [/^connect /, exited(0, "failed to connect to '192.0.2.9:5555': Connection refused\n")],
      [/^devices$/, exited(0, "List of devices attached\n192.0.2.8:5555\tdevice\n\n")],
    ]);
    const device = createDevice({ run: adb.run, serial: "192.0.2.9:5555", timeoutMs: 1000 });
    await rejectsWith(
      device.run(keyeventCommand(3)),
      "NO_DEVICE",
      /no Android device reachable at 192\.0\.2\.9:5555 \(failed to connect to '192\.0\.2\.9:5555': Connection refused\); adb sees: 192\.0\.2\.8:5555 \(device\); if "192\.0\.2\.9:5555" is a typo, .*then run "adb connect 192\.0\.2\.9:5555"/,
    );
  },
});
