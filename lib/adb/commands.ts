// Builds every device command phone-eye sends as a value, renders it to the one line the phone's
// shell runs (every free-form value quoted by quoteForDeviceShell), and checks intent and text input.
//
// Sources cited below are pinned: adb at tag platform-tools-29.0.6 (system/core 589da1a0, the adb
// Debian ships), Android's shell tools at the frameworks/base and development commits linked.

import { characterName, scanCharacters } from "../core/characters.ts";
import type { OutputKind } from "./runner.ts";

/**
 * One command for the phone, as data: who needs to know whether it may be replayed, or how much of
 * its output to read, reads a field. deviceShellLine renders it to the single argument adb gets:
 * `adb shell` joins its arguments with spaces and escapes nothing ("We don't escape here, just like
 * ssh(1)",
 * https://github.com/aosp-mirror/platform_system_core/blob/589da1a0e0220d9443dbdd03e9fb2a659bfd2f8c/adb/client/commandline.cpp#L757-L758),
 * and `adb exec-out` sends its first argument raw (same file #L1650), so one pre-quoted string is
 * the only form that is quoted exactly once (SPEC §5).
 */
export interface DeviceCommand {
  /**
   * The program the command runs: "input", "am", "uiautomator". A command of several steps is
   * named by its first program; SCRIPT for a script phone-eye wrote (a loop, a case).
   */
  readonly program: string;
  /** Its arguments, and the further steps of a command of several steps. */
  readonly args: readonly Arg[];
  /**
   * "shell" for text commands, which the device layer ends with an exit-status marker
   * (exit_marker.ts);
   * "exec-out" for binary output (screenshots), passed through byte for byte.
   */
  readonly service: "shell" | "exec-out";
  /**
   * True when the command has no effect on the phone the user could see twice, so a call cut by a
   * dropped Wi-Fi link may be replayed after reconnecting (READ_ONLY_PROGRAMS).
   */
  readonly replayable: boolean;
  /**
   * What the command prints, which sets how much of it the runner reads (OUTPUT_CAPS): "image" for
   * screencap, the only binary output phone-eye asks for; "text" for everything else, including
   * the UI dump that exec-out carries from /dev/tty (uiDumpToTtyCommand).
   */
  readonly output: OutputKind;
}

/**
 * One argument: a word the builder wrote (a flag, a constant), an integer, a free-form value
 * (quoted), or shell syntax the builder wrote. A word that holds anything the shell reads is
 * refused when the command is built, so a value passed unquoted by mistake fails loudly instead of
 * reaching the phone's shell.
 */
export type Arg = string | number | Quoted | Syntax;

/** A free-form value: always rendered through quoteForDeviceShell. */
export interface Quoted {
  readonly quoted: string;
}

/** Shell syntax the builder wrote (" && ", "; ", " 2>&1"), rendered as is, its spaces included. */
export interface Syntax {
  readonly syntax: string;
}

export const quoted = (value: string): Quoted => ({ quoted: value });
export const syntax = (text: string): Syntax => ({ syntax: text });

/**
 * The program of a script phone-eye wrote. The phone's adbd runs every line with `sh -c`, so a
 * script is sent as its own line, with no "sh" before it.
 */
export const SCRIPT = "sh";

/**
 * Programs whose commands have no effect on the phone the user could see twice. Input and
 * `am start` are deliberately absent: replaying a tap whose acknowledgement was lost would tap
 * twice.
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

/** A word the phone's shell passes as it is: no quote, space, expansion or operator in it. */
const PLAIN_WORD = /^[A-Za-z0-9_.,:/=+@-]+$/;

/**
 * The one constructor of device commands: checks every word and integer, and reads replayability
 * from the program it is given (READ_ONLY_PROGRAMS).
 */
export function deviceCommand(
  service: "shell" | "exec-out",
  program: string,
  args: readonly Arg[],
  output: OutputKind = "text",
): DeviceCommand {
  if (program !== SCRIPT) plainWord(program);
  for (const arg of args) {
    if (typeof arg === "number") int(arg);
    else if (typeof arg === "string") plainWord(arg);
  }
  return { program, args, service, replayable: READ_ONLY_PROGRAMS.has(program), output };
}

/** A text command run through `adb shell`. */
export const shellCommand = (program: string, args: readonly Arg[]): DeviceCommand =>
  deviceCommand("shell", program, args);

/** A script phone-eye wrote (SCRIPT), run through `adb shell`; never replayed. */
export const shellScript = (args: readonly Arg[]): DeviceCommand =>
  deviceCommand("shell", SCRIPT, args);

/**
 * The line the phone's shell runs: the one place a device command becomes a string. Words and
 * integers are separated by a space; syntax is written as it is; every free-form value is quoted.
 */
export function deviceShellLine(command: DeviceCommand): string {
  // A script starts as if after syntax: no program word, no space before its first argument.
  let line = command.program === SCRIPT ? "" : command.program;
  let afterSyntax = command.program === SCRIPT;
  for (const arg of command.args) {
    if (typeof arg === "object" && "syntax" in arg) {
      line += arg.syntax;
      afterSyntax = true;
      continue;
    }
    const text = typeof arg === "number"
      ? int(arg)
      : typeof arg === "string"
      ? arg
      : quoteForDeviceShell(arg.quoted);
    line += afterSyntax ? text : ` ${text}`;
    afterSyntax = false;
  }
  return line;
}

/** Wraps a value in single quotes for the phone's `sh -c`; a quote inside becomes '\''. */
export function quoteForDeviceShell(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

function int(n: number): string {
  if (!Number.isSafeInteger(n)) throw new RangeError(`not an integer: ${n}`);
  return String(n);
}

function plainWord(word: string): string {
  if (!PLAIN_WORD.test(word)) {
    throw new RangeError(`not a plain word for the phone's shell: ${JSON.stringify(word)}`);
  }
  return word;
}

export const tapCommand = (x: number, y: number): DeviceCommand =>
  shellCommand("input", ["tap", x, y]);

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
  const pause = syntax(
    ` && { sleep ${(MULTI_TAP_PAUSE_MS / 1000).toFixed(2)} 2>/dev/null; :; } && `,
  );
  const taps = Math.max(1, Math.trunc(count));
  const args: Arg[] = ["tap", x, y];
  for (let i = 1; i < taps; i++) args.push(pause, "input", "tap", x, y);
  return shellCommand("input", args);
}

/**
 * A long press is a swipe that does not move: `input` has no long press for the screen (its
 * commands are text, keyevent, tap, swipe, draganddrop, press, roll, motionevent, keycombination;
 * `--longpress` is for keyevent only), InputShellCommand.onCommand at
 * https://github.com/aosp-mirror/platform_frameworks_base/blob/b11dd06439584fb231812b0fd50e887df88cef0d/services/core/java/com/android/server/input/InputShellCommand.java.
 */
export const longPressCommand = (x: number, y: number, holdMs: number): DeviceCommand =>
  shellCommand("input", ["swipe", x, y, x, y, holdMs]);

export const swipeCommand = (
  x1: number,
  y1: number,
  x2: number,
  y2: number,
  durationMs: number,
): DeviceCommand => shellCommand("input", ["swipe", x1, y1, x2, y2, durationMs]);

export const keyeventCommand = (code: number): DeviceCommand =>
  shellCommand("input", ["keyevent", code]);

export const wmSizeCommand = (): DeviceCommand => shellCommand("wm", ["size"]);
export const getpropCommand = (name: string): DeviceCommand =>
  shellCommand("getprop", [quoted(name)]);

export const screencapPngCommand = (): DeviceCommand =>
  deviceCommand("exec-out", "screencap", ["-p"], "image");
/**
 * Raw RGBA frame, encoded on the host: the way round builds whose `screencap -p` returns empty PNGs
 * (a vendor quirk, docs/android.md, reported OEM quirks; no AOSP source shows it).
 */
export const screencapRawCommand = (): DeviceCommand =>
  deviceCommand("exec-out", "screencap", [], "image");

/**
 * The UI tree in one device command and no file: uiautomator writes the XML to /dev/tty, which is
 * the stream adb reads, then prints "UI hierchary dumped to: /dev/tty" (docs/android.md) right after
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
  return deviceCommand("exec-out", "uiautomator", [
    "dump",
    ...(compressed ? ["--compressed"] : []),
    "/dev/tty",
  ]);
}

/**
 * The fallback for a ROM that refuses /dev/tty (uiDumpToTtyCommand): dumps the UI tree to a
 * fresh path and prints it in the same round trip. A failed dump leaves
 * the previous file in place (DumpCommand.run prints "ERROR: …" and returns before writing,
 * https://github.com/aosp-mirror/platform_frameworks_base/blob/4fecab570da64a1956352aedf1b3245d3ba26030/cmds/uiautomator/cmds/uiautomator/src/com/android/commands/uiautomator/DumpCommand.java;
 * the command exits 0 either way, docs/android.md), so a reused path could show a stale screen: the
 * path is new per call and removed afterwards.
 * uiautomator's own output is kept (not sent to /dev/null) so its "ERROR:" lines can be read.
 */
export function uiDumpCommand(path: string, compressed: boolean): DeviceCommand {
  const p = quoted(path);
  return shellCommand("uiautomator", [
    "dump",
    ...(compressed ? ["--compressed"] : []),
    p,
    syntax(" && "),
    "cat",
    p,
    syntax("; "),
    "rm",
    "-f",
    p,
  ]);
}

/**
 * What an action changed, in one round trip (settle.ts): the focused window and app
 * (`dumpsys window`'s mCurrentFocus and mFocusedApp lines), whether the soft keyboard is shown
 * (`dumpsys input_method`'s mInputShown token: one line on Android 10-12, its own line later), then
 * the UI tree as uiDumpToTtyCommand reads it, or, with `path`, as uiDumpCommand does for a phone
 * that refuses /dev/tty. Every step only reads, so it is named by its first program and replayable.
 */
export function screenStateCommand(path?: string): DeviceCommand {
  const dumpsys: Arg[] = [
    "window",
    syntax(" | "),
    "grep",
    "-E",
    quoted("mCurrentFocus|mFocusedApp"),
    syntax("; "),
    "dumpsys",
    "input_method",
    syntax(" | "),
    "grep",
    "-o",
    quoted("mInputShown=[a-z]*"),
    syntax("; "),
  ];
  if (path === undefined) {
    return deviceCommand("exec-out", "dumpsys", [...dumpsys, "uiautomator", "dump", "/dev/tty"]);
  }
  const dump = uiDumpCommand(path, false);
  return shellCommand("dumpsys", [...dumpsys, dump.program, ...dump.args]);
}

// ---------------------------------------------------------------------------------------------
// phone_type

/**
 * What no typing path can type: empty text and control characters (a newline is the Enter key, a
 * tab the Tab key). Returns the message saying what to do instead, or null when there is neither.
 */
export function typedTextProblem(text: string): string | null {
  if (text.length === 0) return "Cannot type: the text is empty";
  const { control } = scanCharacters(text);
  if (control === undefined) return null;
  const instead = control === "\n" || control === "\r"
    ? ' send phone_key "enter" between lines'
    : control === "\t"
    ? ' send phone_key "tab"'
    : " remove it";
  return `Cannot type: the text contains a control character (${
    characterName(control)
  }), which phone_type refuses; type the parts separately and${instead}`;
}

/**
 * What `input text` cannot type, which sends key events from the device's ASCII key map
 * (KeyCharacterMap.VIRTUAL_KEYBOARD.getEvents in InputShellCommand.sendText,
 * https://github.com/aosp-mirror/platform_frameworks_base/blob/b11dd06439584fb231812b0fd50e887df88cef0d/services/core/java/com/android/server/input/InputShellCommand.java):
 * what typedTextProblem refuses, and anything outside printable ASCII, for which getEvents returns
 * null and nothing at all is typed (docs/android.md, input). Returns a message saying what to do
 * instead, or null when `input text` can type all of it.
 */
export function inputTextProblem(text: string): string | null {
  const typed = typedTextProblem(text);
  if (typed !== null) return typed;
  const char = scanCharacters(text).beyondAscii;
  if (char === undefined) return null;
  return `Cannot type ${JSON.stringify(char)} (${
    characterName(char)
  }): adb's "input text" can only type printable ASCII. Type the ASCII parts with phone_type, and enter the rest with the on-screen keyboard (phone_tap on its keys) or an IME that accepts broadcast text, such as ADBKeyBoard`;
}

/**
 * The `input text` commands that type `text` exactly. Android's input tool turns every "%s" into
 * a space (the escapeFlag loop of InputShellCommand.sendText, linked above), so text is split
 * between '%' and 's' and typed in pieces that never contain "%s".
 * Text `input text` cannot type (inputTextProblem) is refused with a RangeError: phone_type sends
 * it through ADB Keyboard instead.
 */
export function typeTextCommand(text: string): DeviceCommand {
  const problem = inputTextProblem(text);
  if (problem !== null) throw new RangeError(problem);
  const args: Arg[] = [];
  for (const piece of text.split(/(?<=%)(?=s)/)) {
    if (args.length > 0) args.push(syntax(" && "), "input");
    args.push("text", quoted(piece));
  }
  return shellCommand("input", args);
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
const ACTION_NAME = new RegExp(`^${JAVA_NAME}(\\.${JAVA_NAME})*$`);
/** A package name: two or more dotted Java names. */
export const PACKAGE_NAME = new RegExp(`^${JAVA_NAME}(\\.${JAVA_NAME})+$`);
/** A component: package/activity, the activity absolute or relative (".Main"). */
export const COMPONENT_NAME = new RegExp(
  `^${JAVA_NAME}(\\.${JAVA_NAME})+/\\.?${JAVA_NAME}(\\.${JAVA_NAME})*$`,
);
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/;

/**
 * Checks intent arguments at the door: control characters first (a NUL would reach the spawn of
 * adb, which refuses it), then shell metacharacters (a typo'd action with ';' should fail loudly,
 * not launch a strange intent), then each argument's own shape. Returns the reason to refuse them,
 * or null when they may be quoted and sent.
 */
export function intentArgsProblem(args: IntentArgs): string | null {
  const given = Object.entries(args).filter(([, v]) => v !== undefined) as [string, string][];
  if (given.length === 0) {
    return "Nothing to start: give at least one of action, data, component or package";
  }
  for (const [name, value] of given) {
    const control = scanCharacters(value).control;
    if (control !== undefined) {
      return `Refused ${name}: it contains a control character (${
        characterName(control)
      }), which phone_intent does not pass; remove it`;
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
    ["action", ACTION_NAME, "an intent action such as android.intent.action.VIEW"],
    ["package", PACKAGE_NAME, "a package name such as com.android.settings"],
    [
      "component",
      COMPONENT_NAME,
      "a component such as com.android.settings/.Settings (package/activity)",
    ],
    ["data", URI, "a URI with a scheme, such as https://example.com/path or tel:123"],
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
 * `am start` for an intent, each argument both whitelisted (intentArgsProblem) and quoted. A package
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
    return shellCommand("monkey", ["-p", quoted(pkg), "-c", "android.intent.category.LAUNCHER", 1]);
  }
  const parts: Arg[] = ["start"];
  if (action !== undefined) parts.push("-a", quoted(action));
  if (data !== undefined) parts.push("-d", quoted(data));
  if (component !== undefined) parts.push("-n", quoted(component));
  // A trailing bare name is am's way to restrict an intent to one package (Intent.parseCommandArgs,
  // https://github.com/aosp-mirror/platform_frameworks_base/blob/426c31323cb86f86149e99a23262004dfd58891f/core/java/android/content/Intent.java).
  if (pkg !== undefined) parts.push(quoted(pkg));
  return shellCommand("am", parts);
}

/**
 * Lists the installed packages (read-only): `pm list packages` prints "package:NAME" per package,
 * PackageManagerShellCommand.runListPackages,
 * https://github.com/aosp-mirror/platform_frameworks_base/blob/6257ba4c5d5a3f64bb8f8a3d2fe3d39780adf158/services/core/java/com/android/server/pm/PackageManagerShellCommand.java.
 */
export const listPackagesCommand = (): DeviceCommand => shellCommand("pm", ["list", "packages"]);

/**
 * The package's launcher activity: `cmd package resolve-activity --brief` with the MAIN/LAUNCHER
 * intent a home-screen icon sends prints two lines, the second ComponentName.flattenToShortString
 * ("pkg/.Activity"), or "No activity found" with exit 0 (runResolveActivity and printResolveInfo,
 * same file as above).
 */
export const resolveActivityCommand = (pkg: string): DeviceCommand =>
  shellCommand("cmd", [
    "package",
    "resolve-activity",
    "--brief",
    "-a",
    "android.intent.action.MAIN",
    "-c",
    "android.intent.category.LAUNCHER",
    quoted(pkg),
  ]);
