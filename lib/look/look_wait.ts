// phone_look's wait: polls the UI tree until a named element appears (wait_for) or is gone
// (wait_gone), within a timeout inside the look's budget, then looks, with a [waited] line first.

import type { LookCall, LookDeps } from "./deps.ts";
import { gatherLook, type LookOutcomes, type Outcome } from "./gather.ts";
import { type LookAnswer, lookAnswer } from "./look.ts";
import { lookProgress } from "./progress.ts";
import { seconds } from "../core/text.ts";
import { WAIT_CANCELLED } from "./words.ts";
import type { Clock } from "../core/clock.ts";
import { AgentError } from "../core/errors.ts";
import type { PhoneScreen } from "../screen/phone_screen.ts";
import { matchElements } from "../screen/find_element.ts";
import { readUiTree } from "../screen/screen.ts";
import { within } from "../screen/settle.ts";
import type { UiElement } from "../screen/ui_tree.ts";
import { formatElementLine } from "../screen/ui_tree_summary.ts";

/**
 * The least time from the start of one poll to the next. Each dump returns once the screen has
 * been idle (uiautomator's own wait, up to 10 s on a phone), which paces a busy screen; this paces
 * one that answers at once.
 */
export const WAIT_GAP_MS = 250;
/** What the look after the wait keeps of the budget, so a wait never leaves it no time to answer. */
export const LOOK_RESERVE_MS = 15_000;

export interface WaitCondition {
  /** Text, content-desc or resource-id, matched as phone_tap's element is. */
  name: string;
  /** True: wait until nothing matches; false: until something does. */
  gone: boolean;
  timeoutMs: number;
}

/** The wait's timeout once kept within the look's budget. */
export function waitLimitMs(timeoutMs: number, lookBudgetMs: number): number {
  return Math.max(0, Math.min(timeoutMs, lookBudgetMs - LOOK_RESERVE_MS));
}

/** What the polls found: how many reads of the screen they checked, and what ended them. */
export interface Polled {
  /** Reads of the screen that gave a tree and were checked against the condition. */
  checks: number;
  /** The matches when the condition held (none for wait_gone), and when, from the wait's start. */
  met: { matches: UiElement[]; afterMs: number } | undefined;
  /** The phone stopped answering (a lost link, not a moving screen): the look says why. */
  stopped: boolean;
  /** The last tree a poll read, if any. */
  last: UiElement[] | undefined;
}

/**
 * Polls until the condition holds or the timeout passes, then answers with the look (its budget
 * what the wait left) after a [waited] line: what appeared or went, and after how long; that it
 * was already so at the first check; or that it did not within the timeout. A poll still reading
 * at the timeout is left to run: the look's own read of the tree joins it (reads in flight are
 * shared, lib/adb/queue.ts) and is the wait's one check when no poll answered in time, so a
 * timeout shorter than one dump still checks the screen once. Progress goes out while waiting,
 * and the look's continues from there. A cancel stops the polls' reads.
 */
export async function waitThenLook(
  deps: LookDeps,
  question: string | undefined,
  wait: WaitCondition,
  call: LookCall,
): Promise<LookAnswer> {
  const { clock } = deps;
  const started = clock.now();
  const limit = waitLimitMs(wait.timeoutMs, deps.lookBudgetMs);
  const verb = wait.gone ? "disappear" : "appear";
  const progress = lookProgress(
    call.progress,
    deps.lookBudgetMs,
    () => `"${wait.name}" to ${verb}`,
    clock,
  );
  progress.step(`waiting up to ${seconds(limit)} for "${wait.name}" to ${verb}`);
  // Ends a poll left running at the timeout once the look has read the tree (or on cancel).
  const leftover = new AbortController();
  const signal = AbortSignal.any([call.signal, leftover.signal]);
  let polled: Polled;
  try {
    polled = await pollFor(deps.screens.of(deps.device), wait.name, {
      gone: wait.gone,
      started,
      deadline: started + limit,
      clock,
      signal,
    });
  } finally {
    await progress.stop();
  }
  if (call.signal.aborted) {
    leftover.abort();
    return { text: WAIT_CANCELLED, failed: true, tree: undefined, screen: undefined };
  }
  const waited = clock.now() - started;
  const report = call.progress;
  const offset = Math.ceil(waited) + 1;
  let outcomes: LookOutcomes;
  try {
    outcomes = await gatherLook(
      { ...deps, lookBudgetMs: Math.max(1, deps.lookBudgetMs - waited) },
      question,
      {
        ...call,
        // Progress must keep growing: the look's counts on from where the wait stopped.
        progress: report &&
          ((u) =>
            report({ ...u, progress: u.progress + offset, total: deps.lookBudgetMs + offset })),
      },
    );
  } finally {
    leftover.abort();
  }
  const answer = lookAnswer(outcomes);
  const line = waitedLine(wait, { limit, waited }, polled, outcomes.tree);
  return {
    ...answer,
    text: `[waited]\n${line}\n\n${answer.text}`,
    waited: { met: polled.met !== undefined },
  };
}

/**
 * Reads the tree every WAIT_GAP_MS at most until `name` is on screen (or, with `gone`, is not), or
 * the deadline passes. A screen still moving (idle-state errors) is polled again; a phone that
 * stops answering ends the polls (`stopped`). phone_look's wait_for and `phone-eye --replay` wait
 * with this.
 */
export async function pollFor(
  screen: PhoneScreen,
  name: string,
  how: { gone: boolean; started: number; deadline: number; clock: Clock; signal: AbortSignal },
): Promise<Polled> {
  const { gone, started, deadline, clock, signal } = how;
  const polled: Polled = { checks: 0, met: undefined, stopped: false, last: undefined };
  try {
    while (!signal.aborted) {
      const at = clock.now();
      const read = await within(
        readUiTree(screen, clock, signal).then(
          (elements) => elements,
          (error: unknown) => {
            // A screen still moving (idle-state errors) is polled again; a lost phone is not.
            if (error instanceof AgentError && error.code === "COMMAND_FAILED") return undefined;
            throw error;
          },
        ),
        Math.max(deadline - at, 0),
        clock,
      );
      if (read === "late") break;
      if (read !== undefined) {
        screen.remember({ elements: read, at: clock.now() });
        polled.checks += 1;
        polled.last = read;
        const matches = matchElements(read, name);
        if (gone ? matches.length === 0 : matches.length > 0) {
          polled.met = { matches, afterMs: clock.now() - started };
          break;
        }
      }
      if (clock.now() >= deadline) break;
      const gap = Math.min(at + WAIT_GAP_MS, deadline) - clock.now();
      if (gap > 0) await clock.sleep(gap, signal).catch(() => {});
    }
  } catch (error) {
    // The look below says what is wrong with the phone in its own words.
    if (!(error instanceof AgentError)) throw error;
    polled.stopped = !signal.aborted;
  }
  return polled;
}

/** At most this many matches are named in the [waited] line. */
const MATCHES_SHOWN = 3;

const named = (matches: UiElement[]) =>
  ` (${matches.slice(0, MATCHES_SHOWN).map(formatElementLine).join("; ")})`;

/**
 * The [waited] line: only what the reads showed. Held at the first check, the condition is said
 * as a state ("already on screen", "was not on screen"), never as an event that was not seen; a
 * later check says after how long. With no poll answered in time, the look's own tree is the one
 * check.
 */
function waitedLine(
  wait: WaitCondition,
  time: { limit: number; waited: number },
  polled: Polled,
  lookTree: Outcome<UiElement[]>,
): string {
  const name = `"${wait.name}"`;
  const verb = wait.gone ? "disappear" : "appear";
  const { met } = polled;
  if (met !== undefined && polled.checks > 1) {
    return wait.gone
      ? `${name} disappeared after ${seconds(met.afterMs)}`
      : `${name} appeared after ${seconds(met.afterMs)}${named(met.matches)}`;
  }
  let first = met?.matches;
  if (met === undefined && polled.checks === 0 && !polled.stopped) {
    if (!lookTree.ok) {
      return `${name} could not be checked: no UI tree was read ([ui-tree] says why)`;
    }
    const matches = matchElements(lookTree.value, wait.name);
    if (wait.gone ? matches.length === 0 : matches.length > 0) first = matches;
  }
  if (first !== undefined) {
    return wait.gone ? `${name} was not on screen` : `${name} was already on screen${named(first)}`;
  }
  if (polled.stopped) {
    return `the wait for ${name} to ${verb} stopped after ${
      seconds(time.waited)
    }: the phone could not be read (the sections below say why)`;
  }
  const missed = `${name} did not ${verb} within ${seconds(time.limit)}`;
  // The look read the screen once more after the wait: what it shows is said, not hidden.
  if (!lookTree.ok) return missed;
  const now = matchElements(lookTree.value, wait.name);
  if (wait.gone) return now.length === 0 ? `${missed}, but is gone now` : missed;
  return now.length > 0 ? `${missed}, but is on screen now${named(now)}` : missed;
}
