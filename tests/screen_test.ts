// captureScreen's ways round capture quirks, on a scripted adb: which answer means a secure window
// or a screen that is off (both routes empty), and which the MIUI empty-PNG quirk (raw works).

import assert from "node:assert/strict";
import { createDevice } from "../lib/adb/device.ts";
import { AdbError } from "../lib/adb/errors.ts";
import { agentSizing, fitFor } from "../lib/image/sizing.ts";
import { decodePng } from "./fixtures/images/pipeline.ts";
import { captureScreen } from "../lib/screen.ts";
import { exited, fakeAdb, type FakeAnswer } from "./helpers/fake_adb.ts";

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
  const adb = fakeAdb([[/exec-out screencap -p$/, png], [/exec-out screencap$/, raw]]);
  return { adb, device: createDevice({ run: adb.run, serial: undefined, timeoutMs: 1000 }) };
}

Deno.test({
  name: "both screenshot routes empty: a secure window or a screen off, and the UI tree instead",
  permissions: "none",
  async fn() {
    // Android 10-14 with a FLAG_SECURE window: screencap exits 1 with no output, and exec-out
    // turns that into empty and 0 (ANDROID.md, `screencap`).
    const { adb, device } = deviceAnswering(exited(0, ""), exited(0, ""));
    await assert.rejects(
      captureScreen(device, "take a screenshot", FULL_SIZE),
      (error: unknown) => {
        assert.ok(error instanceof AdbError);
        assert.equal(error.code, "COMMAND_FAILED");
        assert.match(
          error.message,
          /^Cannot take a screenshot: the phone returned no image at all, .*secure window .*FLAG_SECURE: banking apps, password.*screen is off or locked\. phone_look's \[ui-tree\] still lists the screen's elements .*phone_key "wake"/,
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
      captureScreen(device, "take a screenshot", FULL_SIZE),
      /no image at all, from "screencap -p" nor from raw "screencap" \(it said "Failed to take screenshot\. Status: -1"\)\. Android 10-14 refuse .*secure window/,
    );
  },
});

Deno.test({
  name: "an empty PNG with a working raw frame is the MIUI quirk: the frame comes back with a note",
  permissions: "none",
  async fn() {
    const { device } = deviceAnswering(exited(0, ""), rawFrame(8, 4));
    const shot = await captureScreen(device, "take a screenshot", FULL_SIZE);
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
      captureScreen(device, "take a screenshot", FULL_SIZE),
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
      "take a screenshot",
      fitFor(agentSizing({ maxEdge: 8 })),
    );
    assert.deepEqual([shot.frame.image.width, shot.frame.image.height], [4, 8]);
    assert.deepEqual([shot.frame.width, shot.frame.height], [16, 32]);
    assert.equal(shot.frame.blank, null);
  },
});
