// Builds every device command phone-eye sends, and the one quoting function for the phone's shell.
// Pure: argv-in, strings-out; the guards that refuse hostile input before it is quoted live here too.
//
// Sources cited below are pinned: adb at tag platform-tools-29.0.6 (system/core 589da1a0, the adb
// Debian ships), Android's shell tools at the frameworks/base and development commits linked.

import type { OutputKind } from "./runner.ts";

/**
 * One command for the phone. `shell` is passed to adb as a single argument: `adb shell` joins its
 * arguments with spaces and escapes nothing ("We don't escape here, just like ssh(1)",
 * https://github.com/aosp-mirror/platform_system_core/blob/589da1a0e0220d9443dbdd03e9fb2a659bfd2f8c/adb/client/commandline.cpp#L757-L758),
 * and `adb exec-out` sends its first argument raw (same file #L1650), so one pre-quoted string is
 * the only form that is quoted exactly once (SPEC §5).
 */
export interface DeviceCommand {
  /**
   * "shell" for text commands, which the device layer ends with an exit-status marker
   * (exit_marker.ts);
   * "exec-out" for binary output (screenshots), passed through byte for byte.
   */
  service: "shell" | "exec-out";
  shell: string;
}

/**
 * What a command prints, which sets how much of it the runner reads: `screencap` carries the
 * screenshots (the only binary output phone-eye asks for); everything else is text, including the
 * UI dump that exec-out carries from /dev/tty (uiDumpToTtyCommand).
 */
export function outputKind(command: DeviceCommand): OutputKind {
  const program = command.shell.trimStart().split(/\s/, 1)[0];
  return command.service === "exec-out" && program === "screencap" ? "image" : "text";
}

/**
 * Programs whose commands have no effect on the phone the user could see twice, so a call cut by a
 * dropped Wi-Fi link may be replayed after reconnecting. Input and `am start` are deliberately
 * absent: replaying a tap whose acknowledgement was lost would tap twice.
 */
export const READ_ONLY_PROGRAMS: ReadonlySet<string> = new Set([
  "screencap",
  "uiautomator",
  "cat",
  "getprop",
  "dumpsys",
  "wm",
  "ls",
]);

/** True when the command's program is on the read-only allowlist. */
export function isReplayable(command: DeviceCommand): boolean {
  const program = command.shell.trimStart().split(/\s/, 1)[0] ?? "";
  return READ_ONLY_PROGRAMS.has(program);
}

/** Wraps a value in single quotes for the phone's `sh -c`; a quote inside becomes '\''. */
export function quoteForDeviceShell(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

const shell = (text: string): DeviceCommand => ({ service: "shell", shell: text });
const execOut = (text: string): DeviceCommand => ({ service: "exec-out", shell: text });

export const tapCommand = (x: number, y: number): DeviceCommand =>
  shell(`input tap ${int(x)} ${int(y)}`);

/** The pause between the taps of a double (or triple) tap, in the phone's shell. */
export const MULTI_TAP_PAUSE_MS = 50;

/**
 * `count` taps on one point in one device command, so no adb round trip sits between them. A view
 * takes two taps as a double tap when the second comes down between 40 and 300 ms after the
 * first came up (DOUBLE_TAP_MIN_TIME and DOUBLE_TAP_TIMEOUT in ViewConfiguration,
 * https://github.com/aosp-mirror/platform_frameworks_base/blob/8c89baaa9d205930d348f559738a7d3c50c0d50c/core/java/android/view/ViewConfiguration.java).
 * `input` has no double tap for the screen (`--doubletap` is for keyevent only, Android 14), so
 * the taps are separate `input tap` runs; the pause keeps a fast phone above the 40 ms minimum,
 * and each run's own start-up adds to it. `sleep` takes fractions on toybox; an older sleep that
 * refuses them fails quietly, and that phone's slower `input` start-up is the pause.
 */
export function multiTapCommand(x: number, y: number, count: number): DeviceCommand {
  const tap = `input tap ${int(x)} ${int(y)}`;
  const pause = `{ sleep ${(MULTI_TAP_PAUSE_MS / 1000).toFixed(2)} 2>/dev/null; :; }`;
  return shell(
    Array.from({ length: Math.max(1, Math.trunc(count)) }, () => tap).join(` && ${pause} && `),
  );
}

/**
 * A long press is a swipe that does not move: `input` has no long press for the screen (its
 * commands are text, keyevent, tap, swipe, draganddrop, press, roll, motionevent, keycombination;
 * `--longpress` is for keyevent only), InputShellCommand.onCommand at
 * https://github.com/aosp-mirror/platform_frameworks_base/blob/b11dd06439584fb231812b0fd50e887df88cef0d/services/core/java/com/android/server/input/InputShellCommand.java.
 */
export const longPressCommand = (x: number, y: number, holdMs: number): DeviceCommand =>
  shell(`input swipe ${int(x)} ${int(y)} ${int(x)} ${int(y)} ${int(holdMs)}`);

export const swipeCommand = (
  x1: number,
  y1: number,
  x2: number,
  y2: number,
  durationMs: number,
): DeviceCommand =>
  shell(`input swipe ${int(x1)} ${int(y1)} ${int(x2)} ${int(y2)} ${int(durationMs)}`);

export const keyeventCommand = (code: number): DeviceCommand =>
  shell(`input keyevent ${int(code)}`);

export const wmSizeCommand = (): DeviceCommand => shell("wm size");
export const getpropCommand = (name: string): DeviceCommand =>
  shell(`getprop ${quoteForDeviceShell(name)}`);

export const screencapPngCommand = (): DeviceCommand => execOut("screencap -p");
/**
 * Raw RGBA frame, encoded on the host: the way round builds whose `screencap -p` returns empty PNGs
 * (a vendor quirk, SPEC.md "Known device quirks"; no AOSP source shows it).
 */
export const screencapRawCommand = (): DeviceCommand => execOut("screencap");

/**
 * The UI tree in one device command and no file: uiautomator writes the XML to /dev/tty, which is
 * the stream adb reads, then prints "UI hierchary dumped to: /dev/tty" (ANDROID.md) right after
 * it, with no newline between. This is how the most-used peer, mobile-mcp, reads the tree. With no
 * file there is no earlier dump to read back by mistake and nothing to remove. Through exec-out,
 * as the peer sends it: no exit-status marker to print and read (uiautomator exits 0 whatever
 * happened), and its ERROR lines arrive on the same stream; screen.ts checks the output ran to
 * its "dumped to" or ERROR line instead. Where /dev/tty
 * cannot be opened the dumper only logs the IOException (AccessibilityNodeInfoDumper.
 * dumpWindowToFile,
 * https://github.com/aosp-mirror/platform_frameworks_base/blob/4fecab570da64a1956352aedf1b3245d3ba26030/cmds/uiautomator/library/core-src/com/android/uiautomator/core/AccessibilityNodeInfoDumper.java)
 * and still prints the "dumped to" line: no XML in the output is the sign to use uiDumpCommand.
 */
export function uiDumpToTtyCommand(compressed: boolean): DeviceCommand {
  return execOut(`uiautomator dump${compressed ? " --compressed" : ""} /dev/tty`);
}

/**
 * The fallback for a ROM that refuses /dev/tty (uiDumpToTtyCommand): dumps the UI tree to a
 * fresh path and prints it in the same round trip. A failed dump leaves
 * the previous file in place (DumpCommand.run prints "ERROR: …" and returns before writing,
 * https://github.com/aosp-mirror/platform_frameworks_base/blob/4fecab570da64a1956352aedf1b3245d3ba26030/cmds/uiautomator/cmds/uiautomator/src/com/android/commands/uiautomator/DumpCommand.java;
 * the command exits 0 either way, ANDROID.md), so a reused path could show a stale screen: the
 * path is new per call and removed afterwards.
 * uiautomator's own output is kept (not sent to /dev/null) so its "ERROR:" lines can be read.
 */
export function uiDumpCommand(path: string, compressed: boolean): DeviceCommand {
  const p = quoteForDeviceShell(path);
  return shell(
    `uiautomator dump${compressed ? " --compressed" : ""} ${p} && cat ${p}; rm -f ${p}`,
  );
}

function int(n: number): string {
  if (!Number.isSafeInteger(n)) throw new RangeError(`not an integer: ${n}`);
  return String(n);
}

// ---------------------------------------------------------------------------------------------
// phone_type

/**
 * Checks text for `input text`, which sends key events from the device's ASCII key map
 * (KeyCharacterMap.VIRTUAL_KEYBOARD.getEvents in InputShellCommand.sendText,
 * https://github.com/aosp-mirror/platform_frameworks_base/blob/b11dd06439584fb231812b0fd50e887df88cef0d/services/core/java/com/android/server/input/InputShellCommand.java):
 * it cannot type control characters (a newline is the Enter key), nor anything outside printable
 * ASCII, for which getEvents returns null and nothing at all is typed (ANDROID.md, `input text`).
 * Returns a message saying what to do instead, or null when the text can be typed.
 */
export function refuseUntypableText(text: string): string | null {
  const control = refuseControlCharacters(text);
  if (control !== null) return control;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (code > 0x7e) {
      return `Cannot type ${JSON.stringify(char)} (U+${
        code.toString(16).toUpperCase().padStart(4, "0")
      }): adb's "input text" can only type printable ASCII. Type the ASCII parts with phone_type, and enter the rest with the on-screen keyboard (phone_tap on its keys) or an IME that accepts broadcast text, such as ADBKeyBoard`;
    }
  }
  return null;
}

/**
 * Refuses what no typing path can type: empty text and control characters (a newline is the Enter
 * key, a tab the Tab key). Returns the message saying what to do instead, or null.
 */
export function refuseControlCharacters(text: string): string | null {
  if (text.length === 0) return "Nothing to type: text is empty";
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (code < 0x20 || code === 0x7f) {
      const name = CONTROL_NAMES[code] ?? `U+${code.toString(16).padStart(4, "0").toUpperCase()}`;
      const instead = code === 0x0a || code === 0x0d
        ? ' send phone_key "enter" between lines'
        : code === 0x09
        ? ' send phone_key "tab"'
        : " remove it";
      return `Cannot type: the text contains a control character (${name}), which phone_type refuses; type the parts separately and${instead}`;
    }
  }
  return null;
}

/**
 * The first control character (U+0000–U+001F, U+007F) in a value, named for a message, or null.
 * No free-form argument needs one, and a NUL cannot even be passed to a process (spawn refuses it).
 */
export function controlCharacter(value: string): string | null {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code >= 0x20 && code !== 0x7f) continue;
    const hex = `U+${code.toString(16).padStart(4, "0").toUpperCase()}`;
    const name = CONTROL_NAMES[code];
    return name === undefined ? hex : `${name}, ${hex}`;
  }
  return null;
}

/** The first character `input text` cannot type (beyond printable ASCII), or undefined. */
export function firstNonAscii(text: string): string | undefined {
  for (const char of text) if ((char.codePointAt(0) ?? 0) > 0x7e) return char;
  return undefined;
}

const CONTROL_NAMES: Record<number, string> = {
  0x00: "NUL",
  0x09: "tab",
  0x0a: "newline",
  0x0d: "carriage return",
  0x1b: "escape",
  0x7f: "DEL",
};

/**
 * The `input text` commands that type `text` exactly. Android's input tool turns every "%s" into
 * a space (the escapeFlag loop of InputShellCommand.sendText, linked above), so text is split
 * between '%' and 's' and typed in pieces that never contain "%s".
 */
export function typeTextCommand(text: string): DeviceCommand {
  const pieces = text.split(/(?<=%)(?=s)/);
  return shell(pieces.map((piece) => `input text ${quoteForDeviceShell(piece)}`).join(" && "));
}

// ---------------------------------------------------------------------------------------------
// phone_intent

export interface IntentArgs {
  action?: string | undefined;
  data?: string | undefined;
  component?: string | undefined;
  package?: string | undefined;
}

/** Characters the phone's shell gives meaning to; refused in every intent argument. */
const SHELL_META = /[\s;&|`$<>\\'"(){}\[\]*?!~#^]/u;
/** In a URI, '&', '?', '#', '~' and '!' are ordinary (RFC 3986); quoting keeps them inert. */
const URI_SHELL_META = /[\s;|`$<>\\'"(){}\[\]*^]/u;

const JAVA_NAME = String.raw`[A-Za-z_][A-Za-z0-9_]*`;
const ACTION_RE = new RegExp(`^${JAVA_NAME}(\\.${JAVA_NAME})*$`);
const PACKAGE_RE = new RegExp(`^${JAVA_NAME}(\\.${JAVA_NAME})+$`);
const COMPONENT_RE = new RegExp(
  `^${JAVA_NAME}(\\.${JAVA_NAME})+/\\.?${JAVA_NAME}(\\.${JAVA_NAME})*$`,
);
const URI_RE = /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/;

/**
 * Refuses intent arguments at the door: control characters first (a NUL would reach the spawn of
 * adb, which refuses it), then shell metacharacters (a typo'd action with ';' should fail loudly,
 * not launch a strange intent), then each argument's own shape. Returns the reason, or null when
 * the arguments may be quoted and sent.
 */
export function refuseIntentArgs(args: IntentArgs): string | null {
  const given = Object.entries(args).filter(([, v]) => v !== undefined) as [string, string][];
  if (given.length === 0) {
    return "Nothing to start: give at least one of action, data, component or package";
  }
  for (const [name, value] of given) {
    const control = controlCharacter(value);
    if (control !== null) {
      return `Refused ${name}: it contains a control character (${control}), which phone_intent does not pass; remove it`;
    }
    const meta = (name === "data" ? URI_SHELL_META : SHELL_META).exec(value);
    if (meta) {
      const shown = /\s/.test(meta[0]) ? "whitespace" : `"${meta[0]}"`;
      return `Refused ${name}: it contains ${shown}, a shell metacharacter phone_intent does not pass${
        name === "data" ? "; percent-encode it in the URI (e.g. a space as %20)" : ""
      }`;
    }
  }
  const checks: Array<[keyof IntentArgs, RegExp, string]> = [
    ["action", ACTION_RE, "an intent action such as android.intent.action.VIEW"],
    ["package", PACKAGE_RE, "a package name such as com.android.settings"],
    [
      "component",
      COMPONENT_RE,
      "a component such as com.android.settings/.Settings (package/activity)",
    ],
    ["data", URI_RE, "a URI with a scheme, such as https://example.com/path or tel:123"],
  ];
  for (const [name, re, shape] of checks) {
    const value = args[name];
    if (value !== undefined && !re.test(value)) {
      return `Refused ${name} ${JSON.stringify(value)}: expected ${shape}`;
    }
  }
  return null;
}

/** The action a URI is opened with when none is given: what "open this link" means. */
export const VIEW_ACTION = "android.intent.action.VIEW";

/**
 * `am start` for an intent, each argument both whitelisted (refuseIntentArgs) and quoted. A package
 * with nothing else launches the app's launcher activity, as a tap on its icon would: monkey picks
 * the package's MAIN/LAUNCHER activity (Monkey.getMainApps,
 * https://github.com/aosp-mirror/platform_development/blob/0ee6ec4a7371daf1e36b876c33b1f5cfc64bba4d/cmds/monkey/src/com/android/commands/monkey/Monkey.java).
 * Data without an action is viewed (android.intent.action.VIEW): an intent with data and no action
 * matches no app's intent filter, so am would only answer "unable to resolve Intent".
 */
export function intentCommand(args: IntentArgs): DeviceCommand {
  const { data, component, package: pkg } = args;
  const action = args.action ?? (data !== undefined ? VIEW_ACTION : undefined);
  if (pkg !== undefined && action === undefined && data === undefined && component === undefined) {
    return shell(
      `monkey -p ${quoteForDeviceShell(pkg)} -c android.intent.category.LAUNCHER 1`,
    );
  }
  const parts = ["am start"];
  if (action !== undefined) parts.push(`-a ${quoteForDeviceShell(action)}`);
  if (data !== undefined) parts.push(`-d ${quoteForDeviceShell(data)}`);
  if (component !== undefined) parts.push(`-n ${quoteForDeviceShell(component)}`);
  // A trailing bare name is am's way to restrict an intent to one package (Intent.parseCommandArgs,
  // https://github.com/aosp-mirror/platform_frameworks_base/blob/426c31323cb86f86149e99a23262004dfd58891f/core/java/android/content/Intent.java).
  if (pkg !== undefined) parts.push(quoteForDeviceShell(pkg));
  return shell(parts.join(" "));
}

// ---------------------------------------------------------------------------------------------
// output parsers

/**
 * Screen size from `wm size`; an override (e.g. `wm size 720x1600`) is what input uses. The two
 * lines come from WindowManagerShellCommand.printInitialDisplaySize,
 * https://github.com/aosp-mirror/platform_frameworks_base/blob/6319db423231ac7fbd22dd667557212ad359d198/services/core/java/com/android/server/wm/WindowManagerShellCommand.java.
 */
export function parseWmSize(output: string): { width: number; height: number } | null {
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
  /** Started; `line` is am's "Starting: …" or "Warning: …" line, when there is one. */
  | { kind: "started"; line: string | undefined }
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
 * except in Android 15, which returns 1 (ANDROID.md); the legacy shell has no status at all.
 * monkey prints "** No activities found to run, monkey aborted." on stdout and exits 252
 * (Monkey.getMainApps, linked above), among its own "args:" and "bash arg:" lines, which are noise.
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
  return { kind: "started", line: lines.find((l) => /^(Starting|Warning):/.test(l)) };
}

/**
 * Lists the installed packages (read-only): `pm list packages` prints "package:NAME" per package,
 * PackageManagerShellCommand.runListPackages,
 * https://github.com/aosp-mirror/platform_frameworks_base/blob/6257ba4c5d5a3f64bb8f8a3d2fe3d39780adf158/services/core/java/com/android/server/pm/PackageManagerShellCommand.java.
 */
export const listPackagesCommand = (): DeviceCommand => shell("pm list packages");

/** At most this many packages are read (a phone has a few hundred): bounds the closeness search. */
const MAX_PACKAGES = 5_000;

/** Package names from `pm list packages`, in the phone's order; anything else is skipped. */
export function parsePackageList(output: string): string[] {
  const names: string[] = [];
  for (const line of output.split(/\r?\n/)) {
    const name = /^package:(\S{1,255})$/.exec(line.trim())?.[1];
    if (name !== undefined && PACKAGE_RE.test(name)) names.push(name);
    if (names.length >= MAX_PACKAGES) break;
  }
  return names;
}

/**
 * The package's launcher activity: `cmd package resolve-activity --brief` with the MAIN/LAUNCHER
 * intent a home-screen icon sends prints two lines, the second ComponentName.flattenToShortString
 * ("pkg/.Activity"), or "No activity found" with exit 0 (runResolveActivity and printResolveInfo,
 * same file as above).
 */
export const resolveActivityCommand = (pkg: string): DeviceCommand =>
  shell(
    `cmd package resolve-activity --brief -a android.intent.action.MAIN -c android.intent.category.LAUNCHER ${
      quoteForDeviceShell(pkg)
    }`,
  );

/**
 * The component resolve-activity printed for `pkg`, or null when it found none. A component of
 * another package (the system's chooser, when several activities match) does not count.
 */
export function parseResolvedActivity(output: string, pkg: string): string | null {
  const last = output.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== "").at(-1);
  return last !== undefined && COMPONENT_RE.test(last) && last.startsWith(`${pkg}/`) ? last : null;
}

/**
 * The `count` installed packages closest to `wanted`, best first: those that share a dotted part
 * with it or contain one another come before the rest, then by edit distance. Names are cut to
 * 100 characters for the distance, so the work stays bounded (MAX_PACKAGES × 100²).
 */
export function closestPackages(
  wanted: string,
  installed: readonly string[],
  count = 3,
): string[] {
  const want = wanted.toLowerCase().slice(0, 100);
  const parts = new Set(want.split(".").filter((p) => p.length >= 3 && !GENERIC_PARTS.has(p)));
  const scored = installed.map((name) => {
    const lower = name.toLowerCase().slice(0, 100);
    const shared = lower.includes(want) || want.includes(lower) ||
      lower.split(".").some((p) => parts.has(p));
    return { name, shared, distance: editDistance(want, lower) };
  });
  scored.sort((a, b) =>
    Number(b.shared) - Number(a.shared) || a.distance - b.distance || a.name.localeCompare(b.name)
  );
  return scored.slice(0, count).map((s) => s.name);
}

/** Dotted parts almost every package shares, which say nothing about closeness. */
const GENERIC_PARTS = new Set(["com", "org", "net", "android", "google", "app", "apps"]);

/** Levenshtein distance, two rows. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(
        prev[j]! + 1,
        row[j - 1]! + 1,
        prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    prev = row;
  }
  return prev[b.length]!;
}

/**
 * The failure text of an `input` command, which prints nothing when it works: the line that says
 * most. The app_process `input` of Android 10-11 (BaseCommand) prints its usage, a blank line and
 * "Error: " + the message, and still exits 0
 * (https://github.com/aosp-mirror/platform_frameworks_base/blob/76e804db5aa27c39b7a05478a8eebceb7bc2ef13/cmds/input/src/com/android/commands/input/Input.java,
 * https://github.com/aosp-mirror/platform_frameworks_base/blob/4e6aa13480a58be54800a9fd52ebf7d8d2b57335/core/java/com/android/internal/os/BaseCommand.java);
 * the `cmd input` of Android 12+ throws, which ShellCommand prints as "Exception occurred while
 * executing …" and the exception's own line, exit 255; it answers an unknown sub-command with
 * "Unknown command: X" on stdout and exit 0 (ANDROID.md, `input`).
 */
export function inputFailure(output: string): string | null {
  const lines = output.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== "");
  return lines.find((l) => /^(java\.|android\.)\S*(Exception|Error)\b/.test(l)) ??
    lines.find((l) => /^Error:/.test(l)) ??
    lines.find((l) => /(Exception|Usage: input|Unknown command|not found)/.test(l)) ??
    null;
}
