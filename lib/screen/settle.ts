// Reading the screen once an action is sent, trusting the dump's own wait for the screen to be idle
// (a second read only when the first cannot be trusted), and the [changed] section that follows.

import { cancelledError } from "../adb/queue.ts";
import type { Clock } from "../core/clock.ts";
import { seconds } from "../core/text.ts";
import {
  describeChanges,
  parseWindowState,
  sameScreen,
  treeBehindFocus,
  windowChanging,
} from "./changes.ts";
import type { ActionTurn, PhoneScreen, ScreenReading } from "./phone_screen.ts";
import { readDump } from "./ui_dump.ts";
import { type DumpResult, parseUiTree, type UiElement } from "./ui_tree.ts";

/**
 * The most an action's reading of the screen may take before the reply says the screen did not
 * settle. Sized for a phone, not for the link: each dump first waits until the screen has been
 * idle for 1 s (up to 10 s, then "could not get idle state"), so a read takes 1-3 s on a calm
 * screen and 10 s on one that never stops. 15 s lets a first read that cannot be trusted (a window
 * still drawing) be followed by a second that runs to the phone's own 10 s verdict, which is the
 * one "did not settle" that means something; past it, only a slow or stuck link is waiting.
 */
export const SETTLE_BUDGET_MS = 15_000;
/**
 * The least time from the start of one read to the next. A phone's idle wait paces its reads (each
 * takes a second or more); this keeps a phone that answers at once from being asked in a tight loop.
 */
export const SETTLE_GAP_MS = 100;

/** One read of the screen: the dump as uiautomator gave it, then the focused window and keyboard. */
export interface ScreenRead {
  focus: string | undefined;
  focusedApp: string | undefined;
  keyboard: boolean | undefined;
  dump: DumpResult;
}

/** The UI tree, then the focused window and keyboard, in one adb round trip (screenStateCommand). */
export async function readScreenState(
  screen: PhoneScreen,
  signal?: AbortSignal,
): Promise<ScreenRead> {
  const { dump, text } = await readDump(screen, { windowState: true, signal });
  return { ...parseWindowState(text), dump };
}

/** A read as the decision sees it: a tree with the window state, or why there is none. */
export type SettleRead =
  | {
    ok: true;
    elements: UiElement[];
    focus: string | undefined;
    focusedApp: string | undefined;
    keyboard: boolean | undefined;
  }
  | { ok: false; reason: string; idleState: boolean };

/**
 * What one read means for the action's reply:
 * - "trust": the dump waited for the screen to be idle and shows a whole, drawn screen;
 * - "again": it cannot be trusted yet (a window still drawing, no tree): read once more;
 * - "moving": uiautomator gave the idle-state error, so the screen kept changing for the phone's
 *   whole wait: it did not settle, and reading again would only wait as long once more;
 * - "no tree": the dump failed otherwise twice in a row: this screen has no tree to give.
 */
export type Verdict = "trust" | "again" | "moving" | "no tree";

/**
 * Whether `read` can be trusted, given the read just before it (undefined for the first). A tree of
 * at most one node (the window's root alone, or none) is trusted only when the read before showed
 * the same; a window still drawing (windowChanging), or a tree without the focused window
 * (treeBehindFocus), never is: the budget ends that wait.
 */
export function judgeRead(read: SettleRead, previous: SettleRead | undefined): Verdict {
  if (!read.ok) {
    if (read.idleState) return "moving";
    const again = previous !== undefined && !previous.ok && previous.reason === read.reason;
    return again ? "no tree" : "again";
  }
  if (windowChanging(read) || treeBehindFocus(read)) return "again";
  if (read.elements.length > 1) return "trust";
  return previous?.ok === true && !windowChanging(previous) && sameScreen(previous, read)
    ? "trust"
    : "again";
}

/** How the reading after an action ended. */
export type SettleEnd =
  | "settled"
  /** uiautomator's idle-state error: the screen kept changing for the phone's whole wait. */
  | "moving"
  /** SETTLE_BUDGET_MS passed with no read to trust. */
  | "budget"
  /** The dump fails on this screen (no idle-state error): it has no tree to give. */
  | "no tree";

export interface Settled {
  end: SettleEnd;
  /** The latest read with a tree, if any: what the screen shows (or showed last). */
  reading: ScreenReading | undefined;
  /** Why the last read had no tree, when it had none. */
  failure: string | undefined;
  /** How long the reading took, on the call's clock. */
  tookMs: number;
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
 * Reads the screen after an action until a read can be trusted (judgeRead): on a calm screen that
 * is the first, since the dump itself waited for the screen to be idle. Each read with a tree is
 * remembered as the phone's last screen. Within SETTLE_BUDGET_MS, at least SETTLE_GAP_MS between
 * the starts of two reads. The call's cancel, and the budget, stop the read under way (the queue
 * kills its adb once no other call shares it); a cancel rejects with CANCELLED. A read that fails
 * outright (the phone is gone) throws its AgentError, for the verb to word (unreadSection).
 */
export async function settleScreen(
  screen: PhoneScreen,
  call: { clock: Clock; signal: AbortSignal },
): Promise<Settled> {
  const { clock, signal } = call;
  const started = clock.now();
  const budget = new AbortController();
  const stopBudget = clock.setTimer(SETTLE_BUDGET_MS, () => budget.abort());
  const reads = AbortSignal.any([signal, budget.signal]);
  let previous: SettleRead | undefined;
  let reading: ScreenReading | undefined;
  const ended = (end: SettleEnd): Settled => ({
    end,
    reading,
    failure: previous?.ok === false ? previous.reason : undefined,
    tookMs: clock.now() - started,
  });
  try {
    for (;;) {
      const readAt = clock.now();
      const sent = screen.actions;
      const raw = await readScreenState(screen, reads).catch((error) => {
        if (signal.aborted) throw cancelledError();
        if (budget.signal.aborted) return "late" as const;
        throw error;
      });
      if (raw === "late") return ended("budget");
      const read = settleRead(raw);
      if (read.ok) {
        reading = screen.remember({ ...read, at: clock.now(), actionsSent: sent });
      }
      const verdict = judgeRead(read, previous);
      previous = read;
      if (verdict === "trust") return ended("settled");
      if (verdict !== "again") return ended(verdict);
      const gap = readAt + SETTLE_GAP_MS - clock.now();
      if (gap > 0) await clock.sleep(gap, reads).catch(() => {});
      if (signal.aborted) throw cancelledError();
      if (budget.signal.aborted) return ended("budget");
    }
  } finally {
    stopBudget();
  }
}

function settleRead(read: ScreenRead): SettleRead {
  const { dump, ...window } = read;
  if (!dump.ok) return { ok: false, reason: dump.reason, idleState: dump.idleState };
  return { ok: true, elements: parseUiTree(dump.xml), ...window };
}

/**
 * Other actions begun on the phone between the screen before `turn` and the reading after it: the
 * before's read shows the first `sent` actions, the reading at most its `read` ones, and one of
 * those is this action. Without a before, those begun after this one.
 */
export function othersMeanwhile(turn: ActionTurn, after: ScreenReading): number {
  const since = turn.before === undefined ? turn.number : turn.before.actions.sent + 1;
  return Math.max(0, after.actions.read - since);
}

/**
 * The [changed] section for the action of `turn`, from its reading (settleScreen): what changed,
 * or that the screen did not settle and what it showed last; led by a warning when another call
 * acted on the phone meanwhile, whose changes the section cannot tell from this action's.
 */
export function changedSection(turn: ActionTurn, result: Settled): string {
  const { end, reading, failure } = result;
  const lines: string[] = [];
  const others = reading === undefined ? 0 : othersMeanwhile(turn, reading);
  if (others > 0) {
    lines.push(
      `another call acted on this phone meanwhile (${others} action${
        others === 1 ? "" : "s"
      }); the changes below may be theirs`,
    );
  }
  const said = failure ? ` (uiautomator: "${failure}")` : "";
  if (end === "no tree") {
    lines.push(
      reading === undefined
        ? `the screen gave no UI tree${said}; some screens (games, video, secure or canvas-drawn apps) have none: phone_shot shows them`
        : `the screen's last reads gave no UI tree${said}; what it showed before:`,
    );
  } else if (end !== "settled") {
    const waited = seconds(end === "budget" ? SETTLE_BUDGET_MS : result.tookMs);
    lines.push(
      reading === undefined
        ? `the screen did not settle within ${waited} and gave no UI tree${said}; look again in a moment`
        : `the screen did not settle within ${waited}${said}; what it showed last:`,
    );
  }
  if (reading !== undefined) lines.push(...describeChanges(turn.before, reading));
  return ["[changed]", ...lines].join("\n");
}

/**
 * The [changed] section when the screen could not be read after the action: `said` is that
 * failure, worded by the verb. The action itself has happened, so this is no error.
 */
export function unreadSection(said: string): string {
  return `[changed]\ncould not read the screen afterwards: ${said}`;
}
