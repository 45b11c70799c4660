// What a look tells a client that asked for progress: each step as it happens, and a heartbeat
// saying what it still waits for. Shared by the look and the wait before it.

import type { Clock } from "../core/clock.ts";
import type { ReportProgress } from "../core/progress.ts";
import { seconds } from "../core/text.ts";

/** How often a long look tells a client that asked for progress that it is still at work. */
export const PROGRESS_EVERY_MS = 5_000;

/**
 * Progress for a client that sent a progress token: each step as it happens, and every `everyMs`
 * what the look still waits for. `progress` is milliseconds since the start out of the budget,
 * made strictly increasing as the protocol requires.
 */
export function lookProgress(
  report: ReportProgress | undefined,
  budgetMs: number,
  waitingFor: () => string,
  clock: Clock,
  everyMs: number = PROGRESS_EVERY_MS,
): { step(message: string): void; stop(): Promise<void> } {
  const started = clock.now();
  let last = -1;
  let stopped = false;
  const sent: Promise<void>[] = [];
  const step = (message: string) => {
    // A channel cut by the budget may finish after the result: the client no longer listens.
    if (!report || stopped) return;
    last = Math.max(last + 1, clock.now() - started);
    // A client that went away must not fail the look.
    sent.push(report({ progress: last, total: budgetMs, message }).catch(() => {}));
  };
  // A heartbeat every `everyMs` from the start: each beat sets the next on that schedule; beats a
  // busy event loop made late are skipped, not sent in a burst to catch up.
  let cancel = () => {};
  const beat = (n: number) => {
    cancel = clock.setTimer(started + n * everyMs - clock.now(), () => {
      const elapsed = clock.now() - started;
      step(`waiting for ${waitingFor()} (${seconds(elapsed)} of ${seconds(budgetMs)})`);
      beat(Math.max(n, Math.floor(elapsed / everyMs)) + 1);
    });
  };
  if (report !== undefined) beat(1);
  return {
    step,
    /** Stops the heartbeat and waits for the notifications sent, so none trails the result. */
    async stop(): Promise<void> {
      stopped = true;
      cancel();
      await Promise.all(sent);
    },
  };
}
