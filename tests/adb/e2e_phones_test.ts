// Tier 3: two simulated phones behind one stdio server (PHONE_EYE_DEVICES), and one phone behind a
// second adb server reached through ADB_SERVER_SOCKET: real adb, main.ts under the production set.

import assert from "node:assert/strict";
import { closing, startRig } from "../helpers/rig.ts";
import { startPhoneEye } from "../helpers/phone_eye.ts";
import { textOf } from "../helpers/in_process.ts";
import { waitFor } from "../helpers/wait_for.ts";
import { startSimPhone } from "../../sim/sim_phone.ts";

Deno.test("two phones behind one server: listed, driven one by one, in parallel, nothing else", async (t) => {
  // Not connected beforehand: phone-eye attaches the listed addresses itself, on first use.
  await using rig = await startRig({
    phones: [{}, { model: "SimTablet", width: 1600, height: 2560, adbKeyboard: true }],
    connect: false,
    serial: null,
    phoneEye: false,
  });
  const [a, b] = rig.sims as [typeof rig.sims[0], typeof rig.sims[0]];
  // A third phone on the network that nobody listed.
  await using stranger = closing(await startSimPhone());
  await using eye = await startPhoneEye({
    env: {
      ...rig.env,
      PHONE_EYE_DEVICES: `${a.serial},${b.serial}`,
      PHONE_EYE_ADB_TIMEOUT_MS: "10000",
    },
  });
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = await eye.client.callTool({ name, arguments: args });
    return { isError: result.isError === true, text: textOf(result) };
  };

  await t.step("phone_devices connects the listed addresses and describes both", async () => {
    const listed = await call("phone_devices");
    assert.equal(listed.isError, false, listed.text);
    assert.match(listed.text, /^2 phones this server may drive \(PHONE_EYE_DEVICES\)/);
    assert.ok(
      listed.text.includes(
        `- ${a.serial}: device; SimPhone, Android 14, screen 1080×2400, no ADB Keyboard`,
      ),
      listed.text,
    );
    assert.ok(
      listed.text.includes(
        `- ${b.serial}: device; SimTablet, Android 14, screen 1600×2560, ADB Keyboard installed`,
      ),
      listed.text,
    );
    assert.equal(await rig.adb.state(a.serial), "device");
    assert.equal(await rig.adb.state(b.serial), "device");
  });

  await t.step("a tap with device reaches only that phone", async () => {
    const tap = await call("phone_tap", { device: b.serial, x: 800, y: 2000, settle: false });
    assert.equal(tap.isError, false, tap.text);
    assert.deepEqual(b.toolCalls("input"), [["tap", "800", "2000"]]);
    assert.deepEqual(a.toolCalls("input"), []);
  });

  await t.step("without device, the server asks which phone and names both", async () => {
    const tap = await call("phone_tap", { x: 10, y: 10, settle: false });
    assert.equal(tap.isError, true);
    assert.match(tap.text, new RegExp(`Which phone\\?.*${a.serial}, ${b.serial}`));
    assert.equal(a.toolCalls("input").length + b.toolCalls("input").length, 1);
  });

  await t.step(
    "a serial outside the set is refused naming it, and phone-eye never connects to it",
    async () => {
      const tap = await call("phone_tap", { device: stranger.serial, x: 10, y: 10, settle: false });
      assert.equal(tap.isError, true);
      assert.match(tap.text, new RegExp(`may drive only ${a.serial}, ${b.serial}`));
      const shell = await call("phone_shot", { device: "x;reboot" });
      assert.equal(shell.isError, true, "a serial outside the whitelist fails the schema");
      assert.match(shell.text, /device must be an adb serial/);
      assert.equal(stranger.connections(), 0);
      assert.equal(await rig.adb.state(stranger.serial), null);
    },
  );

  await t.step("phone B answers while phone A's screenshot is still held", async () => {
    a.faults.hang(/screencap/);
    let settled = false;
    const held = call("phone_shot", { device: a.serial }).finally(() => settled = true);
    await waitFor(() => a.commands().some((c) => c.includes("screencap")), "A's screencap");
    const key = await call("phone_key", { device: b.serial, key: "home", settle: false });
    assert.equal(key.isError, false, key.text);
    assert.equal(settled, false, "B's call ended first, while A's was held");
    // Let A go: its link drops, phone-eye reconnects it and replays the read-only screenshot.
    a.faults.clear();
    a.faults.dropNow();
    const shot = await held;
    assert.equal(shot.isError, false, shot.text);
  });

  await t.step("a dropped listed phone is healed, with read-only calls replayed", async () => {
    await rig.adb.adb("disconnect", a.serial);
    await rig.adb.waitForState(a.serial, null);
    const listed = await call("phone_devices");
    assert.ok(listed.text.includes(`- ${a.serial}: device; SimPhone`), listed.text);
    await rig.adb.adb("disconnect", a.serial);
    await rig.adb.waitForState(a.serial, null);
    const shot = await eye.client.callTool({ name: "phone_shot", arguments: { device: a.serial } });
    assert.notEqual(shot.isError, true, textOf(shot));
    assert.equal(stranger.connections(), 0);
  });
});

Deno.test("a shared adb server: ADB_SERVER_SOCKET reaches phones attached to another adb server", async (t) => {
  // The harness's adb server listens on a port of its own; phone-eye gets no
  // ANDROID_ADB_SERVER_PORT and a HOME of its own, only the socket, as on another machine.
  await using rig = await startRig({ phoneEye: false });
  const port = rig.adb.env.ANDROID_ADB_SERVER_PORT!;
  const home = await Deno.makeTempDir({ prefix: "phone_eye_elsewhere_" });
  try {
    const { ANDROID_ADB_SERVER_PORT: _, HOME: __, TMPDIR: ___, ...rest } = rig.env;
    for (
      const [how, server] of [
        ["ADB_SERVER_SOCKET", { ADB_SERVER_SOCKET: `tcp:127.0.0.1:${port}` }],
        ["ANDROID_ADB_SERVER_ADDRESS and _PORT", {
          ANDROID_ADB_SERVER_ADDRESS: "127.0.0.1",
          ANDROID_ADB_SERVER_PORT: port,
        }],
      ] as const
    ) {
      await t.step(`through ${how}`, async () => {
        await using eye = await startPhoneEye({
          env: { ...rest, ...server, HOME: home, TMPDIR: home, PHONE_EYE_DEVICES: "*" },
        });
        const listed = textOf(await eye.client.callTool({ name: "phone_devices", arguments: {} }));
        assert.ok(listed.includes(`- ${rig.sim.serial}: device; SimPhone`), listed);
        const before = rig.sim.toolCalls("input").length;
        const tap = await eye.client.callTool({
          name: "phone_tap",
          arguments: { device: rig.sim.serial, x: 5, y: 6, settle: false },
        });
        assert.notEqual(tap.isError, true, textOf(tap));
        assert.deepEqual(rig.sim.toolCalls("input").slice(before), [["tap", "5", "6"]]);
      });
    }
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("with nothing configured, a tap without device and one naming the phone never run on it at once", async () => {
  // adb's default device is the rig's only phone; phone-eye is told neither its serial nor a list.
  await using rig = await startRig({ serial: null, env: { PHONE_EYE_ADB_TIMEOUT_MS: "3000" } });
  const { sim } = rig;
  // Learn the screen size first, so each tap below is one `input` and nothing else.
  const warm = await rig.call("phone_tap", { x: 1, y: 1, settle: false });
  assert.notEqual(warm.isError, true, textOf(warm));
  sim.faults.hang(/input tap (11|22) /);
  const first = rig.call("phone_tap", { x: 11, y: 11, settle: false });
  await waitFor(() => sim.commands().some((c) => c.includes("input tap 11 ")), "the first tap");
  const second = rig.call("phone_tap", { device: sim.serial, x: 22, y: 22, settle: false });
  // The phone hangs the first tap until adb's timeout ends it: the second, by serial, waits its
  // turn on the same queue instead of reaching the phone beside it. Asked of the phone, which saw
  // the first tap's stream closed before the second's opened (the client may read the first
  // answer a moment after the second tap is sent: phone-eye frees the queue as it answers).
  let openWithSecond: string[] = [];
  await waitFor(
    () => {
      if (!sim.commands().some((c) => c.includes("input tap 22 "))) return false;
      openWithSecond = sim.openCommands();
      return true;
    },
    "the second tap",
    30_000,
  );
  assert.ok(
    !openWithSecond.some((c) => c.includes("input tap 11 ")),
    `the second tap reached the phone while the first ran: ${openWithSecond.join(" | ")}`,
  );
  sim.faults.clear();
  assert.match(textOf(await first), /did not finish within 3000 ms/);
  await second;
});
