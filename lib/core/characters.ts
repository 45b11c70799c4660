// The one check for control characters and for text beyond printable ASCII in free-form arguments,
// and the one way a character is named in messages: its name where it has one, then U+XXXX.

/** What scanCharacters found: the first character of each class, or undefined when none. */
export interface CharacterScan {
  /** The first control character, U+0000–U+001F or U+007F. */
  control: string | undefined;
  /**
   * The first character beyond printable ASCII (above U+007E), which `input text` cannot type
   * (docs/android.md, input). A lone surrogate counts as one.
   */
  beyondAscii: string | undefined;
}

/**
 * Finds the first control character and the first character beyond printable ASCII in `value`, in
 * one pass. No free-form argument needs a control character, and a NUL cannot even be passed to a
 * process (spawn refuses it).
 */
export function scanCharacters(value: string): CharacterScan {
  let control: string | undefined;
  let beyondAscii: string | undefined;
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (control === undefined && (code < 0x20 || code === 0x7f)) control = char;
    else if (beyondAscii === undefined && code > 0x7e && code !== 0x7f) beyondAscii = char;
    if (control !== undefined && beyondAscii !== undefined) break;
  }
  return { control, beyondAscii };
}

/** Names of the control characters an agent is likely to send, as a message shows them. */
const CONTROL_NAMES: Readonly<Record<number, string>> = {
  0x00: "NUL",
  0x09: "tab",
  0x0a: "newline",
  0x0d: "carriage return",
  0x1b: "escape",
  0x7f: "DEL",
};

/**
 * A character as every message names it: "newline, U+000A" for a control character with a common
 * name, otherwise "U+00E9" (a message shows a printable one quoted before it).
 */
export function characterName(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  const point = `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  const name = CONTROL_NAMES[code];
  return name === undefined ? point : `${name}, ${point}`;
}
