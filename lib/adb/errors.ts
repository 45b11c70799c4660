// The adb layer's one error type and the words of a device error: what failed, what adb sees, what
// to do, and the wording for an action whose outcome is unknown. Pure: no adb run here.

import { AgentError } from "../core/errors.ts";

export type AdbErrorCode =
  | "ADB_NOT_FOUND"
  | "ADB_NOT_PERMITTED"
  | "ADB_NOT_STARTED"
  | "TIMEOUT"
  | "TOO_LARGE"
  | "MULTIPLE_DEVICES"
  | "UNAUTHORIZED"
  | "NO_DEVICE"
  | "RECONNECTED"
  | "TRANSPORT"
  | "COMMAND_FAILED"
  /** The phone already holds as many calls as it may (queue.ts, CALLS_MAX). */
  | "BUSY"
  /** The client cancelled the call; nobody reads this message. */
  | "CANCELLED";

/** One line of `adb devices`: a serial and its state ("device", "offline", "unauthorized", …). */
export interface AttachedDevice {
  serial: string;
  state: string;
}

/**
 * A device error's parts, kept as data so the message can be written again once phone-eye knows
 * what adb sees (lib/adb/attached.ts reads `adb devices` on that failure path only).
 */
export interface DeviceTrouble {
  action: string;
  /** The serial in use, or undefined for adb's default device. */
  serial: string | undefined;
  /** What failed and the state: "no Android device reachable at X". */
  what: string;
  /** What to do. */
  fix: string;
  /** Worded with mayHaveHappened: an acting command may have reached the phone. */
  uncertain: boolean;
  /**
   * adb found no usable device for the call (none, not found, offline, still connecting), so a
   * listed serial may be the one meant (a typo), or the listed one may need reviving.
   */
  missing: boolean;
}

export interface AdbErrorOptions extends ErrorOptions {
  /** Set on device errors (no device, offline, unauthorized, more than one). */
  trouble?: DeviceTrouble;
  /** What `adb devices` listed when the error was written; undefined when it was not read. */
  attached?: readonly AttachedDevice[];
}

/** The one error type of the adb layer: tests assert `code`, agents read `message`. */
export class AdbError extends AgentError<AdbErrorCode> {
  override name = "AdbError";
  readonly trouble: DeviceTrouble | undefined;
  readonly attached: readonly AttachedDevice[] | undefined;
  constructor(code: AdbErrorCode, message: string, options?: AdbErrorOptions) {
    const { trouble, attached, ...rest } = options ?? {};
    super(code, message, options === undefined ? undefined : rest);
    this.trouble = trouble;
    this.attached = attached;
  }
}

/** How many attached devices a message names before it says how many more there are. */
const LISTED_MAX = 8;

/** What adb sees, for a message: "adb sees: A (device), B (offline)" or "adb sees no device". */
export function adbSees(attached: readonly AttachedDevice[]): string {
  if (attached.length === 0) return "adb sees no device";
  const named = attached.slice(0, LISTED_MAX).map((d) => `${d.serial} (${d.state})`);
  const more = attached.length - named.length;
  return `adb sees: ${named.join(", ")}${more > 0 ? ` and ${more} more` : ""}`;
}

/**
 * A device error's message, naming what adb sees when `attached` is known, so a mistyped serial
 * stands beside the right one. Without `attached` (not read, or `adb devices` itself failed) the
 * message says nothing about the list.
 */
export function describeTrouble(
  trouble: DeviceTrouble,
  attached?: readonly AttachedDevice[],
): string {
  const { action, serial } = trouble;
  let what = trouble.what;
  let fix = trouble.fix;
  if (attached !== undefined) {
    what = `${what}; ${adbSees(attached)}`;
    const target = attached.find((d) => d.serial === serial);
    if (trouble.missing && serial !== undefined && target === undefined && attached.length) {
      fix =
        `if "${serial}" is a typo, set ANDROID_SERIAL (or --serial) to one of those; otherwise ${fix}`;
    }
    const offline = serial === undefined
      ? attached.some((d) => d.state === "offline")
      : target?.state === "offline";
    if (trouble.missing && offline) {
      // adb's help: "reconnect offline: reset offline/unauthorized devices to force reconnect".
      fix =
        `an offline phone usually comes back after "adb reconnect offline" or replugging its cable; ${fix}`;
    }
  }
  return trouble.uncertain
    ? mayHaveHappened(action, what, fix)
    : `Cannot ${action}: ${what}; ${fix}`;
}

/** The same device error, its message now naming what adb sees. */
export function withAttached(error: AdbError, attached: readonly AttachedDevice[]): AdbError {
  if (error.trouble === undefined) return error;
  return new AdbError(error.code, describeTrouble(error.trouble, attached), {
    cause: error,
    trouble: error.trouble,
    attached,
  });
}

/** What an adb run gave: its output, or the error an agent can act on. Never both, never neither. */
export type AdbResult =
  | { ok: true; stdout: Uint8Array; stderr: string }
  | { ok: false; error: AdbError };

/** What the classifier needs to know about the call, to write a message an agent can act on. */
export interface AdbCallContext {
  /** What the tool was doing, as a verb phrase: "tap", "take a screenshot". */
  action: string;
  /** The serial in use, or undefined for adb's default device. */
  serial: string | undefined;
  /** The device command, for timeout messages. */
  command: string;
  /**
   * True when the command acts on the phone (a tap, an intent: anything not read-only). An outcome
   * that leaves unknown whether it ran is then worded so the agent looks before repeating it.
   */
  acts: boolean;
}

/**
 * The words for an action whose outcome is unknown: the phone may have carried it out (a tap sent
 * before the link broke, an `input` still running on the phone after adb was killed), so calling
 * the tool again blindly could do it twice. `what` says what happened, `fix` what to check.
 */
export function mayHaveHappened(action: string, what: string, fix: string): string {
  return `Cannot tell whether the phone did ${action}: ${what}. It may have happened: look at the screen (phone_look or phone_shot) before repeating it; ${fix}`;
}

/** A Wi-Fi (TCP) serial such as 192.168.1.20:5555: the only kind `adb connect` can revive. */
export function isNetworkSerial(serial: string | undefined): serial is string {
  return serial !== undefined && /^(\[[0-9a-fA-F:.]+\]|[\w.-]+):\d{1,5}$/.test(serial);
}
