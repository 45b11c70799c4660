// lib/adb/phones.ts and PHONE_EYE_DEVICES: which phone a call drives, what is refused before any adb
// call, when phone-eye runs `adb connect` (only for listed addresses), and the facts parser.

import assert from "node:assert/strict";
import { createDevice } from "../../lib/adb/device.ts";
import { createLink } from "../../lib/adb/link.ts";
import { describeFacts, parsePhoneFacts, phoneFactsCommand } from "../../lib/adb/phone_facts.ts";
import { deviceShellLine } from "../../lib/adb/commands.ts";
import { ConfigError, type EnvVar, loadConfig, type PhoneSet } from "../../lib/config/config.ts";
import { createPhones, NOT_ATTACHED, PhoneChoiceError } from "../../lib/adb/phones.ts";
import { CLIENT_CALLS_MAX } from "../../lib/adb/queue.ts";
import { tapCommand } from "../../lib/adb/input_commands.ts";
import { EXIT_MARKER } from "../../lib/adb/exit_marker.ts";
import { exited, fakeAdb, type FakeRule, rejectsWith } from "../helpers/fake_adb.ts";
import { heldRunner } from "./held_runner.ts";

const env = (vars: Partial<Record<EnvVar, string>>) => (name: EnvVar) => vars[name];

Deno.test({
  name:
    "PHONE_EYE_DEVICES lists serials or *, wins over ANDROID_SERIAL, and --serial beside it is refused",
  permissions: "none",
  fn() {
    assert.deepEqual(
      loadConfig(env({ PHONE_EYE_DEVICES: " 10.0.0.2:5555 , emulator-5554,10.0.0.2:5555" }))
        .phones,
      { kind: "listed", serials: ["10.0.0.2:5555", "emulator-5554"], from: "PHONE_EYE_DEVICES" },
    );
    assert.deepEqual(loadConfig(env({ PHONE_EYE_DEVICES: "*" })).phones, { kind: "any" });
    assert.deepEqual(
      loadConfig(env({ PHONE_EYE_DEVICES: "a1", ANDROID_SERIAL: "b2" })).phones,
      { kind: "listed", serials: ["a1"], from: "PHONE_EYE_DEVICES" },
    );
    // A list that names no phone is refused, never read as unset (tests/config/settings_test.ts).
    assert.throws(() => loadConfig(env({ PHONE_EYE_DEVICES: " , " })), /names no phone/);
    assert.deepEqual(loadConfig(env({})).phones, { kind: "default" });
    assert.throws(
      () => loadConfig(env({ PHONE_EYE_DEVICES: "a1" }), { serial: "b2" }),
      /--serial and PHONE_EYE_DEVICES/,
    );
    assert.throws(() => loadConfig(env({ PHONE_EYE_DEVICES: "*,a1" })), /either \*/);
    for (const hostile of ["a1;reboot", "$(id)", "a b", "x".repeat(101), "a'1", "a\n1"]) {
      assert.throws(
        () => loadConfig(env({ PHONE_EYE_DEVICES: `ok1,${hostile}` })),
        ConfigError,
        hostile,
      );
    }
  },
});

/** A registry over a fake adb, with every Device made on the same fake. */
function phonesOver(set: PhoneSet, rules: Array<[RegExp, FakeRule]> = []) {
  const adb = fakeAdb(rules);
  const made: Array<{ serial: string | undefined; connects: boolean }> = [];
  const phones = createPhones({
    set,
    link: createLink({ run: adb.run, timeoutMs: 1000 }),
    makeDevice(phone) {
      made.push({ serial: phone.serial, connects: phone.connects });
      return createDevice({ run: adb.run, timeoutMs: 1000, ...phone });
    },
  });
  return { phones, adb, made };
}

const listed = (...serials: [string, ...string[]]): PhoneSet => ({
  kind: "listed",
  serials,
  from: "PHONE_EYE_DEVICES",
});

async function refused(promise: Promise<unknown>, code: string, message: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof PhoneChoiceError, String(error));
    assert.equal(error.code, code);
    assert.match(error.message, message);
    return true;
  });
}

Deno.test({
  name: "a device outside the listed phones is refused naming them, without any adb call",
  permissions: "none",
  async fn() {
    const { phones, adb } = phonesOver(listed("10.0.0.2:5555", "emulator-5554"));
    await refused(
      phones.resolve("10.0.0.9:5555"),
      "UNKNOWN_PHONE",
      /"10\.0\.0\.9:5555".*only 10\.0\.0\.2:5555, emulator-5554 \(PHONE_EYE_DEVICES\)/,
    );
    await refused(
      phones.resolve(undefined),
      "WHICH_PHONE",
      /drives 2 \(PHONE_EYE_DEVICES\): 10\.0\.0\.2:5555, emulator-5554; give device/,
    );
    assert.deepEqual(adb.calls, []);
  },
});

Deno.test({
  name: "one Device per phone, made on first use and kept; the only listed phone needs no device",
  permissions: "none",
  async fn() {
    const { phones, made } = phonesOver(listed("emulator-5554", "R58N"));
    const a = await phones.resolve("R58N");
    assert.equal(a.serial, "R58N");
    assert.equal(await phones.resolve("R58N"), a);
    assert.deepEqual(made, [{ serial: "R58N", connects: true }]);
    const only = phonesOver(listed("R58N"));
    assert.equal((await only.phones.resolve(undefined)).serial, "R58N");
    assert.deepEqual(only.adb.calls, []);
  },
});

Deno.test({
  name: "a listed address adb does not list is connected once, before its first command",
  permissions: "none",
  async fn() {
    const { phones, adb } = phonesOver(listed("10.0.0.2:5555"), [
      [/get-state/, exited(1, "", "error: device '10.0.0.2:5555' not found\n")],
      [/^connect /, exited(0, "connected to 10.0.0.2:5555\n")],
    ]);
    const device = await phones.resolve("10.0.0.2:5555");
    assert.equal(adb.calls.length, 0, "nothing runs until the phone is used");
    await device.screenSize();
    await device.run(phoneFactsCommand());
    assert.deepEqual(adb.calls.slice(0, 4), [
      "-s 10.0.0.2:5555 get-state",
      "connect 10.0.0.2:5555",
      "-s 10.0.0.2:5555 wait-for-device",
      "-s 10.0.0.2:5555 shell wm size",
    ]);
    assert.equal(adb.calls.filter((c) => c.startsWith("connect")).length, 1);
  },
});

Deno.test({
  name:
    "a listed address that will not connect fails the call in adb's words, and the next call tries again",
  permissions: "none",
  async fn() {
    const { phones, adb } = phonesOver(listed("10.0.0.2:5555"), [
      [/get-state/, exited(1, "", "error: device '10.0.0.2:5555' not found\n")],
      [/^connect /, exited(1, "failed to connect to '10.0.0.2:5555': Connection refused\n")],
    ]);
    const device = await phones.resolve(undefined);
    await assert.rejects(
      device.screenSize(),
      /AdbError: no Android device reachable at 10\.0\.0\.2:5555/,
    );
    await assert.rejects(device.screenSize(), /Connection refused/);
    assert.equal(adb.calls.filter((c) => c.startsWith("connect")).length, 2);
  },
});

Deno.test({
  name: "with * an agent's serial must be one adb lists, and phone-eye never connects it",
  permissions: "none",
  async fn() {
    const { phones, adb, made } = phonesOver({ kind: "any" }, [
      [/^devices$/, exited(0, "List of devices attached\nR58N\tdevice\n10.0.0.3:5555\toffline\n")],
      [/^-s 10\.0\.0\.3:5555 shell/, exited(1, "", "error: device offline\n")],
    ]);
    await refused(
      phones.resolve("192.0.2.7:5555"),
      "UNKNOWN_PHONE",
      /adb lists R58N \(device\), 10\.0\.0\.3:5555 \(offline\); phone-eye connects no address an agent names/,
    );
    assert.equal((await phones.resolve(undefined)).serial, "R58N");
    const offline = await phones.resolve("10.0.0.3:5555");
    assert.deepEqual(made.at(-1), { serial: "10.0.0.3:5555", connects: false });
    await assert.rejects(offline.screenSize(), /AdbError: .*10\.0\.0\.3:5555.*offline/);
    assert.ok(!adb.calls.some((c) => /^(connect|disconnect) /.test(c)), adb.calls.join("\n"));
  },
});

Deno.test({
  name: "with * and several ready phones, a call without device is refused listing them",
  permissions: "none",
  async fn() {
    const { phones } = phonesOver({ kind: "any" }, [
      [/^devices$/, exited(0, "List of devices attached\nR58N\tdevice\nemulator-5554\tdevice\n")],
    ]);
    await refused(phones.resolve(undefined), "WHICH_PHONE", /2 are ready: R58N, emulator-5554/);
  },
});

Deno.test({
  name: "the roster lists every listed phone with adb's state, or not attached",
  permissions: "none",
  async fn() {
    const { phones } = phonesOver(listed("R58N", "emulator-5554"), [
      [
        /^devices$/,
        exited(0, "List of devices attached\nemulator-5554\tunauthorized\nX1\tdevice\n"),
      ],
    ]);
    assert.deepEqual(await phones.roster(), [
      { serial: "R58N", state: NOT_ATTACHED },
      { serial: "emulator-5554", state: "unauthorized" },
    ]);
  },
});

Deno.test({
  name: "a phone's facts come from one shell line and read back in four parts",
  permissions: "none",
  fn() {
    const line = deviceShellLine(phoneFactsCommand());
    assert.equal(phoneFactsCommand().replayable, true);
    assert.match(line, /^getprop ro\.product\.model; echo --phone-eye-fact--; getprop /);
    const facts = parsePhoneFacts(
      [
        "Pixel 7",
        "--phone-eye-fact--",
        "14",
        "--phone-eye-fact--",
        "Physical size: 1080x2400",
        "Override size: 720x1600",
        "--phone-eye-fact--",
        "com.android.adbkeyboard/.AdbIME",
        "com.google.android.inputmethod.latin/.LatinIME",
        "--phone-eye--",
        "com.google.android.inputmethod.latin/.LatinIME",
        "--phone-eye--",
        "com.google.android.inputmethod.latin/.LatinIME",
        "",
      ].join("\n"),
    );
    assert.deepEqual(facts, {
      model: "Pixel 7",
      android: "14",
      screen: { width: 720, height: 1600 },
      adbKeyboard: true,
    });
    assert.equal(
      describeFacts(facts!),
      "Pixel 7, Android 14, screen 720×1600, ADB Keyboard installed (any text)",
    );
    assert.equal(parsePhoneFacts("Pixel 7\n"), null);
  },
});

const ONE_PHONE = exited(0, "List of devices attached\nR58N\tdevice\n\n");

Deno.test({
  name:
    "with nothing configured, a call without device and one naming adb's only phone get one Device",
  permissions: "none",
  async fn() {
    const byDefault = phonesOver({ kind: "default" }, [[/^devices$/, ONE_PHONE]]);
    const first = await byDefault.phones.resolve(undefined);
    assert.equal(first.serial, "R58N", "adb's only phone, by its real serial");
    assert.equal(await byDefault.phones.resolve("R58N"), first);
    assert.equal(await byDefault.phones.resolve(undefined), first);
    // Taken once: the next calls without device ask adb nothing.
    assert.deepEqual(byDefault.adb.calls, ["devices"]);

    const bySerial = phonesOver({ kind: "default" }, [[/^devices$/, ONE_PHONE]]);
    const named = await bySerial.phones.resolve("R58N");
    assert.equal(await bySerial.phones.resolve(undefined), named);
    assert.deepEqual(bySerial.made, [{ serial: "R58N", connects: false }]);
  },
});

Deno.test({
  name:
    "with nothing configured, a tap without device and one naming the phone run one at a time on it",
  permissions: "none",
  async fn() {
    const adb = heldRunner();
    const phones = createPhones({
      set: { kind: "default" },
      link: createLink({ run: adb.run, timeoutMs: 1000 }),
      makeDevice: (phone) => createDevice({ run: adb.run, timeoutMs: 1000, ...phone }),
    });
    const byDefault = phones.resolve(undefined);
    (await adb.next(/^devices$/)).answer(ONE_PHONE);
    const [a, b] = [await byDefault, await phones.resolve("R58N")];
    const taps = [a.run(tapCommand(1, 1)), b.run(tapCommand(2, 2))];
    // Both calls were made in one step: a second queue would have sent its tap by now.
    const inputs = () => adb.held.filter((h) => / shell input tap /.test(h.line));
    assert.deepEqual(inputs().map((h) => h.line.split(" ").slice(0, 6).join(" ")), [
      "-s R58N shell input tap 1",
    ]);
    inputs()[0]!.answer(exited(0, `${EXIT_MARKER}0\n`));
    (await adb.next(/input tap 2 2/)).answer(exited(0, `${EXIT_MARKER}0\n`));
    await Promise.all(taps);
    assert.equal(adb.most, 1, "one input on the phone at a time");
  },
});

Deno.test({
  name:
    "adb's only phone is taken again once it went away; none, several or one not ready are left to adb",
  permissions: "none",
  async fn() {
    const lists = [
      "List of devices attached\nR58N\tdevice\n\n",
      "List of devices attached\nR58N\toffline\nX1\tdevice\n\n",
      "List of devices attached\nX1\tdevice\n\n",
    ].map((text) => exited(0, text));
    const { phones, adb } = phonesOver({ kind: "default" }, [
      [/^devices$/, lists],
      [/^-s R58N shell/, exited(1, "", "error: device 'R58N' not found\n")],
    ]);
    const gone = await phones.resolve(undefined);
    await assert.rejects(gone.screenSize(), /no Android device reachable at R58N; adb sees/);
    assert.equal((await phones.resolve(undefined)).serial, "X1");
    assert.equal(adb.calls.filter((c) => c === "devices").length, 3);

    for (
      const list of [
        "List of devices attached\n\n",
        "List of devices attached\nR58N\tdevice\nX1\tdevice\n\n",
        "List of devices attached\nR58N\tunauthorized\n\n",
      ]
    ) {
      const left = phonesOver({ kind: "default" }, [[/^devices$/, exited(0, list)]]);
      assert.equal((await left.phones.resolve(undefined)).serial, undefined, list);
    }
  },
});

Deno.test({
  name: "a client holds at most its share of one phone's calls, and another client is admitted",
  permissions: "none",
  async fn() {
    const { phones } = phonesOver(listed("R58N", "X1"));
    const turns = [];
    for (let i = 0; i < CLIENT_CALLS_MAX; i++) turns.push(await phones.admit("R58N", "a"));
    await rejectsWith(
      phones.admit("R58N", "a"),
      "BUSY",
      new RegExp(`this client already has ${CLIENT_CALLS_MAX} calls for this phone, its share`),
    );
    // Another client, and the same client on another phone, are not held back.
    (await phones.admit("R58N", "b")).release();
    (await phones.admit("X1", "a")).release();
    // The only client (stdio, the doctor) may use the whole phone.
    for (let i = 0; i < 3 * CLIENT_CALLS_MAX; i++) await phones.admit("R58N", undefined);
    turns[0]!.release();
    turns[0]!.release(); // a second release frees nothing more
    const again = await phones.admit("R58N", "a");
    await rejectsWith(phones.admit("R58N", "a"), "BUSY", /its share/);
    again.release();
  },
});
