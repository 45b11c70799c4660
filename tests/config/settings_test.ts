// Settings that say what they do: a PHONE_EYE_DEVICES that names no phone, or names one badly, is
// refused at start instead of widening the phones an agent may drive; every numeric variable is
// read by one rule and refused at start with its range.

import assert from "node:assert/strict";
import { ConfigError, type EnvVar, loadConfig } from "../../lib/config/config.ts";
import { wholeNumber } from "../../lib/config/whole_number.ts";

const env = (vars: Partial<Record<EnvVar, string>>) => (name: EnvVar) => vars[name];

function refused(vars: Partial<Record<EnvVar, string>>, message: RegExp): string {
  let said = "";
  assert.throws(
    () => loadConfig(env(vars)),
    (error: Error) => {
      said = error.message;
      return error instanceof ConfigError && message.test(error.message);
    },
    JSON.stringify(vars),
  );
  return said;
}

Deno.test({
  name:
    "a PHONE_EYE_DEVICES that names no phone is refused, never widened to every phone adb lists",
  permissions: "none",
  fn() {
    // Beside ANDROID_SERIAL, as the attack found it: ",," used to mean "unset", and then "default".
    for (const value of [",,", " ", "  ,  ", ","]) {
      const said = refused(
        { PHONE_EYE_DEVICES: value, ANDROID_SERIAL: "emulator-5554" },
        /^PHONE_EYE_DEVICES is ".*", which names no phone: list the serials "adb devices" prints/,
      );
      assert.match(said, /or \* for any phone adb lists/);
    }
    for (const value of ["a1,,b2", "a1,", ",a1", "a1, ,b2"]) {
      refused({ PHONE_EYE_DEVICES: value }, /^PHONE_EYE_DEVICES has an empty entry \(entry \d of /);
    }
    // Exactly empty is unset: an MCP bundle's blank field reaches phone-eye as "".
    assert.deepEqual(loadConfig(env({ PHONE_EYE_DEVICES: "" })).phones, { kind: "default" });
    assert.deepEqual(
      loadConfig(env({ PHONE_EYE_DEVICES: "", ANDROID_SERIAL: "emulator-5554" })).phones,
      { kind: "listed", serials: ["emulator-5554"], from: "ANDROID_SERIAL" },
    );
    assert.deepEqual(loadConfig(env({ PHONE_EYE_DEVICES: " a1 , b2 " })).phones, {
      kind: "listed",
      serials: ["a1", "b2"],
      from: "PHONE_EYE_DEVICES",
    });
  },
});

Deno.test({
  name: "a serial with shell characters in PHONE_EYE_DEVICES is refused, quoted and cut",
  permissions: "none",
  fn() {
    for (const hostile of ["a1;reboot", "$(id)", "`id`", "a|b", "a&b", "a>b", "a\nb", "a b"]) {
      const said = refused(
        { PHONE_EYE_DEVICES: `ok1,${hostile}` },
        /^Invalid serial ".*" in PHONE_EYE_DEVICES: use the serial "adb devices" prints/,
      );
      assert.doesNotMatch(said, /\n/, "a control character is escaped, not printed");
    }
    const long = refused({ PHONE_EYE_DEVICES: "x".repeat(5000) }, /^Invalid serial "x{60}"…/);
    assert.ok(long.length < 300, long);
  },
});

Deno.test({
  name: "every numeric variable is refused at start with its range, vision's timeout included",
  permissions: "none",
  fn() {
    const ranges: Array<[EnvVar, RegExp]> = [
      [
        "PHONE_EYE_ADB_TIMEOUT_MS",
        /^PHONE_EYE_ADB_TIMEOUT_MS must be a whole number of milliseconds from 100 to 600000$/,
      ],
      [
        "PHONE_EYE_VISION_TIMEOUT_MS",
        /^PHONE_EYE_VISION_TIMEOUT_MS must be a whole number of milliseconds from 100 to 600000$/,
      ],
      ["PHONE_EYE_SHOTS_MAX_MB", /^PHONE_EYE_SHOTS_MAX_MB must be a whole number of MiB from 8 /],
    ];
    for (const [name, range] of ranges) {
      for (const bad of ["-5", "0", "1.5", "1e3", "0x10", "+200", "soon", "10 s", "9".repeat(30)]) {
        // With a vision route set, so a refused vision timeout cannot hide as "vision off".
        refused({ PHONE_EYE_VISION_URL: "http://127.0.0.1:9/mcp", [name]: bad }, range);
      }
    }
    const config = loadConfig(env({
      PHONE_EYE_VISION_URL: "http://127.0.0.1:9/mcp",
      PHONE_EYE_VISION_TIMEOUT_MS: " 100 ",
      PHONE_EYE_ADB_TIMEOUT_MS: "600000",
    }));
    assert.equal(config.vision.route === "mcp" && config.vision.timeoutMs, 100);
    assert.equal(config.adbTimeoutMs, 600_000);
  },
});

Deno.test({
  name: "wholeNumber takes digits inside the range, the fallback when blank, and nothing else",
  permissions: "none",
  fn() {
    const rule = { unit: "things", min: 2, max: 9 };
    assert.equal(wholeNumber("N", undefined, rule, 5), 5);
    assert.equal(wholeNumber("N", "  ", rule, 5), 5);
    assert.equal(wholeNumber("N", "09", rule, 5), 9);
    for (const bad of ["1", "10", "-3", "3.0", "Infinity", "NaN", "٣"]) {
      assert.throws(
        () => wholeNumber("N", bad, rule, 5),
        (error: Error) => error.message === "N must be a whole number of things from 2 to 9",
        bad,
      );
    }
    assert.throws(
      () => wholeNumber("N", "1", { ...rule, minWhy: "one is lonely" }, 5),
      (error: Error) =>
        error.message === "N must be a whole number of things from 2 (one is lonely) to 9",
    );
  },
});
