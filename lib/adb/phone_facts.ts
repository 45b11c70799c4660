// What phone_devices and --doctor say about one phone: model, Android version, screen size and
// whether ADB Keyboard is installed, read in one `adb shell` round trip and parsed here (pure).

import { type DeviceCommand, shellCommand, syntax } from "./commands.ts";
import { imeStateCommand, parseImeState } from "./adb_keyboard.ts";
import { parseWmSize } from "./output.ts";
import type { Size } from "../core/geometry.ts";

/** Separates the answers; no model name, version, `wm size` line or input method id holds it. */
const PART = "--phone-eye-fact--";

export interface PhoneFacts {
  /** ro.product.model; null when empty. */
  model: string | null;
  /** ro.build.version.release ("14"); null when empty. */
  android: string | null;
  /** The size input coordinates live in (`wm size`, override first); null when unreadable. */
  screen: Size | null;
  /** Whether ADB Keyboard is installed; null when the input method list was unreadable. */
  adbKeyboard: boolean | null;
}

/**
 * getprop twice, `wm size`, then the input-method query phone_type reads (adb_keyboard.ts), joined
 * with "; " so one answer carries them all. Every step only reads, and the first program (getprop)
 * makes the command replayable after a dropped Wi-Fi link, which is what it deserves.
 */
export function phoneFactsCommand(): DeviceCommand {
  const then = syntax("; ");
  const part = ["echo", PART, then] as const;
  const ime = imeStateCommand();
  return shellCommand("getprop", [
    ...["ro.product.model", then, ...part],
    ...["getprop", "ro.build.version.release", then, ...part],
    ...["wm", "size", then, ...part],
    ime.program,
    ...ime.args,
  ]);
}

/** Reads phoneFactsCommand's answer; null when it does not have its four parts. */
export function parsePhoneFacts(text: string): PhoneFacts | null {
  const parts = text.split(new RegExp(`^${PART}\\r?$`, "m"));
  if (parts.length !== 4) return null;
  const [model = "", android = "", size = "", ime = ""] = parts;
  const word = (value: string) => value.trim() === "" ? null : value.trim();
  return {
    model: word(model),
    android: word(android),
    screen: parseWmSize(size),
    adbKeyboard: parseImeState(ime.replace(/^\r?\n/, ""))?.installed ?? null,
  };
}

/** One line for a person or a model: "Pixel 7, Android 14, screen 1080×2400, ADB Keyboard installed". */
export function describeFacts(facts: PhoneFacts): string {
  return [
    facts.model ?? "unknown model",
    `Android ${facts.android ?? "?"}`,
    facts.screen === null
      ? "screen size unknown"
      : `screen ${facts.screen.width}×${facts.screen.height}`,
    facts.adbKeyboard === null
      ? "ADB Keyboard unknown"
      : facts.adbKeyboard
      ? "ADB Keyboard installed (any text)"
      : "no ADB Keyboard (typing is ASCII only)",
  ].join(", ");
}
