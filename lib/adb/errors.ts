// The adb layer's one error type and the facts of a device error: what failed, what adb sees, what
// to do, and whether an action may have happened. Pure: no adb run here; the verb words them.

import { AgentError, type FailureFacts } from "../core/errors.ts";

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
  /** The client cancelled the call; nobody reads its words. */
  | "CANCELLED";

/** One line of `adb devices`: a serial and its state ("device", "offline", "unauthorized", …). */
export interface AttachedDevice {
  serial: string;
  state: string;
}

/**
 * A device error's parts, kept as data so its facts can be told again once phone-eye knows what
 * adb sees (lib/adb/attached.ts reads `adb devices` on that failure path only).
 */
export interface DeviceTrouble {
  /** The serial in use, or undefined for adb's default device. */
  serial: string | undefined;
  /** What failed and the state: "no Android device reachable at X". */
  what: string;
  /** What to do. */
  fix: string;
  /** An acting command may have reached the phone (FailureFacts.uncertain). */
  uncertain: boolean;
  /**
   * adb found no usable device for the call (none, not found, offline, still connecting), so a
   * listed serial may be the one meant (a typo), or the listed one may need reviving.
   */
  missing: boolean;
}

export interface AdbErrorOptions extends ErrorOptions {
  /** Set on device errors (no device, offline, unauthorized, more than one). */
  trouble?: DeviceTrouble | undefined;
  /** What `adb devices` listed when the error was made; undefined when it was not read. */
  attached?: readonly AttachedDevice[] | undefined;
}

/** The one error type of the adb layer: tests assert `code` and the facts; the verb words them. */
export class AdbError extends AgentError<AdbErrorCode> {
  override name = "AdbError";
  readonly trouble: DeviceTrouble | undefined;
  readonly attached: readonly AttachedDevice[] | undefined;
  constructor(code: AdbErrorCode, facts: FailureFacts, options?: AdbErrorOptions) {
    const { trouble, attached, ...rest } = options ?? {};
    super(code, facts, options === undefined ? undefined : rest);
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
 * A device error's facts, naming what adb sees when `attached` is known, so a mistyped serial
 * stands beside the right one. Without `attached` (not read, or `adb devices` itself failed) they
 * say nothing about the list.
 */
export function troubleFacts(
  trouble: DeviceTrouble,
  attached?: readonly AttachedDevice[],
): FailureFacts {
  const { serial } = trouble;
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
  return { what, fix, uncertain: trouble.uncertain };
}

/** A device error with its trouble kept, so what adb sees can be added later (withAttached). */
export function deviceError(
  code: AdbErrorCode,
  trouble: DeviceTrouble,
  options?: ErrorOptions,
): AdbError {
  return new AdbError(code, troubleFacts(trouble), { ...options, trouble });
}

/** The same device error, its facts now naming what adb sees. */
export function withAttached(error: AdbError, attached: readonly AttachedDevice[]): AdbError {
  if (error.trouble === undefined) return error;
  return new AdbError(error.code, troubleFacts(error.trouble, attached), {
    cause: error,
    trouble: error.trouble,
    attached,
  });
}

/** What an adb run gave: its output, or the error an agent can act on. Never both, never neither. */
export type AdbResult =
  | { ok: true; stdout: Uint8Array; stderr: string }
  | { ok: false; error: AdbError };

/** What the classifier needs to know about the call to state its facts. */
export interface AdbCallContext {
  /** The serial in use, or undefined for adb's default device. */
  serial: string | undefined;
  /** The device command, for timeout messages. */
  command: string;
  /**
   * True when the command acts on the phone (a tap, an intent: anything not read-only). An outcome
   * that leaves unknown whether it ran is then marked uncertain, so the agent looks before
   * repeating it.
   */
  acts: boolean;
}

/** A Wi-Fi (TCP) serial such as 192.168.1.20:5555: the only kind `adb connect` can revive. */
export function isNetworkSerial(serial: string | undefined): serial is string {
  return serial !== undefined && /^(\[[0-9a-fA-F:.]+\]|[\w.-]+):\d{1,5}$/.test(serial);
}
