// Reads `adb devices`: what adb sees, so a device error's message names every attached serial and
// its state (a mistyped ANDROID_SERIAL is plain to see). Pure; link.ts runs the command.

import type { AttachedDevice } from "./errors.ts";
import { excerpt } from "../core/text.ts";

/**
 * Reads `adb devices`: a header line ("List of devices attached"), then one "serial<TAB>state"
 * line per device (adb's list_transports, long form off). Returns null when the header is missing:
 * then the text is not a list, and nothing is better than a wrong one.
 */
export function parseAdbDevices(text: string): AttachedDevice[] | null {
  const lines = text.split(/\r?\n/);
  const header = lines.findIndex((line) => line.trim() === "List of devices attached");
  if (header < 0) return null;
  // Printable ASCII only, since the list goes into a message for the agent. The state is the rest
  // of the line: a USB phone the user may not open reads "no permissions (…udev rules…); see URL".
  return lines.slice(header + 1)
    .map((line) => /^([\x21-\x7e]{1,100})\s+([\x20-\x7e]+)$/.exec(line.trim()))
    .filter((match) => match !== null)
    .map((match) => ({ serial: match[1]!, state: excerpt(match[2]!, 80) }));
}
