// Reads what the phone's tools print: screen size, am's and monkey's verdicts, package lists, the
// launcher activity, `input`'s failures. Pure: text in, values out; the commands are in *_commands.ts.

import { COMPONENT_NAME, PACKAGE_NAME } from "./intent_commands.ts";
import type { Size } from "../core/geometry.ts";

/**
 * Screen size from `wm size`; an override (e.g. `wm size 720x1600`) is what input uses. The two
 * lines come from WindowManagerShellCommand.printInitialDisplaySize,
 * https://github.com/aosp-mirror/platform_frameworks_base/blob/6319db423231ac7fbd22dd667557212ad359d198/services/core/java/com/android/server/wm/WindowManagerShellCommand.java.
 */
export function parseWmSize(output: string): Size | null {
  const override = /Override size:\s*(\d+)x(\d+)/.exec(output);
  const physical = /Physical size:\s*(\d+)x(\d+)/.exec(output);
  const match = override ?? physical;
  if (!match) return null;
  const width = Number(match[1]);
  const height = Number(match[2]);
  return width > 0 && height > 0 ? { width, height } : null;
}

/** What `am start` or `monkey` did, read from its output and exit status. */
export type IntentOutcome =
  /**
   * Started; `warning` is am's "Warning: …" line when it printed one ("Activity not started, its
   * current task has been brought to the front"). Its "Starting: Intent { … }" echo says nothing
   * the caller did not send, so it is not kept.
   */
  | { kind: "started"; warning: string | undefined }
  /** monkey found no MAIN/LAUNCHER activity: the package is missing or has none. */
  | { kind: "no-launcher-activity" }
  /** am's "Error type 3" / "Error: Activity class {pkg/cls} does not exist." */
  | { kind: "no-such-activity"; component: string }
  /** am's "Error: Activity not started, unable to resolve Intent { … }". */
  | { kind: "unresolved"; intent: string }
  /** Any other failure: the line that tells, or the exit status and an excerpt. */
  | { kind: "failed"; detail: string };

/**
 * Reads the outcome of `am start` / `monkey` from its text and status. The text decides, because
 * the status does not: am prints its errors ("Error: Activity not started, unable to resolve
 * Intent { … }", "Error type 3" then "Error: Activity class {…} does not exist.") and returns 0
 * after them (ActivityManagerShellCommand.runStartActivity,
 * https://github.com/aosp-mirror/platform_frameworks_base/blob/c014fb5ca964ed67963ccd05b4ade7dddca65a83/services/core/java/com/android/server/am/ActivityManagerShellCommand.java),
 * except in Android 15, which returns 1 (docs/android.md, am start); the legacy shell has no status at all.
 * monkey prints "** No activities found to run, monkey aborted." on stdout and exits 252
 * (Monkey.getMainApps,
 * https://github.com/aosp-mirror/platform_development/blob/0ee6ec4a7371daf1e36b876c33b1f5cfc64bba4d/cmds/monkey/src/com/android/commands/monkey/Monkey.java),
 * among its own "args:" and "bash arg:" lines, which are noise.
 * A non-zero status with no line that explains it is a failure too (an exception banner, exit 255).
 */
export function readIntentOutcome(output: string, status: number): IntentOutcome {
  const lines = output.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== "");
  if (lines.some((l) => /^\*\* No activities found to run/.test(l))) {
    return { kind: "no-launcher-activity" };
  }
  for (const line of lines) {
    const missing = /^Error: Activity class (\{[^}]*\}) does not exist/.exec(line);
    if (missing) return { kind: "no-such-activity", component: missing[1]!.slice(1, -1) };
    const unresolved = /^Error: Activity not started, unable to resolve (Intent \{.*\})/.exec(line);
    if (unresolved) return { kind: "unresolved", intent: unresolved[1]! };
  }
  // An exception's own line ("java.lang.SecurityException: Permission Denial: …") says more
  // than ShellCommand's banner before it ("Exception occurred while executing 'start':").
  const failure = lines.find((l) => /^(java\.|android\.)\S*(Exception|Error)\b/.test(l)) ??
    lines.find((l) => /^(Error( type \d+)?:|Exception|\*\* )/.test(l) || /monkey aborted/i.test(l));
  if (failure !== undefined) return { kind: "failed", detail: failure };
  if (status !== 0) {
    return {
      kind: "failed",
      detail: `exit status ${status}${lines.length > 0 ? `: ${lines.slice(-3).join(" / ")}` : ""}`,
    };
  }
  return { kind: "started", warning: lines.find((l) => /^Warning:/.test(l)) };
}

/** At most this many packages are read (a phone has a few hundred): bounds the closeness search. */
const MAX_PACKAGES = 5_000;

/** Package names from `pm list packages`, in the phone's order; anything else is skipped. */
export function parsePackageList(output: string): string[] {
  const names: string[] = [];
  for (const line of output.split(/\r?\n/)) {
    const name = /^package:(\S{1,255})$/.exec(line.trim())?.[1];
    if (name !== undefined && PACKAGE_NAME.test(name)) names.push(name);
    if (names.length >= MAX_PACKAGES) break;
  }
  return names;
}

/**
 * The component resolve-activity printed for `pkg`, or null when it found none. A component of
 * another package (the system's chooser, when several activities match) does not count.
 */
export function parseResolvedActivity(output: string, pkg: string): string | null {
  const last = output.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== "").at(-1);
  return last !== undefined && COMPONENT_NAME.test(last) && last.startsWith(`${pkg}/`)
    ? last
    : null;
}

/**
 * The failure text of an `input` command, which prints nothing when it works: the line that says
 * most. The app_process `input` of Android 10-11 (BaseCommand) prints its usage, a blank line and
 * "Error: " + the message, and still exits 0
 * (https://github.com/aosp-mirror/platform_frameworks_base/blob/76e804db5aa27c39b7a05478a8eebceb7bc2ef13/cmds/input/src/com/android/commands/input/Input.java,
 * https://github.com/aosp-mirror/platform_frameworks_base/blob/4e6aa13480a58be54800a9fd52ebf7d8d2b57335/core/java/com/android/internal/os/BaseCommand.java);
 * the `cmd input` of Android 12+ throws, which ShellCommand prints as "Exception occurred while
 * executing …" and the exception's own line, exit 255; it answers an unknown sub-command with
 * "Unknown command: X" on stdout and exit 0 (docs/android.md, input).
 */
export function inputFailure(output: string): string | null {
  const lines = output.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== "");
  return lines.find((l) => /^(java\.|android\.)\S*(Exception|Error)\b/.test(l)) ??
    lines.find((l) => /^Error:/.test(l)) ??
    lines.find((l) => /(Exception|Usage: input|Unknown command|not found)/.test(l)) ??
    null;
}
