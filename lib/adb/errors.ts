// Classifies an adb run in one ordered, table-driven function: its output, or one coded AdbError.
// Pure: it reads an AdbOutcome and the context of the call; it never runs adb itself.
//
// adb's texts are cited at tag platform-tools-29.0.6 (system/core 589da1a0), the adb Debian ships;
// docs/android.md (the adb client) records how adb 34+ differs.

import { AgentError } from "../core/errors.ts";
import { excerpt } from "../core/text.ts";
import type { AdbOutcome } from "./runner.ts";

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

function unauthorizedParts(ctx: { serial: string | undefined }) {
  return {
    what: `the phone${where(ctx.serial)} has not authorized this computer`,
    fix: 'unlock it and accept the "Allow USB debugging?" prompt, then call the tool again',
    uncertain: false,
  };
}

/**
 * adb's own error texts, in the order they are checked. adb 29 prints each as "error: <text>" on
 * stderr and exits 1 (adb 34 as "adb: <text>" for `adb shell`, "error: <text>" for exec-out and
 * "closed", and says "more than one device with serial X" when -s matches two devices; both print
 * the unauthorized text on four lines: docs/android.md, the adb client, and tests/adb/errors_test.ts) (RemoteShell, https://github.com/aosp-mirror/platform_system_core/blob/589da1a0e0220d9443dbdd03e9fb2a659bfd2f8c/adb/client/commandline.cpp#L604-L608):
 * - "more than one device/emulator", "device 'X' not found", "no devices/emulators found",
 *   "device still connecting", "device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is …",
 *   "device offline": acquire_one_transport,
 *   https://github.com/aosp-mirror/platform_system_core/blob/589da1a0e0220d9443dbdd03e9fb2a659bfd2f8c/adb/transport.cpp#L820-L922
 * - "closed": the server's answer when the device's socket closes before it replies (the link was
 *   cut while sending), local_socket_close_notify,
 *   https://github.com/aosp-mirror/platform_system_core/blob/589da1a0e0220d9443dbdd03e9fb2a659bfd2f8c/adb/sockets.cpp#L540
 * - "protocol fault (…)": adb_status,
 *   https://github.com/aosp-mirror/platform_system_core/blob/589da1a0e0220d9443dbdd03e9fb2a659bfd2f8c/adb/client/adb_client.cpp#L134
 * "connection reset" and "device disconnected" have no adb 29 source; they stay as a net for
 * other versions.
 */
const KNOWN_TEXTS: ReadonlyArray<{
  pattern: RegExp;
  code: AdbErrorCode;
  /** The message's parts; a device error keeps them, so what adb sees can be added later. */
  parts: (ctx: AdbCallContext) => Pick<DeviceTrouble, "what" | "fix" | "uncertain">;
  device: boolean;
  missing?: boolean;
}> = [
  {
    pattern: /more than one (device|emulator)/i,
    code: "MULTIPLE_DEVICES",
    device: true,
    parts: (ctx) =>
      ctx.serial === undefined
        ? {
          what: "more than one Android device is attached and no serial was chosen",
          fix:
            "set ANDROID_SERIAL (or start phone-eye with --serial) to the one to drive, or PHONE_EYE_DEVICES to drive several, each call naming its device",
          uncertain: false,
        }
        : {
          what:
            `more than one Android device answers to "${ctx.serial}" (adb also matches -s against model:, product: and device: names, and a phone can be attached twice, by USB and Wi-Fi)`,
          fix: 'set ANDROID_SERIAL (or --serial) to one exact serial from "adb devices"',
          uncertain: false,
        },
  },
  {
    // "device still authorizing": the key exchange has started but the phone has not answered
    // the prompt yet (acquire_one_transport, same file).
    pattern: /device unauthorized|device still authorizing/i,
    code: "UNAUTHORIZED",
    device: true,
    parts: unauthorizedParts,
  },
  {
    pattern:
      /no devices\/emulators found|device '[^']*' not found|device offline|device still connecting|no devices found|device not found/i,
    code: "NO_DEVICE",
    device: true,
    missing: true,
    parts: (ctx) => ({
      what: `no Android device reachable${where(ctx.serial)}`,
      fix: connectHint(ctx.serial),
      uncertain: false,
    }),
  },
  {
    // adb 34.0.5 still says "error: closed" for `adb shell` too; "adb: " is accepted in case a
    // later client moves it to the new prefix like the others.
    pattern: /^(adb|error): (closed|protocol fault|connection reset)|\bdevice disconnected\b/im,
    code: "TRANSPORT",
    device: false,
    parts: (ctx) => ({
      what: `the link to the phone${where(ctx.serial)} broke during the call`,
      fix: connectHint(ctx.serial),
      uncertain: ctx.acts,
    }),
  },
];

/** A byte count in whole MiB, for messages. */
function mib(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MiB`;
}

/** The command as the agent could type it, shortened for messages. */
function shown(command: string): string {
  return `"adb ${command.length > 80 ? `${command.slice(0, 79)}…` : command}"`;
}

/**
 * Classifies an adb run: spawn failure → timeout → adb's known texts → exit code. A run that
 * exited 0 without a known adb error text is a success and carries its output.
 */
export function classifyAdbFailure(
  outcome: AdbOutcome,
  ctx: AdbCallContext,
  os: string = "linux",
): AdbResult {
  if (outcome.kind === "spawn-failed") return spawnFailure(outcome.error, ctx, os);
  if (outcome.kind === "cancelled") {
    return failed("CANCELLED", `Cannot ${ctx.action}: the client cancelled the call`);
  }
  if (outcome.kind === "exited" && outcome.code === 255 && outcome.stderr.trim() === "") {
    // adb from 2024 on exits 255, silently, when the device drops mid-command, even with half a
    // PNG on stdout (docs/android.md, the adb client); adb 29 and 34 exit 0 there, which the exit
    // marker and `complete` catch. A device command's own 255 never shows here: the exit marker's
    // echo ends every text command with status 0, and exec-out carries no status.
    const what = `the link to the phone${where(ctx.serial)} dropped during the call`;
    return failed(
      "TRANSPORT",
      ctx.acts
        ? mayHaveHappened(ctx.action, what, connectHint(ctx.serial))
        : `Cannot ${ctx.action}: ${what}; ${connectHint(ctx.serial)}`,
    );
  }
  if (outcome.kind === "timeout") {
    const fix = `the phone${
      where(ctx.serial)
    } may be busy, asleep or on a bad link — check it, or raise PHONE_EYE_ADB_TIMEOUT_MS`;
    return failed(
      "TIMEOUT",
      ctx.acts
        ? mayHaveHappened(
          ctx.action,
          `${
            shown(ctx.command)
          } did not finish within ${outcome.timeoutMs} ms; adb was stopped, but the command may still be running on the phone`,
          fix,
        )
        : `Cannot ${ctx.action}: ${
          shown(ctx.command)
        } did not finish within ${outcome.timeoutMs} ms and was stopped; ${fix}`,
    );
  }
  if (outcome.kind === "too-large") {
    const cap = mib(outcome.capBytes);
    const what = outcome.stream === "stderr"
      ? `adb wrote more than ${cap} of error text for ${shown(ctx.command)}, so it was stopped`
      : outcome.output === "image"
      ? `the phone${
        where(ctx.serial)
      } sent more than ${cap} for a screenshot, more than the raw frame of any phone or tablet screen, so adb was stopped`
      : `the phone${where(ctx.serial)} sent more than ${cap} of text for ${
        shown(ctx.command)
      }, far more than that command prints, so adb was stopped`;
    const fix = outcome.stream === "stderr"
      ? `run ${shown(ctx.command)} in a terminal to see what adb says`
      : `the phone or something between it and phone-eye is misbehaving; restart the phone and the adb server ("adb kill-server"), then try again`;
    return failed(
      "TOO_LARGE",
      ctx.acts ? mayHaveHappened(ctx.action, what, fix) : `Cannot ${ctx.action}: ${what}; ${fix}`,
    );
  }
  return classifyExitStatus(outcome.code, outcome, ctx);
}

/**
 * Why adb could not be started, by the error's real cause: only NotFound means adb is missing.
 * NotCapable is Deno's sandbox refusing the run; anything else (the file is not executable, an
 * argument the OS refused) is named, never guessed at.
 */
function spawnFailure(error: Error, ctx: AdbCallContext, os: string): AdbResult {
  switch (error.name) {
    case "NotFound":
      return failed(
        "ADB_NOT_FOUND",
        `Cannot ${ctx.action}: adb was not found on PATH; ${
          installHint(os)
        }, make sure "adb version" works in a terminal, then restart phone-eye (adb must be on PATH when it starts)`,
        error,
      );
    case "NotCapable":
      return failed(
        "ADB_NOT_PERMITTED",
        `Cannot ${ctx.action}: this phone-eye build may only run the adb found on PATH at start-up, and that was refused; make sure adb is on PATH before starting phone-eye, then restart it`,
        error,
      );
    case "PermissionDenied":
      return failed(
        "ADB_NOT_STARTED",
        `Cannot ${ctx.action}: adb could not be started (PermissionDenied): the adb found on PATH is not executable by this user; check its permissions, make sure "adb version" works in a terminal, then restart phone-eye`,
        error,
      );
    default: {
      // Deno's text is "Failed to spawn '<binary>': <the OS's reason>"; the arguments are not in it.
      const reason = excerpt(error.message.replace(/^Failed to spawn '[^']*': /, ""), 120);
      return failed(
        "ADB_NOT_STARTED",
        `Cannot ${ctx.action}: adb could not be started (${error.name}${
          reason ? `: ${reason}` : ""
        }); make sure "adb version" works in a terminal, then restart phone-eye`,
        error,
      );
    }
  }
}

/**
 * The classifier's last two steps, adb's known texts then the exit status, for a run that
 * finished. device.ts applies them a second time with the device command's own status, read back
 * from the exit marker, because adb's exit status does not carry it (exit_marker.ts).
 */
export function classifyExitStatus(
  status: number,
  output: { stdout: Uint8Array; stderr: string },
  ctx: AdbCallContext,
): AdbResult {
  // adb reports its own failures on stderr; without the shell protocol every byte from the phone
  // arrives on stdout (read_and_dump,
  // https://github.com/aosp-mirror/platform_system_core/blob/589da1a0e0220d9443dbdd03e9fb2a659bfd2f8c/adb/client/commandline.cpp#L308),
  // so a device-side failure can only show there, and the verbs read it themselves.
  const { stdout, stderr } = output;
  for (const known of KNOWN_TEXTS) {
    if (known.pattern.test(stderr) && (status !== 0 || /^(adb: )?error:/im.test(stderr))) {
      const trouble: DeviceTrouble = {
        action: ctx.action,
        serial: ctx.serial,
        missing: known.missing ?? false,
        ...known.parts(ctx),
      };
      return {
        ok: false,
        error: new AdbError(
          known.code,
          describeTrouble(trouble),
          known.device ? { trouble } : undefined,
        ),
      };
    }
  }
  if (status !== 0) {
    const detail = excerpt(stderr || new TextDecoder().decode(stdout.subarray(0, 2000)));
    return failed(
      "COMMAND_FAILED",
      `Cannot ${ctx.action}: the phone answered with exit code ${status}${
        detail ? `: ${detail}` : ""
      }`,
    );
  }
  return { ok: true, stdout, stderr };
}

function failed(code: AdbErrorCode, message: string, cause?: Error): AdbResult {
  return {
    ok: false,
    error: new AdbError(code, message, cause === undefined ? undefined : { cause }),
  };
}

/**
 * Reads the answer of `adb connect`, which exits 0 whatever the attempt gave: adb_query_command
 * prints the server's answer and returns 0 (1 only when the server itself cannot be asked),
 * https://github.com/aosp-mirror/platform_system_core/blob/589da1a0e0220d9443dbdd03e9fb2a659bfd2f8c/adb/client/commandline.cpp#L1399-L1408.
 * The text tells: "connected to X", "already connected to X", "failed to connect to X", or "failed
 * to authenticate to X" when the phone has not accepted this computer's key (connect_device,
 * https://github.com/aosp-mirror/platform_system_core/blob/589da1a0e0220d9443dbdd03e9fb2a659bfd2f8c/adb/transport_local.cpp#L129-L139,
 * whose EPERM comes from register_socket_transport finding the transport unauthorized,
 * https://github.com/aosp-mirror/platform_system_core/blob/589da1a0e0220d9443dbdd03e9fb2a659bfd2f8c/adb/transport.cpp#L1273-L1274).
 * Returns null when the phone is connected. `uncertain`: the reconnect followed an acting command
 * whose outcome is unknown, so the message also says it may have happened.
 */
export function connectFailure(
  outcome: AdbOutcome,
  action: string,
  serial: string,
  uncertain = false,
): AdbError | null {
  const said = outcome.kind === "exited" || outcome.kind === "timeout"
    ? `${new TextDecoder().decode(outcome.stdout)}${outcome.stderr}`
    : "";
  if (outcome.kind === "exited" && /\bfailed to authenticate\b/i.test(said)) {
    const trouble: DeviceTrouble = uncertain
      ? {
        action,
        serial,
        what:
          `the link to ${serial} broke during the call, and on reconnecting the phone has not authorized this computer`,
        fix: 'unlock it and accept the "Allow USB debugging?" prompt',
        uncertain: true,
        missing: false,
      }
      : { action, serial, missing: false, ...unauthorizedParts({ serial }) };
    return new AdbError("UNAUTHORIZED", describeTrouble(trouble), { trouble });
  }
  if (outcome.kind === "exited" && /\b(connected to|already connected)\b/i.test(said)) return null;
  const why = outcome.kind === "timeout"
    ? `"adb connect" got no answer within ${outcome.timeoutMs} ms`
    : outcome.kind === "too-large"
    ? `"adb connect" answered with more than ${mib(outcome.capBytes)}`
    : excerpt(said) || "adb connect failed";
  const fix =
    `check the phone is on, on the same network, with wireless debugging on, then run "adb connect ${serial}"`;
  const trouble: DeviceTrouble = {
    action,
    serial,
    what: uncertain
      ? `the link to ${serial} broke during the call and could not be revived (${why})`
      : `no Android device reachable at ${serial} (${why})`,
    fix,
    uncertain,
    missing: true,
  };
  return new AdbError(
    "NO_DEVICE",
    describeTrouble(trouble),
    outcome.kind === "spawn-failed" ? { cause: outcome.error, trouble } : { trouble },
  );
}
