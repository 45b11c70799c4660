// Wrong bearer tokens, counted per client address: past a few, that address is answered 429 with
// Retry-After for a pause that doubles with each further miss, before its token is compared again.

import type { Clock } from "../core/clock.ts";

/** Misses an address may make before it is slowed: a client with a stale token is not punished. */
export const FREE_MISSES = 5;
/** The first pause after the free misses; each further miss doubles it, up to MAX_PAUSE_MS. */
export const FIRST_PAUSE_MS = 1_000;
export const MAX_PAUSE_MS = 60_000;
/**
 * Addresses remembered at once; the one missed longest ago is forgotten first, so a flood of
 * addresses costs bounded memory and can only forget, never block, an address.
 */
export const ADDRESSES_MAX = 4096;

interface Misses {
  count: number;
  /** Until when (on the clock) the address is answered 429 without a try. */
  until: number;
}

/** One per HTTP server: the misses each address has made, newest last. */
export class TokenGuesses {
  readonly #clock: Clock;
  readonly #misses = new Map<string, Misses>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** How long `address` must still wait before its token is compared again; 0: not at all. */
  pauseLeft(address: string): number {
    const misses = this.#misses.get(address);
    return misses === undefined ? 0 : Math.max(0, misses.until - this.#clock.now());
  }

  /** `address` sent a wrong (or no) token. */
  miss(address: string): void {
    const count = (this.#misses.get(address)?.count ?? 0) + 1;
    const over = count - FREE_MISSES;
    const pause = over <= 0 ? 0 : Math.min(FIRST_PAUSE_MS * 2 ** (over - 1), MAX_PAUSE_MS);
    // Deleted and set again, so the Map's order is the order of the last misses.
    this.#misses.delete(address);
    this.#misses.set(address, { count, until: this.#clock.now() + pause });
    if (this.#misses.size > ADDRESSES_MAX) {
      this.#misses.delete(this.#misses.keys().next().value!);
    }
  }

  /** `address` sent the right token: its misses are forgotten. */
  hit(address: string): void {
    this.#misses.delete(address);
  }
}
