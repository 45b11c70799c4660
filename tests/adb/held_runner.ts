// A runner whose every adb call is a "process" held until the test answers it, counting processes
// alive at once: the queue and link tests drive it by events, never by time.

import type { AdbOutcome, AdbRunLimits, RunAdb } from "../../lib/adb/runner.ts";

export interface Held {
  line: string;
  limits: AdbRunLimits;
  answer(outcome: AdbOutcome): void;
}

/**
 * A runner whose every call is a "process" held until answered. It counts processes alive at once
 * and ends a call at once when its signal aborts, as the real runner kills adb.
 */
/** The runner, what it holds, and what it counted. */
export interface HeldRunner {
  run: RunAdb;
  /** Each call's argv, joined with spaces, in arrival order. */
  lines: string[];
  /** The calls not answered yet. */
  held: Held[];
  /** Calls alive now, the most alive at once, and how many a signal ended. */
  readonly alive: number;
  readonly most: number;
  readonly killed: number;
  /** Waits until `n` calls are held (event-driven: each arrival wakes it). */
  holding(n: number): Promise<Held[]>;
  /** The held call matching `pattern`, once it has arrived. */
  next(pattern: RegExp): Promise<Held>;
}

export function heldRunner(): HeldRunner {
  const held: Held[] = [];
  const lines: string[] = [];
  let alive = 0;
  let most = 0;
  let killed = 0;
  let arrived: (() => void) | undefined;
  const run = (args: readonly string[], limits: AdbRunLimits) =>
    new Promise<AdbOutcome>((resolve) => {
      if (limits.signal?.aborted) return resolve({ kind: "cancelled" });
      alive += 1;
      most = Math.max(most, alive);
      const line = args.join(" ");
      lines.push(line);
      let ended = false;
      const end = (outcome: AdbOutcome) => {
        if (ended) return;
        ended = true;
        alive -= 1;
        held.splice(held.indexOf(call), 1);
        resolve(outcome);
      };
      const call: Held = { line, limits, answer: end };
      limits.signal?.addEventListener("abort", () => {
        killed += 1;
        end({ kind: "cancelled" });
      }, { once: true });
      held.push(call);
      arrived?.();
    });
  return {
    run,
    lines,
    held,
    get alive() {
      return alive;
    },
    get most() {
      return most;
    },
    get killed() {
      return killed;
    },
    /** Waits until `n` calls are held (event-driven: each arrival wakes it). */
    async holding(n: number): Promise<Held[]> {
      while (held.length < n) await new Promise<void>((resolve) => arrived = resolve);
      return [...held];
    },
    /** The held call matching `pattern`, once it has arrived. */
    async next(pattern: RegExp): Promise<Held> {
      for (;;) {
        const found = held.find((h) => pattern.test(h.line));
        if (found) return found;
        await new Promise<void>((resolve) => arrived = resolve);
      }
    },
  };
}
