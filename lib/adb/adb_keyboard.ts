// Typing any text through ADB Keyboard (com.android.adbkeyboard/.AdbIME): its device commands, the
// parsing of their answers, and the flow that selects it, types, and always puts the user's back.
//
// Facts (docs/android.md, ADB Keyboard and ime; the keyboard's source at
// https://github.com/senzhk/ADBKeyBoard/blob/3e1682533bef3b4cf686eab9d3337634ccbb4bb9/keyboardservice/src/main/java/com/android/adbkeyboard/AdbIME.java):
// - its broadcast receiver is registered in onCreateInputView, so it exists only while AdbIME is
//   the selected input method AND its keyboard view has been created (a text field has focus);
// - `am broadcast` prints "Broadcast completed: result=0" and exits 0 whether or not anyone
//   received it, so delivery cannot be read from it;
// - `ime set` of an id the phone does not know exits 0 with
//   "Unknown input method X cannot be selected for user #0" on stderr.

import {
  type Arg,
  type DeviceCommand,
  quoted,
  shellCommand,
  shellScript,
  syntax,
} from "./commands.ts";
import type { Device } from "./device.ts";
import { tapThen } from "./input_commands.ts";
import { AdbError } from "./errors.ts";
import { excerpt } from "../core/text.ts";

export const ADB_KEYBOARD_ID = "com.android.adbkeyboard/.AdbIME";
const ADB_KEYBOARD_PACKAGE = "com.android.adbkeyboard";
export const ADB_KEYBOARD_RELEASES = "https://github.com/senzhk/ADBKeyBoard/releases";

/** Separates the answers of the one read-only query; no input method id can contain it. */
const SECTION = "--phone-eye--";
/** Printed by the typing command: whether the keyboard's receiver showed up before the broadcast. */
const READY = "phone-eye-keyboard: ready";
const NOT_READY = "phone-eye-keyboard: not ready";
const SWITCH_REFUSED = "phone-eye-keyboard: not selected";

/**
 * How long, at most, the typing command waits for the keyboard's receiver after selecting it:
 * READY_POLLS checks 100 ms apart. Binding an input method and creating its view takes a few
 * hundred milliseconds on a phone; a broadcast sent before that reaches nobody.
 */
export const READY_POLLS = 30;

export interface ImeState {
  /** ADB Keyboard is installed (`ime list -a -s`). */
  installed: boolean;
  /** ADB Keyboard is enabled (`ime list -s`). */
  enabled: boolean;
  /** The selected input method (`settings get secure default_input_method`); null when none. */
  current: string | null;
}

/**
 * One round trip for everything read-only: installed methods, enabled methods, the selected one.
 * `ime list` prints all enabled input methods; -a lists every installed one, -s one id per line
 * (the ime command's help text, InputMethodManagerService's shell command).
 */
export function imeStateCommand(): DeviceCommand {
  const then = syntax("; ");
  return shellCommand("ime", [
    ...["list", "-a", "-s", then, "echo", SECTION, then],
    ...["ime", "list", "-s", then, "echo", SECTION, then],
    ...["settings", "get", "secure", "default_input_method"],
  ]);
}

/** An input method id as Android flattens it (ComponentName short form): package/class. */
const IME_ID = /^[A-Za-z0-9_.]+\/[A-Za-z0-9_.$]+$/;

/** Reads imeStateCommand's answer; null when it does not have the three sections. */
export function parseImeState(text: string): ImeState | null {
  const sections = text.split(new RegExp(`^${SECTION}\\r?$`, "m"));
  if (sections.length !== 3) return null;
  const ids = (section: string) => section.split(/\r?\n/).map((line) => line.trim());
  const [all = "", enabled = "", current = ""] = sections;
  const selected = current.trim();
  return {
    installed: ids(all).includes(ADB_KEYBOARD_ID),
    enabled: ids(enabled).includes(ADB_KEYBOARD_ID),
    current: IME_ID.test(selected) ? selected : null,
  };
}

/**
 * Selects ADB Keyboard (enabling it first when needed), waits until its receiver is registered,
 * then sends the text as UTF-8 base64 (the keyboard's ADB_INPUT_B64 action). One round trip.
 *
 * Readiness is read from `dumpsys activity broadcasts com.android.adbkeyboard`, which lists the
 * package's registered receivers with each filter's `Action: "…"` lines
 * (ActivityManagerService.dumpBroadcastsLocked and IntentFilter.dump,
 * https://github.com/aosp-mirror/platform_frameworks_base/blob/b54e7a3d9f60ac605f404f9eb3c5e92ca51bbd23/core/java/android/content/IntentFilter.java;
 * the quoted form never appears in the broadcast history, which prints `act=…`). Unverified on a
 * device: if a build printed it otherwise, the wait runs out and the text is sent anyway, with
 * the result saying delivery could not be confirmed.
 *
 * When `ime set` refuses (it exits 0, the refusal only on stderr), nothing is broadcast. With
 * `tapFirst`, the field there is tapped first, in the same command (tapThen).
 */
export function typeWithKeyboardCommand(
  text: string,
  options: { enable: boolean; select: boolean; tapFirst?: Point | undefined },
): DeviceCommand {
  const { tapFirst, ...rest } = options;
  const typing = keyboardScript(text, rest);
  return tapFirst === undefined ? typing : tapThen(tapFirst.x, tapFirst.y, typing);
}

/** A point on the screen, in device pixels. */
export interface Point {
  x: number;
  y: number;
}

/** typeWithKeyboardCommand's script, without a tap before it. */
function keyboardScript(
  text: string,
  options: { enable: boolean; select: boolean },
): DeviceCommand {
  const id = quoted(ADB_KEYBOARD_ID);
  // base64's alphabet (A-Z a-z 0-9 + / =) has nothing the shell reads, but it is quoted anyway.
  const message = quoted(base64Utf8(text));
  const ready: Arg[] = [
    ...["dumpsys", "activity", "broadcasts", ADB_KEYBOARD_PACKAGE, syntax(" | ")],
    ...["grep", "-q", quoted('Action: "ADB_INPUT_B64"')],
  ];
  const wait: Arg[] = [
    syntax("i=0; until "),
    ...ready,
    syntax(`; do i=$((i+1)); if [ $i -ge ${READY_POLLS} ]; then echo `),
    quoted(NOT_READY),
    syntax(`; break; fi; sleep 0.1; done; [ $i -lt ${READY_POLLS} ] && echo `),
    quoted(READY),
  ];
  const type: Arg[] = [
    ...wait,
    syntax("; "),
    ...["am", "broadcast", "-a", "ADB_INPUT_B64", "--es", "msg", message],
  ];
  const enable: Arg[] = options.enable ? ["ime", "enable", id, syntax(" 2>&1; ")] : [];
  if (!options.select) return shellScript([...enable, ...type]);
  return shellScript([
    ...enable,
    syntax("s=$(ime set "),
    id,
    syntax(' 2>&1); echo "$s"; case "$s" in *nknown*|*rror*|*xception*) echo '),
    quoted(SWITCH_REFUSED),
    syntax(" ;; *) "),
    ...type,
    syntax(" ;; esac"),
  ]);
}

/**
 * Puts the `previous` input method back (null: it was ADB Keyboard already), and with `disable`
 * disables ADB Keyboard again because phone-eye enabled it.
 */
export function restoreImeCommand(
  options: { previous: string | null; disable: boolean },
): DeviceCommand {
  const { previous, disable } = options;
  const steps: Arg[] = [];
  if (previous !== null) steps.push("set", quoted(previous), syntax(" 2>&1"));
  if (disable) {
    if (steps.length > 0) steps.push(syntax("; "), "ime");
    steps.push("disable", quoted(ADB_KEYBOARD_ID), syntax(" 2>&1"));
  }
  return shellCommand("ime", steps);
}

/** The line of an `ime` answer that says it refused, or null. */
export function imeRefusal(output: string): string | null {
  const line = output.split(/\r?\n/).find((l) =>
    /Unknown input method|cannot be (selected|enabled)|^Error|Exception/.test(l.trim())
  );
  return line === undefined ? null : line.trim();
}

/** UTF-8 bytes of `text` as standard base64, the encoding ADB_INPUT_B64 decodes. */
export function base64Utf8(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** How putting the previous input method back went (phone_type words it). */
export type Restored =
  /**
   * Put back: `previous` is selected again; with none before, ADB Keyboard was disabled again
   * (`disabled`) or, never enabled by phone-eye, stays selected.
   */
  | { ok: true; previous: string | null; disabled: boolean }
  /** The phone refused it: `refused` is its line. */
  | { ok: false; previous: string | null; refused: string }
  /** The restore's command failed: `error` says why. */
  | { ok: false; previous: string | null; error: unknown };

/** What typing through ADB Keyboard did, as data: the typing's end, then the restore's. */
export interface KeyboardTyping {
  /** The characters sent (code points). */
  count: number;
  /**
   * The typing: sent, with whether the keyboard was listening (false: it may not have arrived),
   * or the error it met (a refusal, a timeout, a dropped link).
   */
  typing: { ok: true; listening: boolean } | { ok: false; error: unknown };
  /** Putting the previous input method back; null when nothing was changed. */
  restored: Restored | null;
}

/**
 * Types `text` through ADB Keyboard: reads the input-method state, selects the keyboard, types,
 * and in every case (a refusal, a timeout, a dropped link) puts the previous input method back.
 * With `tapFirst`, the field there is tapped in the typing's own command (tapThen), so nothing is
 * tapped on a phone without the keyboard.
 * Returns what happened, both steps as data, or `absent` when the phone has no ADB Keyboard
 * (nothing was changed then); throws AdbError only when the state could not be read, before
 * anything was changed.
 */
export async function typeWithAdbKeyboard(
  device: Device,
  text: string,
  options: { tapFirst?: Point | undefined } = {},
): Promise<KeyboardTyping | { absent: true }> {
  const stateOut = await device.run(imeStateCommand());
  const state = parseImeState(stateOut.text);
  if (state === null) {
    throw new AdbError("COMMAND_FAILED", {
      what: `could not read the phone's input methods ("ime list", "settings get"): ${
        excerpt(stateOut.text)
      }`,
    });
  }
  if (!state.installed) return { absent: true };

  const select = state.current !== ADB_KEYBOARD_ID;
  const enable = !state.enabled;
  let typing: KeyboardTyping["typing"];
  try {
    const command = typeWithKeyboardCommand(text, { enable, select, tapFirst: options.tapFirst });
    const out = await device.run(command);
    typing = { ok: true, listening: readTypingAnswer(out.text) };
  } catch (error) {
    typing = { ok: false, error };
  }
  // finally, by hand: the restore's own failure must be reported beside the first one, not lost.
  const restored = select || enable
    ? await restore(device, state, { selected: select, enabled: enable })
    : null;
  return { count: [...text].length, typing, restored };
}

/** Reads the typing command's answer: a refusal throws; true when the keyboard was listening. */
function readTypingAnswer(text: string): boolean {
  if (text.includes(SWITCH_REFUSED)) {
    throw new AdbError("COMMAND_FAILED", {
      what: `the phone refused to select ADB Keyboard (${
        imeRefusal(text) ?? excerpt(text)
      }), so nothing was typed. Check it is still installed ("adb shell ime list -a -s" lists ${ADB_KEYBOARD_ID}), then call phone_type again`,
    });
  }
  const refused = imeRefusal(text);
  if (refused !== null) {
    throw new AdbError("COMMAND_FAILED", {
      what: `the phone refused ADB Keyboard (${refused}), so nothing was typed`,
    });
  }
  if (!/Broadcast completed/.test(text)) {
    throw new AdbError("COMMAND_FAILED", {
      what: `"am broadcast" did not complete: ${excerpt(text)}`,
    });
  }
  return !text.includes(NOT_READY);
}

/** Puts the previous input method back; never throws, says what happened as data. */
async function restore(
  device: Device,
  state: ImeState,
  changed: { selected: boolean; enabled: boolean },
): Promise<Restored> {
  const { selected, enabled } = changed;
  const previous = selected ? state.current : null;
  // No input method was selected before and phone-eye enabled nothing: ADB Keyboard stays.
  if (previous === null && !enabled) return { ok: true, previous, disabled: false };
  try {
    const out = await device.run(restoreImeCommand({ previous, disable: enabled }));
    const refused = imeRefusal(out.text);
    if (refused !== null) return { ok: false, previous, refused };
    return { ok: true, previous, disabled: enabled };
  } catch (error) {
    return { ok: false, previous, error };
  }
}
