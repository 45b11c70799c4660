// The adb layer's one error type and the facts of a device error: what failed, what adb sees, what
// to do, and whether an action may have happened. Pure: no adb run here; the verb words them.

import type { PhoneSet } from "../config/config.ts";
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
  /**
   * The phone already holds as many calls as it may (queue.ts, CALLS_MAX), or this client holds
   * its share of them (CLIENT_CALLS_MAX).
   */
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
  /**
   * The fix names a setting, so it is worded for the mode in force (troubleFacts): "connect", how
   * to attach a phone (connectHint); "exact-serial", the serial matched more than one device.
   */
  advice?: "connect" | "exact-serial" | undefined;
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

/**
 * What adb sees, for a message: "adb sees: A (device), B (offline)" or "adb sees no device". With
 * PHONE_EYE_DEVICES listing the phones, only those are named: a device error never names a phone
 * outside the list.
 */
export function adbSees(attached: readonly AttachedDevice[], set?: PhoneSet): string {
  const listed = listedBy(set, "PHONE_EYE_DEVICES");
  const shown = nameable(attached, set);
  if (shown.length === 0) {
    return listed ? "adb sees none of PHONE_EYE_DEVICES" : "adb sees no device";
  }
  const named = shown.slice(0, LISTED_MAX).map((d) => `${d.serial} (${d.state})`);
  const more = shown.length - named.length;
  return `${listed ? "of PHONE_EYE_DEVICES, " : ""}adb sees: ${named.join(", ")}${
    more > 0 ? ` and ${more} more` : ""
  }`;
}

/** The attached phones a message may name: with PHONE_EYE_DEVICES, only the listed ones. */
function nameable(attached: readonly AttachedDevice[], set: PhoneSet | undefined) {
  const listed = listedBy(set, "PHONE_EYE_DEVICES");
  return listed ? attached.filter((d) => listed.includes(d.serial)) : attached;
}

/** The serials `set` lists when they come from `from`; undefined otherwise. */
function listedBy(set: PhoneSet | undefined, from: string): readonly string[] | undefined {
  return set?.kind === "listed" && set.from === from ? set.serials : undefined;
}

/** What a device error is told against: what adb lists, and the phones the server may drive. */
export interface TroubleSeen {
  /** What `adb devices` listed; undefined when it was not read, or failed. */
  attached?: readonly AttachedDevice[] | undefined;
  /**
   * The phones the server may drive (lib/config): which setting the advice names (ANDROID_SERIAL
   * or PHONE_EYE_DEVICES, or an agent's `device` where the agent picks), and with
   * PHONE_EYE_DEVICES, which phones the message may name. Undefined: ANDROID_SERIAL's words.
   */
  set?: PhoneSet | undefined;
}

/**
 * A device error's facts, naming what adb sees when `attached` is known, so a mistyped serial
 * stands beside the right one. Without `attached` (not read, or `adb devices` itself failed) they
 * say nothing about the list. The advice names what can change the phone in the mode in force.
 */
export function troubleFacts(
  trouble: DeviceTrouble,
  attached?: readonly AttachedDevice[],
  seen: Pick<TroubleSeen, "set"> = {},
): FailureFacts {
  const { serial } = trouble;
  const { set } = seen;
  let what = trouble.what;
  let fix = trouble.advice === "exact-serial"
    ? exactSerialFix(set)
    : trouble.advice === "connect"
    ? connectHint(serial, set)
    : trouble.fix;
  if (attached !== undefined) {
    what = `${what}; ${adbSees(attached, set)}`;
    const target = attached.find((d) => d.serial === serial);
    if (trouble.missing && serial !== undefined && target === undefined && attached.length) {
      fix = `${otherPhoneFix(serial, set)}; otherwise ${fix}`;
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

/**
 * What to do when adb does not list `serial` but lists others: the setting that named it is where
 * a typo is fixed (ANDROID_SERIAL, PHONE_EYE_DEVICES), or, where the agent names the phone, its
 * `device` argument.
 */
function otherPhoneFix(serial: string, set: PhoneSet | undefined): string {
  if (set === undefined || (set.kind === "listed" && set.from !== "PHONE_EYE_DEVICES")) {
    return `if "${serial}" is a typo, set ANDROID_SERIAL (or --serial) to one of those`;
  }
  if (set.kind === "listed") {
    return `if "${serial}" is mistyped in PHONE_EYE_DEVICES, whoever runs phone-eye corrects it there (to a serial "adb devices" prints)`;
  }
  return "if another phone is meant, give device with its serial (phone_devices lists them)";
}

/** What to do when a serial matches more than one device, in the mode in force. */
export function exactSerialFix(set: PhoneSet | undefined): string {
  if (set === undefined || (set.kind === "listed" && set.from !== "PHONE_EYE_DEVICES")) {
    return 'set ANDROID_SERIAL (or --serial) to one exact serial from "adb devices"';
  }
  if (set.kind === "listed") {
    return 'whoever runs phone-eye puts one exact serial from "adb devices" in PHONE_EYE_DEVICES instead';
  }
  return "give device with one exact serial from phone_devices";
}

/**
 * How to attach the phone: a host:port is connected with adb; otherwise USB, or a Wi-Fi address
 * connected and then named where the mode in force names phones.
 */
export function connectHint(serial: string | undefined, set?: PhoneSet): string {
  if (isNetworkSerial(serial)) {
    return `run "adb connect ${serial}" and check the phone is on the same network with wireless debugging on`;
  }
  const naming = listedBy(set, "PHONE_EYE_DEVICES")
    ? "list that address in PHONE_EYE_DEVICES"
    : set?.kind === "any"
    ? "give that address as device"
    : "set ANDROID_SERIAL to that address";
  return `plug the phone in by USB with USB debugging on, or for Wi-Fi run "adb connect <phone-ip>:5555" and ${naming}`;
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
  return restated(error, { attached });
}

/**
 * The same device error told again against what adb lists and the phones the server may drive
 * (TroubleSeen). `attached` keeps only what the message may name.
 */
export function restated(error: AdbError, seen: TroubleSeen): AdbError {
  if (error.trouble === undefined) return error;
  const { attached, set } = seen;
  return new AdbError(error.code, troubleFacts(error.trouble, attached, { set }), {
    cause: error,
    trouble: error.trouble,
    attached: attached && nameable(attached, set),
  });
}

/** adb itself cannot be run (missing, refused, not executable): no phone can be reached at all. */
export function adbCannotRun(error: AdbError): boolean {
  return error.code === "ADB_NOT_FOUND" || error.code === "ADB_NOT_PERMITTED" ||
    error.code === "ADB_NOT_STARTED";
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
