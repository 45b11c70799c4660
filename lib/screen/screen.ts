// Reads the screen through the device: the screenshot (with its capture quirks) and the UI tree.
// All I/O goes through Device.run, so the adb layer's classification and replay rules apply.

import { screencapPngCommand, screencapRawCommand } from "../adb/screen_commands.ts";
import type { Device } from "../adb/device.ts";
import { AdbError, isNetworkSerial } from "../adb/errors.ts";
import { releaseBytes } from "../core/bytes.ts";
import type { Clock } from "../core/clock.ts";
import { joinFacts } from "../core/errors.ts";
import { excerpt } from "../core/text.ts";
import { encodePng } from "../image/encode.ts";
import { type Fit, type Frame, ImageError } from "../image/frame.ts";
import { readPngStream } from "../image/png_decode.ts";
import { isCompletePng } from "../image/png_chunks.ts";
import { decodeRawScreencap, readRawScreencap } from "../image/raw_screencap.ts";
import type { PhoneScreen } from "./phone_screen.ts";
import { readDump } from "./ui_dump.ts";
import { parseUiTree, type UiElement } from "./ui_tree.ts";

/**
 * A capture. Disposing of it (`using shot = await captureScreen(...)`) hands the frame's pixels
 * back at once, megabytes the next capture reuses instead of faulting in fresh pages; the frame
 * must not be read after that. The PNG stays valid: a save may still be writing it.
 */
export interface Screenshot extends Disposable {
  /** The pixels at the size the caller asked for, with the screen's own size. */
  frame: Frame;
  /**
   * The full-size PNG to keep in PHONE_EYE_SHOTS: the phone's own, or (after the raw fallback)
   * encoded from the raw frame only when asked for.
   */
  png(): Uint8Array;
  /** Set when the capture needed a way round a device quirk, for the agent to know. */
  note: string | undefined;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47];

/**
 * A PNG cut short: it starts like a PNG but has no IEND. An empty answer is not truncation but
 * the MIUI quirk handled below, so it is accepted here and not replayed. (Android 10-14 also
 * answer a secure window with empty output and exit 1, which exec-out turns into 0: docs/android.md.)
 */
function wholeOrEmpty(bytes: Uint8Array): boolean {
  const looksLikePng = PNG_SIGNATURE.every((b, i) => bytes[i] === b);
  return !looksLikePng || isCompletePng(bytes);
}

/**
 * Takes a screenshot, decoded straight to the size `fit` asks for (lib/image/png_decode.ts).
 * `screencap -p` is tried first: compressed on the phone, so a phone screen crosses the link as
 * tens to hundreds of KB instead of the 10 MB of a raw 1080×2400 frame, which on the simulated
 * phone's loopback alone costs more than the PNG's decode (bench/look_bench.ts), and over Wi-Fi
 * far more. Some MIUI builds start returning empty PNGs after long sessions (docs/android.md,
 * reported OEM quirks; an OEM behaviour with no AOSP source); then the raw frame is fetched and decoded
 * on the host, but only once `adb get-state` has shown the link held (linkTrouble): an empty
 * answer is also all a killed adb server or a dropped link leaves, which is said as a connection
 * failure (a Wi-Fi link is revived and the capture taken again first). When the raw frame is empty
 * too, no capture was made at all: screencap returns 1 with no output when
 * ScreenshotClient::capture fails (https://github.com/aosp-mirror/platform_frameworks_base/blob/c3c40e691dca0c2d82550ebb8dc50159938521a3/cmds/screencap/screencap.cpp),
 * which Android 10-14 do while a secure window shows, and exec-out drops the status (docs/android.md,
 * screencap). A frame that is all black or one colour (Android 15+ blacks out secure windows) is
 * refused with its likely cause, instead of handing back a blank picture as if it were the screen.
 */
export async function captureScreen(
  device: Device,
  fit: Fit,
  signal?: AbortSignal,
): Promise<Screenshot> {
  const capturePng = async () =>
    (await device.run(screencapPngCommand(), { complete: wholeOrEmpty, signal })).stdout;
  let stdout = await capturePng();
  let frame = await pngFrame(stdout, fit);
  if (frame instanceof ImageError) {
    // An empty answer is also what a dropped link or a killed adb server leaves (exec-out exits 0
    // with nothing: docs/android.md, the adb client), so the phone is blamed only once the link is
    // proven healthy. A Wi-Fi link is revived by running the capture again (Device.run).
    let trouble = await linkTrouble(device);
    if (trouble !== null && isNetworkSerial(device.serial)) {
      stdout = await capturePng();
      frame = await pngFrame(stdout, fit);
      trouble = frame instanceof ImageError ? await linkTrouble(device) : null;
    }
    if (trouble !== null) throw connectionFailed(`"screencap -p" ${gave(stdout)}`, trouble);
  }
  let png = (): Uint8Array => stdout;
  let note: string | undefined;
  if (frame instanceof ImageError) {
    const error = frame;
    const raw = await device.run(screencapRawCommand(), { signal });
    const refusal = [captureRefusal(stdout), captureRefusal(raw.stdout)];
    const bothRefused = refusal[0] !== null && refusal[1] !== null;
    let rawFrame: Frame | ImageError | undefined;
    if (!bothRefused) rawFrame = await frameOrError(() => readRawScreencap(raw.stdout, fit));
    if (rawFrame === undefined || rawFrame instanceof ImageError) {
      const trouble = await linkTrouble(device);
      if (trouble !== null) throw connectionFailed(`raw "screencap" ${gave(raw.stdout)}`, trouble);
    }
    if (rawFrame === undefined) {
      const said = refusal.find((r) => r !== null && r !== "");
      throw new AdbError("COMMAND_FAILED", {
        what: `the phone returned no image at all, from "screencap -p" nor from raw "screencap"${
          said ? ` (it said "${said}")` : ""
        }. Android 10-14 refuse screenshots this way while a secure window is showing (FLAG_SECURE: banking apps, password, payment and DRM video screens), and while the screen is off or locked. phone_look's [ui-tree] still lists the screen's elements and where to tap them: use it; if the screen may be off, send phone_key "wake" and unlock it`,
      });
    }
    if (rawFrame instanceof ImageError) {
      throw new AdbError("COMMAND_FAILED", {
        what: `"screencap -p" returned ${
          stdout.length === 0 ? "an empty PNG" : `an unreadable PNG (${error.message})`
        } and the raw "screencap" fallback failed too (${rawFrame.message}). Some MIUI builds do this after long sessions; rebooting the phone restores screenshots`,
      });
    }
    frame = rawFrame;
    png = () => encodePng(decodeRawScreencap(raw.stdout));
    note = `"screencap -p" returned ${
      stdout.length === 0 ? "an empty PNG" : "an unreadable PNG"
    } (a known quirk of some MIUI builds), so the raw frame was captured and encoded on the host`;
  }
  const blank = frame.blank;
  if (blank) {
    throw new AdbError("COMMAND_FAILED", {
      what: `the screenshot is ${
        blank === "black" ? "all black" : "a single flat colour"
      }, so it shows nothing usable. Either the app marks its window secure (FLAG_SECURE: banking, passwords, DRM video), which hides it from screenshots, or the screen is off or locked — try phone_key "wake", and rely on the UI tree (phone_look's [ui-tree]) for secure screens`,
    });
  }
  return {
    frame,
    png,
    note,
    [Symbol.dispose]() {
      releaseBytes(frame.image.data);
    },
  };
}

/** The frame a decode gives, or its ImageError (any other error is thrown). */
async function frameOrError(
  decode: () => Frame | Promise<Frame>,
): Promise<Frame | ImageError> {
  try {
    return await decode();
  } catch (error) {
    if (error instanceof ImageError) return error;
    throw error;
  }
}

const pngFrame = (bytes: Uint8Array, fit: Fit) => frameOrError(() => readPngStream(bytes, fit));

/** What a capture gave, for a message: "returned nothing" or its size. */
const gave = (bytes: Uint8Array) =>
  bytes.length === 0 ? "returned nothing" : `returned ${bytes.length} bytes that are no image`;

/**
 * Whether the link to the phone held, asked of adb after a capture came back empty or unreadable
 * (the link's health, lib/adb/link.ts): null when it held, else what went wrong, in words. A server
 * that had to be started again was killed or crashed under the capture, even if the new one sees
 * the phone.
 */
async function linkTrouble(device: Device): Promise<string | null> {
  const health = await device.linkHealth();
  switch (health.kind) {
    case "held":
      return null;
    case "check-failed":
      // The check's facts alone: the capture's own words already say what failed.
      return `then adb's check of the link failed: ${excerpt(joinFacts(health.error))}`;
    case "server-restarted":
      return "the adb server had stopped under it (adb had to start a new one)";
    case "state":
      return `then adb reported the phone as "${excerpt(health.state)}"`;
  }
}

/** A capture lost to the link or the adb server, said as such: no firmware is blamed. */
function connectionFailed(gave: string, trouble: string): AdbError {
  return new AdbError("TRANSPORT", {
    what:
      `the connection to the phone failed during the capture: ${gave}, and ${trouble}. This is the USB or Wi-Fi link or the adb server, not the phone: check the cable or Wi-Fi link and that nothing stopped the adb server, then call the tool again`,
  });
}

/**
 * Whether a capture's output is a refusal rather than an image: nothing at all, or (newer
 * builds, docs/android.md, unverified) screencap's one-line "Failed to take screenshot. Status: N" or
 * "Capturing failed.", which exec-out mixes into stdout. Returns that line ("" when empty), or
 * null for output that may be an image.
 */
function captureRefusal(bytes: Uint8Array): string | null {
  if (bytes.length === 0) return "";
  if (bytes.length > 256) return null;
  const text = new TextDecoder().decode(bytes).trim();
  return /^(Failed to take screenshot\b[^\n]*|Capturing failed\.?)$/.test(text) ? text : null;
}

/** How often, and how long apart, a dump is retried on an animated screen. */
const IDLE_RETRIES: ReadonlyArray<{ compressed: boolean; waitMs: number }> = [
  { compressed: false, waitMs: 0 },
  { compressed: true, waitMs: 0 },
  { compressed: true, waitMs: 400 },
];

/**
 * Reads the UI tree (ui_dump.ts: to /dev/tty, or to a file on a phone that refuses it).
 * uiautomator exits 0 when it fails, so its "ERROR:" line is what tells: DumpCommand.run prints it
 * and returns, after waiting up to 10 s for the screen to go idle,
 * https://github.com/aosp-mirror/platform_frameworks_base/blob/4fecab570da64a1956352aedf1b3245d3ba26030/cmds/uiautomator/cmds/uiautomator/src/com/android/commands/uiautomator/DumpCommand.java
 * "could not get idle state" (an animated screen) is retried with --compressed, which clears
 * FLAG_INCLUDE_NOT_IMPORTANT_VIEWS so only views important for accessibility are walked
 * (UiAutomationShellWrapper.setCompressedLayoutHierarchy, same commit, library/testrunner-src/).
 * `signal` (the call's cancel) stops the dump under way and every retry after it.
 */
export async function readUiTree(
  screen: PhoneScreen,
  clock: Clock,
  signal?: AbortSignal,
): Promise<UiElement[]> {
  let lastReason = "";
  for (const { compressed, waitMs } of IDLE_RETRIES) {
    if (waitMs > 0) await clock.sleep(waitMs, signal);
    const { dump } = await readDump(screen, { compressed, signal });
    if (dump.ok) return parseUiTree(dump.xml);
    lastReason = dump.reason;
    if (!dump.idleState) {
      throw new AdbError("COMMAND_FAILED", {
        what:
          `uiautomator said "${dump.reason}". Some screens (games, video, secure or canvas-drawn apps) expose no UI tree`,
        fix: "the screenshot still shows them",
      });
    }
  }
  throw new AdbError("COMMAND_FAILED", {
    what:
      `uiautomator said "${lastReason}" ${IDLE_RETRIES.length} times: the screen keeps animating (video, game, live wallpaper or a spinner). Use the screenshot, or wait and look again`,
  });
}
