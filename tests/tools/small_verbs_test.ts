// The small verbs' arguments: phone_key takes a keycode as a JSON number or a string with one
// range message, and phone_tap's count sends a double or triple tap as one device command.

import assert from "node:assert/strict";
import { deviceShellLine } from "../../lib/adb/commands.ts";
import { multiTapCommand } from "../../lib/adb/input_commands.ts";
import { createDevice } from "../../lib/adb/device.ts";
import { MAX_KEYCODE, resolveKey } from "../../lib/adb/keys.ts";
import { fakeAdb } from "../helpers/fake_adb.ts";
import { connectInProcess, textOf } from "../helpers/in_process.ts";
import { type AdbHarness, startAdbHarness } from "../helpers/adb_harness.ts";
import { type PhoneEyeProcess, startPhoneEye } from "../helpers/phone_eye.ts";
import { type SimPhone, startSimPhone } from "../../sim/sim_phone.ts";

function fakePhone() {
  const adb = fakeAdb();
  return {
    device: createDevice({ run: adb.run, serial: "127.0.0.1:5555", timeoutMs: 1000 }),
    sent: adb.sent,
  };
}

Deno.test({
  name: "keycodes as numbers and strings resolve alike, with one range message",
  permissions: "none",
  fn() {
    assert.equal(MAX_KEYCODE, 337);
    for (const key of [66, "66", " 66 "]) assert.deepEqual(resolveKey(key), { code: 66 });
    assert.deepEqual(resolveKey(337), { code: 337 });
    const refusals = [0, 338, 350, -3, 66.5, "338", "0"].map((key) => resolveKey(key));
    for (const refusal of refusals) {
      assert.ok("error" in refusal);
      assert.match(refusal.error, /Android keycodes run from 1 to 337 \(KEYCODE_F24 on Android 16/);
      assert.doesNotMatch(refusal.error, /about|400/);
    }
    const unknown = resolveKey("teleport");
    assert.ok("error" in unknown);
    assert.match(unknown.error, /a numeric Android keycode from 1 to 337/);
  },
});

Deno.test({
  name: 'phone_key takes {key: 66} and {key: "66"}; a keycode out of range is refused the same way',
  permissions: "none",
  async fn() {
    const { device, sent } = fakePhone();
    const mcp = await connectInProcess({ device });
    try {
      const press = (key: unknown) =>
        mcp.client.callTool({ name: "phone_key", arguments: { key, settle: false } });
      // Named the same way however it was given; a code without a name is said as a keycode.
      assert.equal(textOf(await press(66)), "Pressed enter (keycode 66).");
      assert.equal(textOf(await press("66")), "Pressed enter (keycode 66).");
      assert.equal(textOf(await press("return")), "Pressed enter (keycode 66).");
      assert.equal(textOf(await press("300")), "Pressed keycode 300.");
      for (const key of [350, "350"]) {
        const refused = await press(key);
        assert.equal(refused.isError, true);
        assert.match(
          textOf(refused),
          /^Cannot press a key: unknown keycode 350: Android keycodes run from 1 to 337/,
        );
      }
      const fraction = await press(6.5);
      assert.equal(fraction.isError, true);
      assert.match(textOf(fraction), /^Cannot press a key: unknown keycode 6\.5/);
      assert.deepEqual(sent, [
        "input keyevent 66",
        "input keyevent 66",
        "input keyevent 66",
        "input keyevent 300",
      ]);
      const { tools } = await mcp.client.listTools();
      const key = (tools.find((t) => t.name === "phone_key")!.inputSchema.properties as Record<
        string,
        { anyOf?: Array<{ type: string }> }
      >).key!;
      assert.deepEqual(key.anyOf?.map((t) => t.type), ["string", "number"]);
    } finally {
      await mcp.close();
    }
  },
});

Deno.test({
  name: "phone_tap count 2 and 3 are one device command; count with hold_ms is refused",
  permissions: "none",
  async fn() {
    const { device, sent } = fakePhone();
    const mcp = await connectInProcess({ device });
    try {
      const tap = (args: Record<string, unknown>) =>
        mcp.client.callTool({ name: "phone_tap", arguments: { ...args, settle: false } });
      assert.equal(textOf(await tap({ x: 10, y: 20, count: 2 })), "Double-tapped (10, 20).");
      assert.equal(textOf(await tap({ x: 10, y: 20, count: 3 })), "Triple-tapped (10, 20).");
      assert.equal(textOf(await tap({ x: 10, y: 20, count: 1 })), "Tapped (10, 20).");
      for (const bad of [{ count: 4 }, { count: 0 }, { count: 2, hold_ms: 800 }]) {
        const refused = await tap({ x: 10, y: 20, ...bad });
        assert.equal(refused.isError, true, JSON.stringify(bad));
      }
      const both = await tap({ x: 10, y: 20, count: 2, hold_ms: 800 });
      assert.match(textOf(both), /give count .* or hold_ms .*, not both/);
      assert.deepEqual(sent, [
        "wm size",
        "input tap 10 20 && { sleep 0.05 2>/dev/null; :; } && input tap 10 20",
        deviceShellLine(multiTapCommand(10, 20, 3)),
        "input tap 10 20",
      ]);
      assert.equal(deviceShellLine(multiTapCommand(10, 20, 3)).split("input tap").length - 1, 3);
    } finally {
      await mcp.close();
    }
  },
});

Deno.test({
  name:
    "a double tap on the simulated phone: one adb command, the second tap at least 40 ms after the first",
  async fn() {
    let sim: SimPhone | undefined;
    let adb: AdbHarness | undefined;
    let eye: PhoneEyeProcess | undefined;
    try {
      sim = await startSimPhone();
      adb = await startAdbHarness();
      await adb.connect(sim.serial);
      eye = await startPhoneEye({ env: { ...adb.env, ANDROID_SERIAL: sim.serial } });
      const before = sim.commands().length;
      const result = await eye.client.callTool({
        name: "phone_tap",
        arguments: { x: 540, y: 1200, count: 2, settle: false },
      });
      assert.equal(result.isError, undefined, textOf(result));
      const commands = sim.commands().slice(before).filter((c) => c.includes("input tap"));
      assert.equal(commands.length, 1, "both taps travel in one adb command");
      assert.deepEqual(sim.toolCalls("input").slice(-2), [
        ["tap", "540", "1200"],
        ["tap", "540", "1200"],
      ]);
      const [first, second] = (await sim.tapTimes()).slice(-2) as [number, number];
      // Only the lower bound is a property of the command (the pause); the upper one depends on
      // the machine's load and is measured by bench/tap_gap_bench.ts instead.
      assert.ok(second - first >= 40, `taps ${(second - first).toFixed(1)} ms apart`);
    } finally {
      await eye?.close();
      await adb?.close();
      await sim?.close();
    }
  },
});
