// Repeated wrong tokens from one address are slowed: a few free misses, then 429 with a pause
// that doubles, on the server's clock (a fake one here); the right token forgets the misses.

import assert from "node:assert/strict";
import {
  ADDRESSES_MAX,
  FIRST_PAUSE_MS,
  FREE_MISSES,
  MAX_PAUSE_MS,
  TokenGuesses,
} from "../../lib/mcp/http_guesses.ts";
import { FakeClock } from "../helpers/fake_clock.ts";

Deno.test({
  name: "a guesser's pause doubles past the free misses, up to its cap; the right token ends it",
  permissions: "none",
  fn() {
    const clock = new FakeClock();
    const guesses = new TokenGuesses(clock);
    for (let i = 0; i < FREE_MISSES; i++) guesses.miss("10.0.0.9");
    assert.equal(guesses.pauseLeft("10.0.0.9"), 0, "a stale token is not punished at once");
    guesses.miss("10.0.0.9");
    assert.equal(guesses.pauseLeft("10.0.0.9"), FIRST_PAUSE_MS);
    guesses.miss("10.0.0.9");
    assert.equal(guesses.pauseLeft("10.0.0.9"), 2 * FIRST_PAUSE_MS);
    for (let i = 0; i < 20; i++) guesses.miss("10.0.0.9");
    assert.equal(guesses.pauseLeft("10.0.0.9"), MAX_PAUSE_MS);
    assert.equal(guesses.pauseLeft("10.0.0.7"), 0, "another address is not slowed");
    guesses.hit("10.0.0.9");
    assert.equal(guesses.pauseLeft("10.0.0.9"), 0);
  },
});

Deno.test({
  name: "a flood of guessing addresses is bounded: the address missed longest ago is forgotten",
  permissions: "none",
  fn() {
    const clock = new FakeClock();
    const guesses = new TokenGuesses(clock);
    for (let i = 0; i <= FREE_MISSES; i++) guesses.miss("first");
    assert.ok(guesses.pauseLeft("first") > 0);
    for (let n = 0; n < ADDRESSES_MAX; n++) guesses.miss(`10.${n >> 8}.${n & 255}.1`);
    assert.equal(guesses.pauseLeft("first"), 0, "forgotten, never blocked for good");
  },
});
