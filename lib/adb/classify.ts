// Classifies an adb run in one ordered function: spawn failure, timeout, adb's known texts, then
// the exit code; and reads `adb connect`'s answer. Pure: an outcome in, its output or one AdbError
// stating the facts (the verb words them).
//
// adb's texts are cited at tag platform-tools-29.0.6 (system/core 589da1a0), the adb Debian ships.

import { mib } from "../core/bytes.ts";
import { excerpt } from "../core/text.ts";
import {
  connectHint,
  installHint,
  KNOWN_TEXTS,
  shown,
  unauthorizedParts,
  where,
} from "./adb_texts.ts";
import type { FailureFacts } from "../core/errors.ts";
import {
  type AdbCallContext,
  AdbError,
  type AdbErrorCode,
  type AdbResult,
  deviceError,
  type DeviceTrouble,
  troubleFacts,
} from "./errors.ts";
import type { AdbOutcome } from "./runner.ts";

/**
 * Classifies an adb run: spawn failure → timeout → adb's known texts → exit code. A run that
 * exited 0 without a known adb error text is a success and carries its output.
 */
export function classifyAdbFailure(
  outcome: AdbOutcome,
  ctx: AdbCallContext,
  os: string = "linux",
): AdbResult {
  if (outcome.kind === "spawn-failed") return spawnFailure(outcome.error, os);
  if (outcome.kind === "cancelled") {
    return failed("CANCELLED", { what: "the client cancelled the call" });
  }
  if (outcome.kind === "exited" && outcome.code === 255 && outcome.stderr.trim() === "") {
    // adb from 2024 on exits 255, silently, when the device drops mid-command, even with half a
    // PNG on stdout (docs/android.md, the adb client); adb 29 and 34 exit 0 there, which the exit
    // marker and `complete` catch. A device command's own 255 never shows here: the exit marker's
    // echo ends every text command with status 0, and exec-out carries no status.
    return failed("TRANSPORT", {
      what: `the link to the phone${where(ctx.serial)} dropped during the call`,
      fix: connectHint(ctx.serial),
      uncertain: ctx.acts,
    });
  }
  if (outcome.kind === "timeout") {
    const ran = `${shown(ctx.command)} did not finish within ${outcome.timeoutMs} ms`;
    return failed("TIMEOUT", {
      what: ctx.acts
        ? `${ran}; adb was stopped, but the command may still be running on the phone`
        : `${ran} and was stopped`,
      fix: `the phone${
        where(ctx.serial)
      } may be busy, asleep or on a bad link — check it, or raise PHONE_EYE_ADB_TIMEOUT_MS`,
      uncertain: ctx.acts,
    });
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
    return failed("TOO_LARGE", { what, fix, uncertain: ctx.acts });
  }
  return classifyExitStatus(outcome.code, outcome, ctx);
}

/**
 * Why adb could not be started, by the error's real cause: only NotFound means adb is missing.
 * NotCapable is Deno's sandbox refusing the run; anything else (the file is not executable, an
 * argument the OS refused) is named, never guessed at.
 */
function spawnFailure(error: Error, os: string): AdbResult {
  switch (error.name) {
    case "NotFound":
      return failed("ADB_NOT_FOUND", {
        what: "adb was not found on PATH",
        fix: `${
          installHint(os)
        }, make sure "adb version" works in a terminal, then restart phone-eye (adb must be on PATH when it starts)`,
      }, error);
    case "NotCapable":
      return failed("ADB_NOT_PERMITTED", {
        what:
          "this phone-eye build may only run the adb found on PATH at start-up, and that was refused",
        fix: "make sure adb is on PATH before starting phone-eye, then restart it",
      }, error);
    case "PermissionDenied":
      return failed("ADB_NOT_STARTED", {
        what:
          "adb could not be started (PermissionDenied): the adb found on PATH is not executable by this user",
        fix:
          'check its permissions, make sure "adb version" works in a terminal, then restart phone-eye',
      }, error);
    default: {
      // Deno's text is "Failed to spawn '<binary>': <the OS's reason>"; the arguments are not in
      // it. Deno's error carries no other field for the reason, so its text is what there is.
      const reason = excerpt(error.message.replace(/^Failed to spawn '[^']*': /, ""), 120);
      return failed("ADB_NOT_STARTED", {
        what: `adb could not be started (${error.name}${reason ? `: ${reason}` : ""})`,
        fix: 'make sure "adb version" works in a terminal, then restart phone-eye',
      }, error);
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
        serial: ctx.serial,
        missing: known.missing ?? false,
        ...known.parts(ctx),
      };
      return {
        ok: false,
        error: known.device
          ? deviceError(known.code, trouble)
          : new AdbError(known.code, troubleFacts(trouble)),
      };
    }
  }
  if (status !== 0) {
    const detail = excerpt(stderr || new TextDecoder().decode(stdout.subarray(0, 2000)));
    return failed("COMMAND_FAILED", {
      what: `the phone answered with exit code ${status}${detail ? `: ${detail}` : ""}`,
    });
  }
  return { ok: true, stdout, stderr };
}

function failed(code: AdbErrorCode, facts: FailureFacts, cause?: Error): AdbResult {
  return {
    ok: false,
    error: new AdbError(code, facts, cause === undefined ? undefined : { cause }),
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
 * Returns null when the phone is connected. `call.uncertain`: the reconnect followed an acting command
 * whose outcome is unknown, so the error says it may have happened.
 */
export function connectFailure(
  outcome: AdbOutcome,
  call: { serial: string; uncertain?: boolean },
): AdbError | null {
  const { serial, uncertain = false } = call;
  const said = outcome.kind === "exited" || outcome.kind === "timeout"
    ? `${new TextDecoder().decode(outcome.stdout)}${outcome.stderr}`
    : "";
  if (outcome.kind === "exited" && /\bfailed to authenticate\b/i.test(said)) {
    const trouble: DeviceTrouble = uncertain
      ? {
        serial,
        what:
          `the link to ${serial} broke during the call, and on reconnecting the phone has not authorized this computer`,
        fix: 'unlock it and accept the "Allow USB debugging?" prompt',
        uncertain: true,
        missing: false,
      }
      : { serial, missing: false, ...unauthorizedParts({ serial }) };
    return deviceError("UNAUTHORIZED", trouble);
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
    serial,
    what: uncertain
      ? `the link to ${serial} broke during the call and could not be revived (${why})`
      : `no Android device reachable at ${serial} (${why})`,
    fix,
    uncertain,
    missing: true,
  };
  return deviceError(
    "NO_DEVICE",
    trouble,
    outcome.kind === "spawn-failed" ? { cause: outcome.error } : undefined,
  );
}

/** What a device or host-wide adb command gave once classified as a success. */
export interface DeviceOutput {
  stdout: Uint8Array;
  stderr: string;
  /** stdout decoded as UTF-8, followed by stderr: what a text-reading verb inspects. */
  text: string;
  /** The device command's exit status (text commands); 0 for exec-out, which has none. */
  status: number;
}

/** A successful run's output, with its text decoded once. */
export function deviceOutput(
  o: { stdout: Uint8Array; stderr: string; status?: number | undefined },
): DeviceOutput {
  const stdout = new TextDecoder().decode(o.stdout);
  return {
    stdout: o.stdout,
    stderr: o.stderr,
    text: o.stderr ? `${stdout}${o.stderr}` : stdout,
    status: o.status ?? 0,
  };
}
