// Classifies a failed adb run into one AdbError with a code, in one ordered, table-driven function.
// Pure: it reads an AdbOutcome and the context of the call; it never runs adb itself.

import { AgentError } from "../errors.ts";
import { excerpt } from "../text.ts";
import type { AdbOutcome } from "./runner.ts";

export type AdbErrorCode =
  | "ADB_NOT_FOUND"
  | "ADB_NOT_PERMITTED"
  | "TIMEOUT"
  | "MULTIPLE_DEVICES"
  | "UNAUTHORIZED"
  | "NO_DEVICE"
  | "RECONNECTED"
  | "TRANSPORT"
  | "COMMAND_FAILED";

/** The one error type of the adb layer: tests assert `code`, agents read `message`. */
export class AdbError extends AgentError<AdbErrorCode> {
  override name = "AdbError";
}

/** What the classifier needs to know about the call, to write a message an agent can act on. */
export interface AdbCallContext {
  /** What the tool was doing, as a verb phrase: "tap", "take a screenshot". */
  action: string;
  /** The serial in use, or undefined for adb's default device. */
  serial: string | undefined;
  /** The device command, for timeout messages. */
  command: string;
}

/** A Wi-Fi (TCP) serial such as 192.168.1.20:5555: the only kind `adb connect` can revive. */
export function isNetworkSerial(serial: string | undefined): serial is string {
  return serial !== undefined && /^(\[[0-9a-fA-F:.]+\]|[\w.-]+):\d{1,5}$/.test(serial);
}

/** Per-OS install hint, shown when adb is not on PATH. */
function installHint(os: string): string {
  switch (os) {
    case "darwin":
      return "install it with `brew install android-platform-tools`";
    case "windows":
      return "install it with `winget install Google.PlatformTools` (or download platform-tools from developer.android.com) and add it to PATH";
    default:
      return "install it with `sudo apt-get install adb` (Debian/Ubuntu), `sudo dnf install android-tools` (Fedora), or download platform-tools from developer.android.com";
  }
}

function where(serial: string | undefined): string {
  return serial === undefined ? "" : ` at ${serial}`;
}

function connectHint(serial: string | undefined): string {
  return isNetworkSerial(serial)
    ? `run "adb connect ${serial}" and check the phone is on the same network with wireless debugging on`
    : `plug the phone in by USB with USB debugging on, or for Wi-Fi run "adb connect <phone-ip>:5555" and set ANDROID_SERIAL to that address`;
}

/**
 * adb's own error texts, in the order they are checked. Sources: adb 29.0.6 client output
 * (client/adb_client.cpp, transport.cpp): "error: more than one device/emulator",
 * "error: device 'X' not found", "error: no devices/emulators found", "error: device offline",
 * "error: device unauthorized.", "error: closed" (the link was cut while sending).
 */
const KNOWN_TEXTS: ReadonlyArray<{
  pattern: RegExp;
  code: AdbErrorCode;
  message: (ctx: AdbCallContext) => string;
}> = [
  {
    pattern: /more than one (device|emulator)/i,
    code: "MULTIPLE_DEVICES",
    message: (ctx) =>
      `Cannot ${ctx.action}: more than one Android device is attached and no serial was chosen; set ANDROID_SERIAL (or start phone-eye with --serial) to the one to drive — one phone-eye process drives one phone`,
  },
  {
    pattern: /device unauthorized/i,
    code: "UNAUTHORIZED",
    message: (ctx) =>
      `Cannot ${ctx.action}: the phone${
        where(ctx.serial)
      } has not authorized this computer; unlock it and accept the "Allow USB debugging?" prompt, then call the tool again`,
  },
  {
    pattern:
      /no devices\/emulators found|device '[^']*' not found|device offline|device still connecting|no devices found|device not found/i,
    code: "NO_DEVICE",
    message: (ctx) =>
      `Cannot ${ctx.action}: no Android device reachable${where(ctx.serial)}; ${
        connectHint(ctx.serial)
      }`,
  },
  {
    pattern: /^error: (closed|protocol fault|connection reset)|\bdevice disconnected\b/im,
    code: "TRANSPORT",
    message: (ctx) =>
      `Cannot ${ctx.action}: the link to the phone${where(ctx.serial)} broke during the call; ${
        connectHint(ctx.serial)
      }`,
  },
];

/**
 * Classifies an adb run: spawn failure → timeout → adb's known texts → exit code.
 * Returns null when the run succeeded (exit code 0 and no known adb error text).
 */
export function classifyAdbFailure(
  outcome: AdbOutcome,
  ctx: AdbCallContext,
  os: string = "linux",
): AdbError | null {
  if (outcome.kind === "spawn-failed") {
    const name = outcome.error.name;
    if (name === "NotCapable" || name === "PermissionDenied") {
      return new AdbError(
        "ADB_NOT_PERMITTED",
        `Cannot ${ctx.action}: this phone-eye build may only run the adb found on PATH at start-up, and that was refused; make sure adb is on PATH before starting phone-eye, then restart it`,
      );
    }
    return new AdbError(
      "ADB_NOT_FOUND",
      `Cannot ${ctx.action}: adb was not found on PATH; ${
        installHint(os)
      }, make sure "adb version" works in a terminal, then restart phone-eye (adb must be on PATH when it starts)`,
    );
  }
  if (outcome.kind === "timeout") {
    return new AdbError(
      "TIMEOUT",
      `Cannot ${ctx.action}: "adb ${
        ctx.command.length > 80 ? `${ctx.command.slice(0, 79)}…` : ctx.command
      }" did not finish within ${outcome.timeoutMs} ms and was stopped; the phone${
        where(ctx.serial)
      } may be busy, asleep or on a bad link — check it, or raise PHONE_EYE_ADB_TIMEOUT_MS`,
    );
  }
  // adb reports its own failures on stderr; with the legacy shell protocol a device-side
  // failure can only show in stdout, which the verbs read themselves.
  const stderr = outcome.stderr;
  for (const known of KNOWN_TEXTS) {
    if (known.pattern.test(stderr) && (outcome.code !== 0 || /^(adb: )?error:/im.test(stderr))) {
      return new AdbError(known.code, known.message(ctx));
    }
  }
  if (outcome.code !== 0) {
    const detail = excerpt(stderr || new TextDecoder().decode(outcome.stdout.subarray(0, 2000)));
    return new AdbError(
      "COMMAND_FAILED",
      `Cannot ${ctx.action}: the phone answered with exit code ${outcome.code}${
        detail ? `: ${detail}` : ""
      }`,
    );
  }
  return null;
}
