// The commands that drive the screen through the phone's `input` tool: tap, long press, swipe, key
// and text, with what `input text` can and cannot type checked before anything is sent.
//
// Android's shell tools are cited at the frameworks/base commits linked.

import { characterName, scanCharacters } from "../core/characters.ts";
import { type Arg, type DeviceCommand, quoted, SCRIPT, shellCommand, syntax } from "./commands.ts";

export const tapCommand = (x: number, y: number): DeviceCommand =>
  shellCommand("input", ["tap", x, y]);

/**
 * A tap, then `next` (a text command) once the tap succeeded, as one device command: phone_type's
 * tap on its field and its typing are one turn in the phone's queue and one round trip, so no
 * other call's command can run between them and move the focus elsewhere. `input tap` returns
 * once the app has handled the touch (InputShellCommand injects it with
 * INJECT_INPUT_EVENT_MODE_WAIT_FOR_FINISH, at the commit longPressCommand links below), so the
 * field has focus when `next` starts.
 */
export function tapThen(x: number, y: number, next: DeviceCommand): DeviceCommand {
  if (next.service !== "shell") throw new RangeError("tapThen runs a text command after the tap");
  const steps = next.program === SCRIPT ? next.args : [next.program, ...next.args];
  return shellCommand("input", ["tap", x, y, syntax(" && { "), ...steps, syntax("; }")]);
}

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

/**
 * What no typing path can type: empty text and control characters (a newline is the Enter key, a
 * tab the Tab key). Returns what is wrong and what to do instead (phone_type words the refusal),
 * or null when there is neither.
 */
export function typedTextProblem(text: string): string | null {
  if (text.length === 0) return "the text is empty";
  const { control } = scanCharacters(text);
  if (control === undefined) return null;
  const instead = control === "\n" || control === "\r"
    ? ' send phone_key "enter" between lines'
    : control === "\t"
    ? ' send phone_key "tab"'
    : " remove it";
  return `the text contains a control character (${
    characterName(control)
  }), which phone_type refuses; type the parts separately and${instead}`;
}

/**
 * What `input text` cannot type, which sends key events from the device's ASCII key map
 * (KeyCharacterMap.VIRTUAL_KEYBOARD.getEvents in InputShellCommand.sendText,
 * https://github.com/aosp-mirror/platform_frameworks_base/blob/b11dd06439584fb231812b0fd50e887df88cef0d/services/core/java/com/android/server/input/InputShellCommand.java):
 * what typedTextProblem refuses, and anything outside printable ASCII, for which getEvents returns
 * null and nothing at all is typed (docs/android.md, input). Returns what is wrong and what to do
 * instead, or null when `input text` can type all of it.
 */
export function inputTextProblem(text: string): string | null {
  const typed = typedTextProblem(text);
  if (typed !== null) return typed;
  const char = scanCharacters(text).beyondAscii;
  if (char === undefined) return null;
  return `the text holds ${JSON.stringify(char)} (${
    characterName(char)
  }), and adb's "input text" can only type printable ASCII. Type the ASCII parts with phone_type, and enter the rest with the on-screen keyboard (phone_tap on its keys) or an IME that accepts broadcast text, such as ADBKeyBoard`;
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
