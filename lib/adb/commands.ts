// A device command as a value, and the one place it becomes the line the phone's shell runs: every
// free-form value quoted by quoteForDeviceShell, every word checked when the command is built.
//
// Sources cited below are pinned: adb at tag platform-tools-29.0.6 (system/core 589da1a0, the adb
// Debian ships). The commands themselves are built in input_commands.ts, screen_commands.ts,
// intent_commands.ts and adb_keyboard.ts.

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

/** The size input coordinates live in; output.ts reads it (parseWmSize). */
export const wmSizeCommand = (): DeviceCommand => shellCommand("wm", ["size"]);
export const getpropCommand = (name: string): DeviceCommand =>
  shellCommand("getprop", [quoted(name)]);
