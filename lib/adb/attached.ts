// What adb sees, read with one `adb devices` on the failure path of a device error, so the message
// names every attached serial and its state and a mistyped ANDROID_SERIAL is plain to see.

import { AdbError, type AttachedDevice, withAttached } from "./errors.ts";
import type { RunAdb } from "./runner.ts";
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

/** One `adb devices`, bounded by the adb timeout; null when it failed or said something else. */
export async function listAttached(
  run: RunAdb,
  timeoutMs: number,
): Promise<AttachedDevice[] | null> {
  const outcome = await run(["devices"], { timeoutMs, output: "text" });
  if (outcome.kind !== "exited" || outcome.code !== 0) return null;
  return parseAdbDevices(new TextDecoder().decode(outcome.stdout));
}

/**
 * Passes `call`'s result on; a device error (one carrying its DeviceTrouble) is written again
 * naming what adb sees. When `adb devices` itself fails, the first error goes on unchanged.
 */
export async function namingAttached<T>(
  call: Promise<T>,
  run: RunAdb,
  timeoutMs: number,
): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (!(error instanceof AdbError) || error.trouble === undefined) throw error;
    const attached = await listAttached(run, timeoutMs);
    throw attached === null ? error : withAttached(error, attached);
  }
}
