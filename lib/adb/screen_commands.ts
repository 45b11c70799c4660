// The commands that read the screen: the screenshot (PNG or raw frame) and the UI dump, to
// /dev/tty or to a file, alone or followed by the focused window and keyboard (screen_state).
//
// Android's shell tools are cited at the frameworks/base commits linked.

import {
  type Arg,
  type DeviceCommand,
  deviceCommand,
  quoted,
  shellCommand,
  syntax,
} from "./commands.ts";

export const screencapPngCommand = (): DeviceCommand =>
  deviceCommand("exec-out", "screencap", ["-p"], "image");
/**
 * Raw RGBA frame, encoded on the host: the way round builds whose `screencap -p` returns empty PNGs
 * (a vendor quirk, docs/android.md, reported OEM quirks; no AOSP source shows it).
 */
export const screencapRawCommand = (): DeviceCommand =>
  deviceCommand("exec-out", "screencap", [], "image");

/** How uiautomator walks the tree. */
export interface DumpOptions {
  /**
   * `--compressed`: only views important for accessibility (the retry on an animated screen,
   * lib/screen/screen.ts's readUiTree).
   */
  compressed?: boolean;
}

/**
 * The UI tree in one device command and no file: uiautomator writes the XML to /dev/tty, which is
 * the stream adb reads, then prints "UI hierchary dumped to: /dev/tty" (docs/android.md) right after
 * it, with no newline between. This is how the most-used peer, mobile-mcp, reads the tree. With no
 * file there is no earlier dump to read back by mistake and nothing to remove. Through exec-out,
 * as the peer sends it: no exit-status marker to print and read (uiautomator exits 0 whatever
 * happened), and its ERROR lines arrive on the same stream; lib/screen/ui_dump.ts checks the output
 * ran to its "dumped to" or ERROR line instead. Where /dev/tty
 * cannot be opened the dumper only logs the IOException (AccessibilityNodeInfoDumper.
 * dumpWindowToFile,
 * https://github.com/aosp-mirror/platform_frameworks_base/blob/4fecab570da64a1956352aedf1b3245d3ba26030/cmds/uiautomator/library/core-src/com/android/uiautomator/core/AccessibilityNodeInfoDumper.java)
 * and still prints the "dumped to" line: no XML in the output is the sign to use uiDumpCommand.
 */
export function uiDumpToTtyCommand(options: DumpOptions = {}): DeviceCommand {
  const { compressed = false } = options;
  return deviceCommand("exec-out", "uiautomator", [
    "dump",
    ...(compressed ? ["--compressed"] : []),
    "/dev/tty",
  ]);
}

/**
 * The fallback for a ROM that refuses /dev/tty (uiDumpToTtyCommand): dumps the UI tree to a
 * fresh path and prints it in the same round trip. A failed dump leaves
 * the previous file in place (DumpCommand.run prints "ERROR: …" and returns before writing,
 * https://github.com/aosp-mirror/platform_frameworks_base/blob/4fecab570da64a1956352aedf1b3245d3ba26030/cmds/uiautomator/cmds/uiautomator/src/com/android/commands/uiautomator/DumpCommand.java;
 * the command exits 0 either way, docs/android.md), so a reused path could show a stale screen: the
 * path is new per call and removed afterwards.
 * uiautomator's own output is kept (not sent to /dev/null) so its "ERROR:" lines can be read.
 */
export function uiDumpCommand(path: string, options: DumpOptions = {}): DeviceCommand {
  const { compressed = false } = options;
  const p = quoted(path);
  return shellCommand("uiautomator", [
    "dump",
    ...(compressed ? ["--compressed"] : []),
    p,
    syntax(" && "),
    "cat",
    p,
    syntax("; "),
    "rm",
    "-f",
    p,
  ]);
}

/**
 * What an action changed, in one round trip (settle.ts): the UI tree as uiDumpToTtyCommand reads
 * it (or, with `path`, as uiDumpCommand does for a phone that refuses /dev/tty), then the focused
 * window and app (`dumpsys window`'s mCurrentFocus and mFocusedApp lines) and whether the soft
 * keyboard is shown (`dumpsys input_method`'s mInputShown token: one line on Android 10-12, its own
 * line later). The dump comes first because it waits for the screen to be idle before it reads
 * (DumpCommand's waitForIdle): focus and keyboard read after it describe the same settled screen,
 * where read before it they could describe the screen the wait began on. Every step only reads,
 * so it is named by its first program and replayable.
 */
export function screenStateCommand(
  options: DumpOptions & { path?: string | undefined } = {},
): DeviceCommand {
  const { path, ...dumpOptions } = options;
  const dumpsys: Arg[] = [
    syntax("; "),
    "dumpsys",
    "window",
    syntax(" | "),
    "grep",
    "-E",
    quoted("mCurrentFocus|mFocusedApp"),
    syntax("; "),
    "dumpsys",
    "input_method",
    syntax(" | "),
    "grep",
    "-o",
    quoted("mInputShown=[a-z]*"),
  ];
  if (path === undefined) {
    const tty = uiDumpToTtyCommand(dumpOptions);
    return deviceCommand("exec-out", tty.program, [...tty.args, ...dumpsys]);
  }
  // uiDumpCommand's steps with the window state before its `rm`, which stays last: the command's
  // status is the last step's, and grep's is 1 when a line is missing.
  const p = quoted(path);
  const compressed = dumpOptions.compressed ? ["--compressed"] : [];
  return shellCommand("uiautomator", [
    "dump",
    ...compressed,
    p,
    syntax(" && "),
    "cat",
    p,
    ...dumpsys,
    syntax("; "),
    "rm",
    "-f",
    p,
  ]);
}
