// phone_look's wait: polls the UI tree until a named element appears (wait_for) or is gone
// (wait_gone), within a timeout inside the look's budget, then looks, with a [waited] line first.

import type { LookCall, LookDeps } from "./deps.ts";
import { gatherLook } from "./gather.ts";
import { type LookAnswer, lookAnswer } from "./look.ts";
import { lookProgress, seconds } from "./progress.ts";
import { WAIT_CANCELLED } from "./words.ts";
import { AgentError } from "../core/errors.ts";
import { matchElements } from "../screen/find_element.ts";
import { readUiTree } from "../screen/screen.ts";
import { within } from "../screen/settle.ts";
import type { UiElement } from "../screen/ui_tree.ts";
import type { PhoneScreen } from "../screen/phone_screen.ts";
import type { Clock } from "../core/clock.ts";
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

/** What a poll came to: the matches once the condition held, and the last tree read. */
export interface Polled {
  /** The elements matching (none for a wait to be gone) once it held; undefined if it never did. */
  met: UiElement[] | undefined;
  last: UiElement[] | undefined;
}

/**
 * Reads the UI tree every WAIT_GAP_MS until `name` is on screen (or, with `gone`, is not), or the
 * deadline passes. A screen still moving (idle-state errors) is polled again; a lost phone throws
 * its AgentError. phone_look's wait_for and `phone-eye --replay` wait with this.
 */
export async function pollFor(
  screen: PhoneScreen,
  name: string,
  how: { gone: boolean; deadline: number; clock: Clock; signal: AbortSignal },
): Promise<Polled> {
  const { gone, deadline, clock, signal } = how;
  let last: UiElement[] | undefined;
  while (!signal.aborted) {
    const polled = clock.now();
    const read = await within(
      readUiTree(screen, clock).then(
        (elements) => elements,
        (error: unknown) => {
          if (error instanceof AgentError && error.code === "COMMAND_FAILED") return undefined;
          throw error;
        },
      ),
      Math.max(deadline - polled, 0),
      clock,
    );
    if (read === "late") break;
    if (read !== undefined) {
      last = read;
      screen.remember({ elements: read, at: clock.now() });
      const matches = matchElements(read, name);
      if (gone ? matches.length === 0 : matches.length > 0) return { met: matches, last };
    }
    if (clock.now() >= deadline) break;
    const gap = Math.min(polled + WAIT_GAP_MS, deadline) - clock.now();
    if (gap > 0) await clock.sleep(gap, signal).catch(() => {});
  }
  return { met: undefined, last };
}

/**
 * Polls until the condition holds or the timeout passes, then answers with the look (its budget
 * what the wait left) after a [waited] line: what appeared or went, and after how long; or that it
 * did not within the timeout. Progress goes out while waiting, and the look's continues from there.
 */
export async function waitThenLook(
  deps: LookDeps,
  question: string | undefined,
  wait: WaitCondition,
  call: LookCall,
): Promise<LookAnswer> {
  const { device, clock } = deps;
  const screen = deps.screens.of(device);
  const started = clock.now();
  const limit = waitLimitMs(wait.timeoutMs, deps.lookBudgetMs);
  const deadline = started + limit;
  const verb = wait.gone ? "disappear" : "appear";
  const progress = lookProgress(
    call.progress,
    deps.lookBudgetMs,
    () => `"${wait.name}" to ${verb}`,
    clock,
  );
  progress.step(`waiting up to ${seconds(limit)} for "${wait.name}" to ${verb}`);
  let met: UiElement[] | undefined;
  try {
    met = (await pollFor(screen, wait.name, {
      gone: wait.gone,
      deadline,
      clock,
      signal: call.signal,
    })).met;
  } catch (error) {
    // The look below says what is wrong with the phone in its own words.
    if (!(error instanceof AgentError)) throw error;
  } finally {
    await progress.stop();
  }
  if (call.signal.aborted) {
    return { text: WAIT_CANCELLED, failed: true, tree: undefined, screen: undefined };
  }
  const waited = clock.now() - started;
  const line = met === undefined
    ? `"${wait.name}" did not ${verb} within ${seconds(limit)}`
    : wait.gone
    ? `"${wait.name}" disappeared after ${seconds(waited)}`
    : `"${wait.name}" appeared after ${seconds(waited)} (${
      met.slice(0, 3).map(formatElementLine).join("; ")
    })`;
  const report = call.progress;
  const offset = Math.ceil(waited) + 1;
  const outcomes = await gatherLook(
    { ...deps, lookBudgetMs: Math.max(1, deps.lookBudgetMs - waited) },
    question,
    {
      ...call,
      // Progress must keep growing: the look's counts on from where the wait stopped.
      progress: report &&
        ((u) => report({ ...u, progress: u.progress + offset, total: deps.lookBudgetMs + offset })),
    },
  );
  const answer = lookAnswer(outcomes);
  return {
    ...answer,
    text: `[waited]\n${line}\n\n${answer.text}`,
    waited: { met: met !== undefined },
  };
}
