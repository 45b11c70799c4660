// A clock that stands still until a test moves it (like std's FakeTime, as a value passed in):
// timers fire in order of their due time as advance() passes it, and nothing waits for real time.

import { type Clock, sleepOn } from "../../lib/core/clock.ts";

interface Timer {
  at: number;
  order: number;
  fire: () => void;
}

export class FakeClock implements Clock {
  #now = 0;
  #order = 0;
  #timers: Timer[] = [];

  now(): number {
    return this.#now;
  }

  setTimer(ms: number, fire: () => void): () => void {
    const timer = { at: this.#now + Math.max(0, ms), order: this.#order++, fire };
    this.#timers.push(timer);
    return () => {
      this.#timers = this.#timers.filter((t) => t !== timer);
    };
  }

  sleep = sleepOn((ms, fire) => this.setTimer(ms, fire));

  /** How many timers are set and not yet fired or cancelled. */
  get pending(): number {
    return this.#timers.length;
  }

  /** When the timers set are due, earliest first. */
  get due(): number[] {
    return this.#timers.map((t) => t.at).sort((a, b) => a - b);
  }

  /** Moves the clock `ms` forward and fires nothing: an event loop too busy to run timers. */
  stall(ms: number): void {
    this.#now += ms;
  }

  /**
   * Moves the clock `ms` forward, firing each timer due on the way at its own time, in order; after
   * each, the promise jobs and I/O it started run (one macrotask turn) before the next fires.
   */
  async advance(ms: number): Promise<void> {
    const end = this.#now + ms;
    for (;;) {
      await turn();
      const next = this.#timers
        .filter((t) => t.at <= end)
        .sort((a, b) => a.at - b.at || a.order - b.order)[0];
      if (next === undefined) break;
      this.#timers = this.#timers.filter((t) => t !== next);
      // A timer overdue after stall() fires now, late, as on a busy event loop.
      this.#now = Math.max(this.#now, next.at);
      next.fire();
    }
    this.#now = end;
    await turn();
  }
}

/** One turn of the event loop: not a wait for time, a chance for pending work to run. */
function turn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
