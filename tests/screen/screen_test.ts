// captureScreen's ways round capture quirks, on a scripted adb and then end to end: which answer
// means a secure window or a screen that is off, which the MIUI empty-PNG quirk, and which a link.

import assert from "node:assert/strict";
import { createDevice } from "../../lib/adb/device.ts";
import { AdbError } from "../../lib/adb/errors.ts";
import { encodePng } from "../../lib/image/encode.ts";
import { agentSizing, fitFor } from "../../lib/image/sizing.ts";
import { decodePng } from "../fixtures/images/pipeline.ts";
import { captureScreen } from "../../lib/screen/screen.ts";
import { textOf } from "../helpers/in_process.ts";
import { type Rig, SMALL_PHONE, startRig } from "../helpers/rig.ts";
import { waitFor } from "../helpers/wait_for.ts";
import { exited, fakeAdb, type FakeAnswer, type FakeRule } from "../helpers/fake_adb.ts";

/** A raw `screencap` frame (16-byte header, RGBA_8888) of a small gradient. */
function rawFrame(width: number, height: number): FakeAnswer {
  const out = new Uint8Array(16 + width * height * 4);
  const view = new DataView(out.buffer);
  view.setUint32(0, width, true);
  view.setUint32(4, height, true);
  view.setUint32(8, 1, true);
  view.setUint32(12, 1, true);
  for (let i = 0; i < width * height; i++) {
    out.set([(i * 7) % 256, (i * 13) % 256, (i * 29) % 256, 255], 16 + i * 4);
  }
  return { kind: "exited", code: 0, stdout: out, stderr: "" };
}

/** Decode at the frame's own size. */
const FULL_SIZE = (width: number, height: number) => ({ width, height });

function deviceAnswering(png: FakeAnswer, raw: FakeAnswer) {
  const adb = fakeAdb([
    [/exec-out screencap -p$/, png],
    [/exec-out screencap$/, raw],
    // The link holds: a failed capture is the phone's doing.
    [/get-state$/, exited(0, "device\n")],
  ]);
  return { adb, device: createDevice({ run: adb.run, serial: undefined, timeoutMs: 1000 }) };
}

Deno.test({
  name: "both screenshot routes empty: a secure window or a screen off, and the UI tree instead",
  permissions: "none",
  async fn() {
    // Android 10-14 with a FLAG_SECURE window: screencap exits 1 with no output, and exec-out
    // turns that into empty and 0 (docs/android.md, screencap).
    const { adb, device } = deviceAnswering(exited(0, ""), exited(0, ""));
    await assert.rejects(
      captureScreen(device, FULL_SIZE),
      (error: unknown) => {
        assert.ok(error instanceof AdbError);
        assert.equal(error.code, "COMMAND_FAILED");
        assert.match(
          error.message,
          /^the phone returned no image at all, .*secure window .*FLAG_SECURE: banking apps, password.*screen is off or locked\. phone_look's \[ui-tree\] still lists the screen's elements .*phone_key "wake"/,
        );
        assert.doesNotMatch(error.message, /MIUI|reboot/);
        return true;
      },
    );
    assert.deepEqual(adb.sent, ["screencap -p", "screencap"]);
  },
});

Deno.test({
  name: "newer builds' one-line refusal counts as no image too, and is quoted",
  permissions: "none",
  async fn() {
    const { device } = deviceAnswering(
      exited(0, "Failed to take screenshot. Status: -1\n"),
      exited(0, "Capturing failed.\n"),
    );
    await assert.rejects(
      captureScreen(device, FULL_SIZE),
      /no image at all, from "screencap -p" nor from raw "screencap" \(it said "Failed to take screenshot\. Status: -1"\)\. Android 10-14 refuse .*secure window/,
    );
  },
});

Deno.test({
  name: "an empty PNG with a working raw frame is the MIUI quirk: the frame comes back with a note",
  permissions: "none",
  async fn() {
    const { device } = deviceAnswering(exited(0, ""), rawFrame(8, 4));
    const shot = await captureScreen(device, FULL_SIZE);
    assert.deepEqual([shot.frame.image.width, shot.frame.image.height], [8, 4]);
    assert.deepEqual([shot.frame.width, shot.frame.height], [8, 4]);
    // PHONE_EYE_SHOTS gets a PNG encoded on the host from the raw frame, only when asked.
    assert.deepEqual((await decodePng(shot.png())).data, shot.frame.image.data);
    assert.match(shot.note ?? "", /empty PNG \(a known quirk of some MIUI builds\)/);
  },
});

Deno.test({
  name: "a PNG and a raw frame that both come back unreadable keep the MIUI advice",
  permissions: "none",
  async fn() {
    const { device } = deviceAnswering(exited(0, ""), exited(0, "garbage"));
    await assert.rejects(
      captureScreen(device, FULL_SIZE),
      /returned an empty PNG and the raw "screencap" fallback failed too .*Some MIUI builds/,
    );
  },
});

Deno.test({
  name: "the raw fallback is reduced to the size asked for, straight from the phone's bytes",
  permissions: "none",
  async fn() {
    const { device } = deviceAnswering(exited(0, ""), rawFrame(16, 32));
    const shot = await captureScreen(
      device,
      fitFor(agentSizing({ maxEdge: 8 })),
    );
    assert.deepEqual([shot.frame.image.width, shot.frame.image.height], [4, 8]);
    assert.deepEqual([shot.frame.width, shot.frame.height], [16, 32]);
    assert.equal(shot.frame.blank, null);
  },
});

/** A device whose capture comes back empty and whose link check answers `state`. */
function afterLinkLoss(
  serial: string | undefined,
  state: FakeAnswer,
  png: FakeRule = exited(0, ""),
) {
  const adb = fakeAdb([
    [/exec-out screencap -p$/, png],
    [/exec-out screencap$/, rawFrame(8, 4)],
    [/get-state$/, state],
  ]);
  return { adb, device: createDevice({ run: adb.run, serial, timeoutMs: 1000 }) };
}

Deno.test({
  name: "an empty screenshot after the adb server was killed is a connection failure, not MIUI",
  permissions: "none",
  async fn() {
    // The capture's server died; the check's adb started a new one, which sees the USB phone.
    const { adb, device } = afterLinkLoss(
      "R58M123ABC",
      exited(
        0,
        "device\n",
        "* daemon not running; starting now at tcp:5037\n* daemon started successfully\n",
      ),
    );
    await assert.rejects(
      captureScreen(device, FULL_SIZE),
      (error: unknown) => {
        assert.ok(error instanceof AdbError);
        assert.equal(error.code, "TRANSPORT");
        assert.match(
          error.message,
          /^the connection to the phone failed during the capture: "screencap -p" returned nothing, and the adb server had stopped under it .*not the phone: check the cable/,
        );
        assert.doesNotMatch(error.message, /MIUI|reboot/);
        return true;
      },
    );
    assert.deepEqual(adb.sent, ["screencap -p"], "no raw fallback on a dead link");
  },
});

Deno.test({
  name:
    "an empty screenshot on a phone adb no longer sees is a connection failure, naming adb's words",
  permissions: "none",
  async fn() {
    const { device } = afterLinkLoss(
      undefined,
      exited(1, "", "error: no devices/emulators found\n"),
    );
    await assert.rejects(
      captureScreen(device, FULL_SIZE),
      /^AdbError: the connection to the phone failed during the capture: "screencap -p" returned nothing, and then adb's check of the link failed: no Android device/,
    );
  },
});

Deno.test({
  name:
    "an empty screenshot on a dropped Wi-Fi link is taken again once the link is back, with no note",
  permissions: "none",
  async fn() {
    const whole = encodePng({ width: 4, height: 2, data: new Uint8Array(32).map((_, i) => i * 7) });
    const { adb, device } = afterLinkLoss(
      "192.168.1.20:5555",
      exited(1, "", "error: device offline\n"),
      [exited(0, ""), { kind: "exited", code: 0, stdout: whole, stderr: "" }],
    );
    const shot = await captureScreen(device, FULL_SIZE);
    assert.deepEqual([shot.frame.width, shot.frame.height], [4, 2]);
    assert.equal(shot.note, undefined);
    assert.deepEqual(adb.sent, ["screencap -p", "screencap -p"]);
  },
});

// ---- through main.ts, real adb and the simulated phone ----

/**
 * The rig on a Wi-Fi serial the tests below share (started on first use, closed after the file):
 * each clears the faults it arms, and a killed adb server is started again by phone-eye's next adb
 * call, which reconnects the phone. Their sanitizers are off: the rig's sockets and processes
 * outlive each test.
 */
let wifi: Promise<Rig> | undefined;
const wifiRig = () => wifi ??= startRig({ phones: [SMALL_PHONE] });
Deno.test.afterAll(async () => {
  const rig = await wifi?.catch(() => undefined);
  await rig?.[Symbol.asyncDispose]();
});

/** Calls phone_shot, and once the phone has the capture, kills the adb server under it. */
async function shotWithServerKilled(r: Rig, clearHang: boolean) {
  r.sim.faults.hang(/screencap/);
  const before = r.sim.commands().length;
  const shot = r.call("phone_shot");
  await waitFor(
    () => r.sim.commands().slice(before).some((c) => c.includes("screencap")),
    "the capture to reach the phone",
  );
  const killed = await r.adb.adb("kill-server");
  assert.equal(killed.code, 0, killed.stderr);
  if (clearHang) r.sim.faults.clear();
  return await shot;
}

Deno.test("end to end: killing the adb server mid-capture is named a connection failure, never MIUI", async () => {
  // Nothing configured: adb's only phone, driven by its serial but never reconnected by phone-eye,
  // so the answer is the failure itself: the restarted server no longer lists the address.
  await using r = await startRig({ serial: null, phones: [SMALL_PHONE] });
  const shot = await shotWithServerKilled(r, true);
  assert.equal(shot.isError, true, textOf(shot));
  const at = r.sim.serial.replaceAll(".", "\\.");
  assert.match(
    textOf(shot),
    new RegExp(
      `^Cannot take a screenshot: no Android device reachable at ${at}; adb sees no device; run "adb connect ${at}"`,
    ),
  );
  assert.doesNotMatch(textOf(shot), /MIUI|reboot|firmware/);
});

Deno.test({
  name:
    "end to end: on a Wi-Fi serial the capture is taken again after the server restarts, with no MIUI note",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const r = await wifiRig();
    const shot = await shotWithServerKilled(r, true);
    assert.notEqual(shot.isError, true, textOf(shot));
    assert.equal(shot.content[0]?.type, "image");
    assert.doesNotMatch(textOf(shot), /MIUI|quirk/);
  },
});

Deno.test({
  name: "end to end: the genuine empty-PNG quirk on a healthy link still gets the firmware note",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const r = await wifiRig();
    r.sim.faults.emptyPng(true);
    try {
      const shot = await r.call("phone_shot");
      assert.notEqual(shot.isError, true, textOf(shot));
      assert.match(
        textOf(shot),
        /empty PNG \(a known quirk of some MIUI builds\), so the raw frame/,
      );
    } finally {
      r.sim.faults.clear();
    }
  },
});
