// Waiting for the screen to settle after an action (two equal reads in a row, bounded), and the
// [changed] section saying what it changed; each read takes focus, keyboard and tree at once.

import { describeChanges, parseWindowState, sameScreen } from "./changes.ts";
import type { Clock } from "../core/clock.ts";
import type { PhoneScreen, ScreenReading } from "./phone_screen.ts";
import { readDump } from "./ui_dump.ts";
import { type DumpResult, parseUiTree } from "./ui_tree.ts";

/** How long an action waits for the screen to settle before saying it did not (tool descriptions). */
export const SETTLE_BUDGET_MS = 3_000;
/**
 * The least time from the start of one read to the next. uiautomator's own idle wait paces a
 * phone (each dump returns once the screen has been quiet); this keeps a phone that answers at
 * once (an idle-state error) from being asked again in a tight loop.
 */
export const SETTLE_GAP_MS = 100;

/** One read of the screen: the focused window and keyboard, and the dump as uiautomator gave it. */
export interface ScreenRead {
  focus: string | undefined;
  focusedApp: string | undefined;
  keyboard: boolean | undefined;
  dump: DumpResult;
}

/** The focused window, the keyboard and the UI tree, in one adb round trip (screenStateCommand). */
export async function readScreenState(screen: PhoneScreen): Promise<ScreenRead> {
  const { dump, text } = await readDump(screen, { windowState: true });
  return { ...parseWindowState(text), dump };
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
 * failing otherwise (no tree on this screen) ends the wait at once. A read that fails outright
 * (the phone is gone) throws its AgentError, for the verb to word (unreadSection).
 */
export async function settleScreen(
  screen: PhoneScreen,
  call: { clock: Clock; signal: AbortSignal },
): Promise<Settled> {
  const { clock, signal } = call;
  const deadline = clock.now() + SETTLE_BUDGET_MS;
  let previous: ScreenReading | undefined;
  let latest: ScreenReading | undefined;
  let failure: string | undefined;
  while (!signal.aborted) {
    const started = clock.now();
    if (started >= deadline) break;
    const read = await within(readScreenState(screen), deadline - started, clock);
    if (read === "late") break;
    if (read.dump.ok) {
      const reading = screen.remember({
        elements: parseUiTree(read.dump.xml),
        at: clock.now(),
        focus: read.focus,
        keyboard: read.keyboard,
      });
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
 * The [changed] section for an action whose screen before was `before`, from the wait for the
 * screen to settle (settleScreen): what changed, or that it did not settle and what is there now.
 */
export function changedSection(before: ScreenReading | undefined, result: Settled): string {
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
 * The [changed] section when the screen could not be read after the action: `said` is that
 * failure, worded by the verb. The action itself has happened, so this is no error.
 */
export function unreadSection(said: string): string {
  return `[changed]\ncould not read the screen afterwards: ${said}`;
}
