// The one reader of uiautomator's dump: to /dev/tty on adb's own stream, or to a fresh file on a
// phone that refuses /dev/tty (learned once per phone); alone, or followed by focus and keyboard.

import { screenStateCommand, uiDumpCommand, uiDumpToTtyCommand } from "../adb/screen_commands.ts";
import type { PhoneScreen } from "./phone_screen.ts";
import { type DumpResult, extractDump } from "./ui_tree.ts";

/** One dump: what the phone printed, and the XML found in it (or why there is none). */
export interface DumpRead {
  dump: DumpResult;
  text: string;
}

export interface DumpReadOptions {
  /** `--compressed`: only views important for accessibility (an animated screen's retry). */
  compressed?: boolean;
  /**
   * The focused window and keyboard after the dump, in the same round trip (screenStateCommand),
   * for an action's [changed] section; the text then holds dumpsys's lines after the dump's.
   */
  windowState?: boolean;
  /** The call's cancel: stops the dump under way. */
  signal?: AbortSignal | undefined;
}

/**
 * Reads the UI tree in one round trip and one device command: `uiautomator dump /dev/tty`, the XML
 * on adb's own stream (uiDumpToTtyCommand). A phone whose uiautomator cannot write to /dev/tty
 * prints no XML; then the dump goes to a fresh path that is printed and removed in the same round
 * trip (uiDumpCommand), and the phone is remembered as such (PhoneScreen.refusedTty) so later
 * reads go there directly. uiautomator exits 0 when it fails, so the caller reads its "ERROR:"
 * line from the result (extractDump).
 */
export async function readDump(
  screen: PhoneScreen,
  options: DumpReadOptions = {},
): Promise<DumpRead> {
  let read = await dumpOnce(screen, options);
  if (!read.dump.ok && screen.dumpsToTty && ttyRefused(read.text)) {
    screen.refusedTty();
    read = await dumpOnce(screen, options);
  }
  return read;
}

/** One dump, to /dev/tty unless this phone refused it before. */
async function dumpOnce(screen: PhoneScreen, options: DumpReadOptions): Promise<DumpRead> {
  const { compressed = false, windowState = false, signal } = options;
  const path = screen.dumpsToTty ? undefined : freshDumpPath();
  const command = windowState
    ? screenStateCommand({ path, compressed })
    : path === undefined
    ? uiDumpToTtyCommand({ compressed })
    : uiDumpCommand(path, { compressed });
  // A file dump ends with the exit marker, which shows a reply cut short; a tty dump has none.
  const out = await screen.device.run(
    command,
    path === undefined ? { complete: dumpFinished, signal } : { signal },
  );
  return { dump: extractDump(out.text), text: out.text };
}

/**
 * How much of a /dev/tty dump's answer dumpFinished reads at each end. Its XML starts at the first
 * byte; its last words end it, followed in a screen-state read by the focused-window and keyboard
 * lines (a few hundred bytes; more on a phone with several displays, one focus line each). 4 KiB
 * holds those lines many times over and is read at once; decoding the whole answer (up to the
 * 16 MiB text cap) to find a tag near one end costs megabytes for nothing.
 */
const END_BYTES = 4096;

/**
 * Whether a /dev/tty dump's output ran to its end: uiautomator's last words are its "dumped to"
 * line or an ERROR line (stderr shares the stream under exec-out), and text that is no XML at all
 * (a shell's "uiautomator: not found") is an answer too. Nothing at all, or XML that stops before
 * that last line, is what `adb exec-out` returns with exit status 0 when the link drops
 * mid-transfer (docs/android.md, the adb client): the device layer then reconnects and reads again.
 */
export function dumpFinished(stdout: Uint8Array): boolean {
  if (stdout.length === 0) return false;
  const decoder = new TextDecoder();
  const tail = decoder.decode(stdout.subarray(Math.max(0, stdout.length - END_BYTES)));
  if (/dumped to:|ERROR:/i.test(tail)) return true;
  return !/<\?xml|<hierarchy/.test(decoder.decode(stdout.subarray(0, END_BYTES)));
}

/**
 * What a phone prints when its dumper cannot open /dev/tty: only the "dumped to: /dev/tty" line,
 * no XML and no ERROR (it logs the IOException, uiDumpToTtyCommand). Then the file path is used.
 */
export function ttyRefused(text: string): boolean {
  return /dumped to:\s*\/dev\/tty/i.test(text) && !text.includes("<hierarchy") &&
    !/^\s*ERROR:/m.test(text);
}

/** A fresh device path for one UI dump, so a failed dump can never be read as the current one. */
export function freshDumpPath(): string {
  return `/data/local/tmp/phone-eye-${crypto.randomUUID()}.xml`;
}
