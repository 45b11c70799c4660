// Reading the screen around an action: one round trip for focus, keyboard and tree; waiting until
// it settles (two equal reads in a row, bounded); finding an element by name on a fresh tree.

import { screenStateCommand } from "../adb/screen_commands.ts";
import { type Device, freshDumpPath, type ScreenReading } from "../adb/device.ts";
import { describeChanges, parseWindowState, sameScreen } from "./changes.ts";
import type { Clock } from "../core/clock.ts";
import { AgentError } from "../core/errors.ts";
import { describeCandidate, findElement, notFoundMessage } from "./find_element.ts";
import { readUiTree, ttyRefused } from "./screen.ts";
import { ToolInputError } from "../tools/tool.ts";
import { type DumpResult, extractDump, parseUiTree, type UiElement } from "./ui_tree.ts";

/** How long an action waits for the screen to settle before saying it did not (tool descriptions). */
export const SETTLE_BUDGET_MS = 3_000;
/**
 * The least time from the start of one read to the next. uiautomator's own idle wait paces a
 * phone (each dump returns once the screen has been quiet); this keeps a phone that answers at
 * once (an idle-state error) from being asked again in a tight loop.
 */
export const SETTLE_GAP_MS = 100;
/** How old the last tree may be to count as the screen before an action. */
export const BEFORE_MAX_AGE_MS = 30_000;

/** One read of the screen: the focused window and keyboard, and the dump as uiautomator gave it. */
export interface ScreenRead {
  focus: string | undefined;
  focusedApp: string | undefined;
  keyboard: boolean | undefined;
  dump: DumpResult;
}

/** Whether a dump through /dev/tty ran to its end (screen.ts's dumpFinished, with dumpsys first). */
function stateFinished(stdout: Uint8Array): boolean {
  if (stdout.length === 0) return false;
  const text = new TextDecoder().decode(stdout.subarray(Math.max(0, stdout.length - 4096)));
  if (/dumped to:|ERROR:/i.test(text)) return true;
  return !/<\?xml|<hierarchy/.test(new TextDecoder().decode(stdout));
}

/** The focused window, the keyboard and the UI tree, in one adb round trip (screenStateCommand). */
export async function readScreenState(device: Device, action: string): Promise<ScreenRead> {
  const once = async () => {
    const out = device.quirks.ttyDumpRefused
      ? await device.run(screenStateCommand(freshDumpPath()), { action })
      : await device.run(screenStateCommand(), { action, complete: stateFinished });
    return out.text;
  };
  let text = await once();
  let dump = extractDump(text);
  if (!dump.ok && !device.quirks.ttyDumpRefused && ttyRefused(text)) {
    device.quirks.ttyDumpRefused = true;
    text = await once();
    dump = extractDump(text);
  }
  return { ...parseWindowState(text), dump };
}

/** Keeps `elements` as the phone's last seen screen, for the next action's "before". */
export function remember(
  device: Device,
  clock: Clock,
  elements: UiElement[],
  window?: { focus: string | undefined; keyboard: boolean | undefined },
): ScreenReading {
  const reading = {
    elements,
    focus: window?.focus,
    keyboard: window?.keyboard,
    at: clock.now(),
  };
  device.seen.last = reading;
  return reading;
}

/**
 * The screen before an action: the last one read when it is recent, else undefined. Taken, not
 * copied: once the action runs, that screen is no longer the phone's.
 */
export function takeBefore(device: Device, clock: Clock): ScreenReading | undefined {
  const last = device.seen.last;
  device.seen.last = undefined;
  return last !== undefined && clock.now() - last.at <= BEFORE_MAX_AGE_MS ? last : undefined;
}

export interface Settled {
  /** True when two reads in a row showed the same screen within the budget. */
  settled: boolean;
  /** The latest screen read with a tree, if any. */
  reading: ScreenReading | undefined;
  /** Why no tree was read, or why the last read had none. */
  failure: string | undefined;
}

/** `work`'s value, or "late" once `ms` have passed; the work itself runs on (adb ends it). */
export function within<T>(work: Promise<T>, ms: number, clock: Clock): Promise<T | "late"> {
  return new Promise((resolve, reject) => {
    const cancel = clock.setTimer(ms, () => resolve("late"));
    work.then(
      (value) => (cancel(), resolve(value)),
      (error) => (cancel(), reject(error)),
    );
  });
}

/**
 * Reads the screen until two reads in a row are equal (focus, keyboard, elements), within
 * SETTLE_BUDGET_MS. A dump that says "could not get idle state" is a screen still moving; a dump
 * failing otherwise (no tree on this screen) ends the wait at once.
 */
export async function settleScreen(
  device: Device,
  clock: Clock,
  signal: AbortSignal,
  action: string,
): Promise<Settled> {
  const deadline = clock.now() + SETTLE_BUDGET_MS;
  let previous: ScreenReading | undefined;
  let latest: ScreenReading | undefined;
  let failure: string | undefined;
  while (!signal.aborted) {
    const started = clock.now();
    if (started >= deadline) break;
    const read = await within(readScreenState(device, action), deadline - started, clock);
    if (read === "late") break;
    if (read.dump.ok) {
      const reading = remember(device, clock, parseUiTree(read.dump.xml), read);
      latest = reading;
      failure = undefined;
      if (previous !== undefined && sameScreen(previous, reading)) {
        return { settled: true, reading, failure };
      }
      previous = reading;
    } else {
      previous = undefined;
      failure = read.dump.reason;
      if (!read.dump.idleState) return { settled: false, reading: latest, failure };
    }
    const gap = Math.min(started + SETTLE_GAP_MS, deadline) - clock.now();
    if (gap > 0) await clock.sleep(gap, signal).catch(() => {});
  }
  return { settled: false, reading: latest, failure };
}

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;

/**
 * The [changed] section for an action whose screen before was `before`: waits for the screen to
 * settle, then says what changed, or that it did not settle and what is there now. A failure to
 * read is said in the section: the action itself has happened.
 */
export async function changedSection(
  device: Device,
  clock: Clock,
  signal: AbortSignal,
  before: ScreenReading | undefined,
): Promise<string> {
  let result: Settled;
  try {
    result = await settleScreen(device, clock, signal, "read the screen after acting");
  } catch (error) {
    if (!(error instanceof AgentError)) throw error;
    return `[changed]\ncould not read the screen afterwards: ${error.message}`;
  }
  const { settled, reading, failure } = result;
  const lines: string[] = [];
  if (!settled) {
    lines.push(
      reading === undefined
        ? `the screen did not settle within ${seconds(SETTLE_BUDGET_MS)} and gave no UI tree${
          failure ? ` (uiautomator: "${failure}")` : ""
        }; look again in a moment`
        : `the screen did not settle within ${seconds(SETTLE_BUDGET_MS)}; what it shows now:`,
    );
  }
  if (reading !== undefined) lines.push(...describeChanges(before, reading));
  return ["[changed]", ...lines].join("\n");
}

/**
 * The element `name` names on a fresh tree (remembered as the screen before the action), or a
 * refusal listing the candidates or the closest labels. `prefer` breaks a tie (findElement).
 */
export async function locateElement(
  device: Device,
  clock: Clock,
  name: string,
  action: string,
  prefer?: (e: UiElement) => boolean,
): Promise<{ element: UiElement; described: string; before: ScreenReading }> {
  const elements = await readUiTree(device, `find "${name}" on screen`, clock);
  const before = remember(device, clock, elements);
  const found = findElement(elements, name, prefer);
  if (found.kind !== "one") throw new ToolInputError(notFoundMessage(action, name, found));
  // The action is about to change the screen: this tree is "before" now, not the phone's last.
  device.seen.last = undefined;
  return { element: found.element, described: describeCandidate(found.element), before };
}
