// The exit-status marker protocol for text commands: wraps a command so the phone prints its
// status last, and reads that status back (or finds the reply cut short). Pure: strings and bytes.

import { type DeviceCommand, deviceShellLine } from "./commands.ts";

/**
 * Printed after every text command with its exit status. `adb shell` cannot be trusted with that
 * status: without the shell protocol (Android 7+), adb 29 exits 0 whatever the command did
 * (RemoteShell "returns the remote exit code if |use_shell_protocol| is true, 0 otherwise",
 * https://github.com/aosp-mirror/platform_system_core/blob/589da1a0e0220d9443dbdd03e9fb2a659bfd2f8c/adb/client/commandline.cpp#L587,
 * tag platform-tools-29.0.6); with it, the status stays 0 unless an exit packet arrives
 * (read_and_dump, same file #L261 and #L295), so a link that dies mid-command also reads as 0 with
 * empty output. The marker's absence is what shows such a reply was cut short.
 */
export const EXIT_MARKER = "__phone_eye_exit=";

/** The command as sent: text commands get the exit marker appended; exec-out passes through. */
export function withExitMarker(command: DeviceCommand): string {
  const line = deviceShellLine(command);
  return command.service === "shell" ? `${line}; echo "${EXIT_MARKER}$?"` : line;
}

/**
 * Splits a text command's output into what the command printed and its exit status; null when
 * the marker is missing, i.e. the reply was cut short. The marker must be the last line.
 */
export function splitExitMarker(stdout: string): { output: string; status: number } | null {
  // No line start is required: output without a final newline (cat of a dump) runs into it.
  const match = new RegExp(`${EXIT_MARKER}(\\d+)\\r?\\n?$`).exec(stdout);
  if (!match) return null;
  return { output: stdout.slice(0, match.index), status: Number(match[1]) };
}

/** splitExitMarker on the bytes adb returned: the device command's own stdout and status. */
export function readExitMarker(stdout: Uint8Array): { stdout: Uint8Array; status: number } | null {
  const split = splitExitMarker(new TextDecoder().decode(stdout));
  if (split === null) return null;
  return { stdout: new TextEncoder().encode(split.output), status: split.status };
}
