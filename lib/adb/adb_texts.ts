// adb's own error texts, matched in order, with the words phone-eye gives each one; and the hints
// (install adb, connect, accept the prompt) the classifier's messages end with. Pure.
//
// adb's texts are cited at tag platform-tools-29.0.6 (system/core 589da1a0), the adb Debian ships;
// docs/android.md (the adb client) records how adb 34+ differs.

import {
  type AdbCallContext,
  type AdbErrorCode,
  connectHint,
  type DeviceTrouble,
  exactSerialFix,
} from "./errors.ts";

/** Per-OS install hint, shown when adb is not on PATH. */
export function installHint(os: string): string {
  switch (os) {
    case "darwin":
      return "install it with `brew install android-platform-tools`";
    case "windows":
      return "install it with `winget install Google.PlatformTools` (or download platform-tools from developer.android.com) and add it to PATH";
    default:
      return "install it with `sudo apt-get install adb` (Debian/Ubuntu), `sudo dnf install android-tools` (Fedora), or download platform-tools from developer.android.com";
  }
}

export function where(serial: string | undefined): string {
  return serial === undefined ? "" : ` at ${serial}`;
}

export { connectHint };

export function unauthorizedParts(
  ctx: { serial: string | undefined },
): Pick<DeviceTrouble, "what" | "fix" | "uncertain"> {
  return {
    what: `the phone${where(ctx.serial)} has not authorized this computer`,
    fix: 'unlock it and accept the "Allow USB debugging?" prompt, then call the tool again',
    uncertain: false,
  };
}

/**
 * adb's own error texts, in the order they are checked. adb 29 prints each as "error: <text>" on
 * stderr and exits 1 (adb 34 as "adb: <text>" for `adb shell`, "error: <text>" for exec-out and
 * "closed", and says "more than one device with serial X" when -s matches two devices; both print
 * the unauthorized text on four lines: docs/android.md, the adb client, and tests/adb/errors_test.ts) (RemoteShell, https://github.com/aosp-mirror/platform_system_core/blob/589da1a0e0220d9443dbdd03e9fb2a659bfd2f8c/adb/client/commandline.cpp#L604-L608):
 * - "more than one device/emulator", "device 'X' not found", "no devices/emulators found",
 *   "device still connecting", "device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is …",
 *   "device offline": acquire_one_transport,
 *   https://github.com/aosp-mirror/platform_system_core/blob/589da1a0e0220d9443dbdd03e9fb2a659bfd2f8c/adb/transport.cpp#L820-L922
 * - "closed": the server's answer when the device's socket closes before it replies (the link was
 *   cut while sending), local_socket_close_notify,
 *   https://github.com/aosp-mirror/platform_system_core/blob/589da1a0e0220d9443dbdd03e9fb2a659bfd2f8c/adb/sockets.cpp#L540
 * - "protocol fault (…)": adb_status,
 *   https://github.com/aosp-mirror/platform_system_core/blob/589da1a0e0220d9443dbdd03e9fb2a659bfd2f8c/adb/client/adb_client.cpp#L134
 * "connection reset" and "device disconnected" have no adb 29 source; they stay as a net for
 * other versions.
 */
export const KNOWN_TEXTS: ReadonlyArray<{
  pattern: RegExp;
  code: AdbErrorCode;
  /** The message's parts; a device error keeps them, so what adb sees can be added later. */
  parts: (
    ctx: AdbCallContext,
  ) => Pick<DeviceTrouble, "what" | "fix" | "uncertain" | "advice">;
  device: boolean;
  missing?: boolean;
}> = [
  {
    pattern: /more than one (device|emulator)/i,
    code: "MULTIPLE_DEVICES",
    device: true,
    // No serial: the call named no phone (adb's default device, nothing configured), so the agent
    // picks one with `device`; the list of what adb sees is added to the words (link.ts).
    parts: (ctx) =>
      ctx.serial === undefined
        ? {
          what: "more than one Android device is attached and no serial was chosen",
          fix: "give device with the serial of the one to drive (phone_devices lists them)",
          uncertain: false,
        }
        : {
          what:
            `more than one Android device answers to "${ctx.serial}" (adb also matches -s against model:, product: and device: names, and a phone can be attached twice, by USB and Wi-Fi)`,
          fix: exactSerialFix(undefined),
          uncertain: false,
          advice: "exact-serial",
        },
  },
  {
    // "device still authorizing": the key exchange has started but the phone has not answered
    // the prompt yet (acquire_one_transport, same file).
    pattern: /device unauthorized|device still authorizing/i,
    code: "UNAUTHORIZED",
    device: true,
    parts: unauthorizedParts,
  },
  {
    pattern:
      /no devices\/emulators found|device '[^']*' not found|device offline|device still connecting|no devices found|device not found/i,
    code: "NO_DEVICE",
    device: true,
    missing: true,
    parts: (ctx) => ({
      what: `no Android device reachable${where(ctx.serial)}`,
      fix: connectHint(ctx.serial),
      uncertain: false,
      advice: "connect",
    }),
  },
  {
    // adb 34.0.5 still says "error: closed" for `adb shell` too; "adb: " is accepted in case a
    // later client moves it to the new prefix like the others.
    pattern: /^(adb|error): (closed|protocol fault|connection reset)|\bdevice disconnected\b/im,
    code: "TRANSPORT",
    device: false,
    parts: (ctx) => ({
      what: `the link to the phone${where(ctx.serial)} broke during the call`,
      fix: connectHint(ctx.serial),
      uncertain: ctx.acts,
    }),
  },
];

/** The command as the agent could type it, shortened for messages. */
export function shown(command: string): string {
  return `"adb ${command.length > 80 ? `${command.slice(0, 79)}…` : command}"`;
}
