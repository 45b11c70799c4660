// Runs the phone's `input` tool for the verbs that drive the screen (tap, swipe, type, key) and
// reads its failure: one place for "run this input command and say what went wrong".

import type { DeviceCommand } from "./commands.ts";
import { inputFailure } from "./output.ts";
import type { Device } from "./device.ts";
import { AdbError } from "./errors.ts";

/**
 * Runs an `input` command, throwing COMMAND_FAILED with the line that tells what went wrong. A
 * non-zero status is already an AdbError from the device layer; `input` can also fail with exit 0
 * and only a message (inputFailure), which is read here.
 */
export async function runInput(
  device: Device,
  command: DeviceCommand,
  signal?: AbortSignal,
): Promise<void> {
  const out = await device.run(command, { signal });
  const failure = inputFailure(out.text);
  if (failure) throw new AdbError("COMMAND_FAILED", { what: `the phone said: ${failure}` });
}
