// Every fault the simulated phone can inject, in one place: the controls tests call (SimFaults),
// the one state they arm (FaultState), and the rules that apply that state to a command.
//
// | fault             | where it acts                        | what adb 29's client then shows     |
// | ----------------- | ------------------------------------ | ----------------------------------- |
// | dropNow           | every transport, at once             | `error: device offline`             |
// | dropAfterNext     | one command: after it ran, or before | exit 0 and no output; or, before    |
// |                   | its OPEN is acknowledged             | the ack, `error: closed`            |
// | refuseConnections | the listener, for a while            | `failed to connect … refused`       |
// | hang              | matching commands: no answer         | nothing, until adb gives up         |
// | latency           | before a command runs                | a slow answer                       |
// | emptyPng          | `screencap -p` (file for the script) | an empty or header-only PNG         |
// | pngTextChunk      | `screencap -p` (file for the script) | a PNG with a tEXt chunk of N bytes  |
// | blackScreen       | the rendered pixels                  | an all-black frame                  |
// | idleStateErrors   | `uiautomator dump` (files)           | `ERROR: could not get idle state.`  |
// |                   |                                      | (or `ERROR: null root node …`)      |
// | truncatePng       | the stream carrying `screencap -p`   | half a PNG, exit 0                  |
// | imeUnknown        | `ime enable/disable/set` (file)      | `Unknown input method X cannot be … |
// |                   |                                      | for user #0` on stderr, exit 0      |
// | ttyDumpRefused    | `uiautomator dump /dev/tty` (file)   | only the "dumped to" line, no XML   |
//
// The client's answers are adb 29.0.6's (docs/android.md, the adb client).
// Not a fault but screen state: a secure window (setScreen({ secureWindow: true })), which each
// Android version's screencap answers in its own way (android.ts).

import { crc32 } from "node:zlib";
import type { ToolCall } from "./tools.ts";

export interface SimFaults {
  /** Closes every adb transport socket now (adb then shows the device offline). */
  dropNow(): void;
  /** Lets the next command that runs `tool` (or whose text matches the RegExp) execute, then
   * closes the transport before sending its output or exit status (adb 29 then exits 0 with
   * no output). With beforeOpenAck the stream is not even acknowledged first (adb then says
   * `error: closed`); a tool name is then matched as a word of the command text. One-shot. */
  dropAfterNext(match: string | RegExp, opts?: { beforeOpenAck?: boolean }): void;
  /** Closes the listener for `ms` (new connections get "Connection refused"), then reopens it. */
  refuseConnections(ms: number): void;
  /** Commands matching `pattern` never answer (until adb gives up or the sim closes). They are
   * recorded but not run, unless `execute` (then they run and their output is withheld). */
  hang(pattern: RegExp, opts?: { execute?: boolean }): void;
  /** Delays every command (or those mentioning `tool` as a word) by `ms` before it runs. */
  latency(ms: number, tool?: string): void;
  /** `screencap -p` yields an empty PNG (0 bytes, or with headerOnly signature+IHDR+IEND and no
   * pixel data); raw `screencap` still works. */
  emptyPng(on: boolean, opts?: { headerOnly?: boolean }): void;
  /** `screencap -p` yields the screen's PNG with a tEXt chunk of `bytes` bytes after its IHDR,
   * as a phone whose encoder attaches metadata would (a valid PNG of any size); 0 removes it. */
  pngTextChunk(bytes: number): void;
  /** Every frame is black (a secure window); the UI tree is unaffected. */
  blackScreen(on: boolean): void;
  /** The next `n` dumps print `ERROR: could not get idle state.` (or `message`), exit 0 and
   * leave any earlier dump file alone. `--compressed` dumps pass unless evenCompressed. */
  idleStateErrors(n: number, opts?: { evenCompressed?: boolean; message?: string }): void;
  /** Output of `screencap -p` to stdout is cut at half: by closing the transport (default, as
   * a dying Wi-Fi link does) or, with dropLink false, by closing just that stream. */
  truncatePng(on: boolean, opts?: { dropLink?: boolean }): void;
  /** `ime enable/disable/set` answer as for an id the phone does not know (exit 0, the refusal
   * on stderr only, docs/android.md, ADB Keyboard and ime), for these ids: as when ADB Keyboard is
   * uninstalled between phone-eye's look at the list and its switch. Empty list: off. */
  imeUnknown(ids: readonly string[]): void;
  /** `uiautomator dump /dev/tty` writes no XML, as on a ROM where the dumper cannot open
   * /dev/tty: AOSP's dumper only logs the IOException and still prints "UI hierchary dumped to:
   * /dev/tty" (AccessibilityNodeInfoDumper.dumpWindowToFile). Dumps to a file still work. */
  ttyDumpRefused(on: boolean): void;
  /** Removes every fault. */
  clear(): void;
}

/** What is armed now. dropNow and refuseConnections act at once and leave nothing here. */
export interface FaultState {
  /** One-shot link drops, matched by tool name (or command text) or by RegExp on the command. */
  dropAfter: { match: string | RegExp; beforeOpenAck: boolean }[];
  hangs: { pattern: RegExp; execute: boolean }[];
  /** Delay in ms per tool name; the `null` key delays every command. */
  latency: Map<string | null, number>;
  emptyPng: "zero" | "header" | null;
  /** The tEXt chunk's body size (pngTextChunk), 0 for none. */
  pngText: number;
  black: boolean;
  truncatePng: { dropLink: boolean } | null;
  ttyRefused: boolean;
  /** Failing dumps to come. The fake uiautomator counts them down in its own file. */
  idle: { count: number; evenCompressed: boolean; message: string } | null;
  /** Input-method ids the fake `ime` treats as unknown. */
  imeUnknown: string[];
}

export function noFaults(): FaultState {
  return {
    dropAfter: [],
    hangs: [],
    latency: new Map(),
    emptyPng: null,
    pngText: 0,
    black: false,
    truncatePng: null,
    ttyRefused: false,
    idle: null,
    imeUnknown: [],
  };
}

/**
 * What uiautomator prints when the screen does not settle within 10 s (DumpCommand.run,
 * https://github.com/aosp-mirror/platform_frameworks_base/blob/4fecab570da64a1956352aedf1b3245d3ba26030/cmds/uiautomator/cmds/uiautomator/src/com/android/commands/uiautomator/DumpCommand.java).
 */
export const IDLE_STATE_ERROR = "ERROR: could not get idle state.";

/**
 * What uiautomator prints when the accessibility bridge has no active window (same file): pass
 * it as idleStateErrors' `message`. It also exits 0 and writes no file.
 */
export const NULL_ROOT_ERROR = "ERROR: null root node returned by UiTestAutomationBridge.";

/**
 * The faults the fake tools apply themselves, and the files in the sim's state folder they read
 * (sim/tools/screencap.sh, uiautomator.sh and ime.sh): name → content, null = no file.
 */
const SCRIPT_FAULTS = {
  emptyPng: (s: FaultState) => ({ fault_empty_png: s.emptyPng }),
  pngText: (s: FaultState) => ({ fault_png_chunk: s.pngText === 0 ? null : textChunk(s.pngText) }),
  ttyRefused: (s: FaultState) => ({ fault_tty_refused: s.ttyRefused ? "1" : null }),
  idle: (s: FaultState) => ({
    fault_idle_errors: s.idle === null ? null : String(s.idle.count),
    fault_idle_even_compressed: s.idle?.evenCompressed ? "1" : null,
    fault_idle_message: s.idle === null ? null : `${s.idle.message}\n`,
  }),
  imeUnknown: (s: FaultState) => ({
    fault_ime_unknown: s.imeUnknown.length === 0 ? null : `${s.imeUnknown.join("\n")}\n`,
  }),
} as const;

/** A whole tEXt chunk (length, type, body, CRC) whose body is a "Comment" of `bytes` bytes. */
function textChunk(bytes: number): Uint8Array {
  const out = new Uint8Array(12 + bytes).fill(0x61); // "a"
  const view = new DataView(out.buffer);
  view.setUint32(0, bytes);
  out.set(new TextEncoder().encode("tEXtComment\0").subarray(0, 4 + bytes), 4);
  view.setUint32(8 + bytes, crc32(out.subarray(4, 8 + bytes)) >>> 0);
  return out;
}

/** The side effects the controls need from the sim that owns `state`. */
export interface FaultEffects {
  /** Drops every live transport. */
  dropAll(): void;
  /** Closes the listener for `ms` (replacing any earlier refusal), then reopens it. */
  refuse(ms: number): void;
  /** Ends a refusal early, reopening the listener. */
  stopRefusing(): void;
  /** Writes (or with null, removes) one file in the sim's state folder. */
  writeStateFile(name: string, content: string | Uint8Array | null): void;
}

/** The SimFaults controls over `state`; they mutate it in place. */
export function faultControls(state: FaultState, effects: FaultEffects): SimFaults {
  const syncScript = (kind: keyof typeof SCRIPT_FAULTS) => {
    for (const [name, content] of Object.entries(SCRIPT_FAULTS[kind](state))) {
      effects.writeStateFile(name, content);
    }
  };
  return {
    dropNow: () => effects.dropAll(),
    dropAfterNext: (match, opts) => {
      state.dropAfter.push({ match, beforeOpenAck: opts?.beforeOpenAck ?? false });
    },
    refuseConnections: (ms) => effects.refuse(ms),
    hang: (pattern, opts) => {
      state.hangs.push({ pattern, execute: opts?.execute ?? false });
    },
    latency: (ms, tool) => {
      state.latency.set(tool ?? null, ms);
    },
    emptyPng: (on, opts) => {
      state.emptyPng = on ? (opts?.headerOnly ? "header" : "zero") : null;
      syncScript("emptyPng");
    },
    pngTextChunk: (bytes) => {
      state.pngText = Math.max(0, Math.floor(bytes));
      syncScript("pngText");
    },
    blackScreen: (on) => {
      state.black = on;
    },
    idleStateErrors: (n, opts) => {
      state.idle = {
        count: Math.max(0, Math.floor(n)),
        evenCompressed: opts?.evenCompressed ?? false,
        message: opts?.message ?? IDLE_STATE_ERROR,
      };
      syncScript("idle");
    },
    truncatePng: (on, opts) => {
      state.truncatePng = on ? { dropLink: opts?.dropLink ?? true } : null;
    },
    imeUnknown: (ids) => {
      state.imeUnknown = [...ids];
      syncScript("imeUnknown");
    },
    ttyDumpRefused: (on) => {
      state.ttyRefused = on;
      syncScript("ttyRefused");
    },
    clear: () => {
      Object.assign(state, noFaults());
      for (const kind of Object.keys(SCRIPT_FAULTS) as (keyof typeof SCRIPT_FAULTS)[]) {
        syncScript(kind);
      }
      effects.stopRefusing();
    },
  };
}

// ---- how the armed state applies to one command ----

/** Whether `command` matches a drop armed by tool name (as a word) or RegExp. */
function matchesCommand(match: string | RegExp, command: string): boolean {
  return typeof match === "string" ? mentions(command, match) : match.test(command);
}

/** Takes (one-shot) a drop armed to cut the link before `command`'s OPEN is acknowledged. */
export function takeEarlyDrop(state: FaultState, command: string): boolean {
  const i = state.dropAfter.findIndex((d) => d.beforeOpenAck && matchesCommand(d.match, command));
  if (i < 0) return false;
  state.dropAfter.splice(i, 1);
  return true;
}

/** The hang armed for `command`, if any. */
export function hangFor(
  state: FaultState,
  command: string,
): { execute: boolean } | undefined {
  return state.hangs.find((h) => h.pattern.test(command));
}

/** Milliseconds to wait before `command` runs: the longest delay that applies to it. */
export function delayFor(state: FaultState, command: string): number {
  let delay = state.latency.get(null) ?? 0;
  for (const [tool, ms] of state.latency) {
    if (tool !== null && mentions(command, tool)) delay = Math.max(delay, ms);
  }
  return delay;
}

/**
 * Takes (one-shot) a drop armed for after `command` ran: by tool name, matched against the
 * tools it really called (`calls`), or by RegExp on its text.
 */
export function takeLateDrop(
  state: FaultState,
  command: string,
  calls: readonly ToolCall[],
): boolean {
  const i = state.dropAfter.findIndex(({ match }) =>
    typeof match === "string" ? calls.some((c) => c.tool === match) : match.test(command)
  );
  if (i < 0) return false;
  state.dropAfter.splice(i, 1);
  return true;
}

/** The cut to apply to this command's output: only `screencap -p` printing to stdout is cut. */
export function truncationFor(
  state: FaultState,
  calls: readonly ToolCall[],
): { dropLink: boolean } | null {
  const pngToStdout = calls.some((c) =>
    c.tool === "screencap" && c.argv.includes("-p") &&
    !c.argv.some((a) => !a.startsWith("-") && !/^\d+$/.test(a))
  );
  return pngToStdout ? state.truncatePng : null;
}

/** Whether `tool` appears in the command as a word (not inside a path or another name). */
export function mentions(command: string, tool: string): boolean {
  const escaped = tool.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(^|[^\\w./-])${escaped}($|[^\\w./-])`).test(command);
}
