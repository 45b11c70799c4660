// extractPoints' two corpus checks, at a size the caller picks: tests/look/fusion_test.ts runs them
// small, tests/long/fusion_corpus_test.ts at full size.

import assert from "node:assert/strict";
import { extractPoints } from "../../lib/look/fusion.ts";
import {
  adversarialAnswers,
  CountedString,
  extractPointsByRegex,
  randomAnswers,
} from "../fixtures/coordinate_answers.ts";

/** `count` seeded random answers read exactly as the regexes extractPoints replaced read them. */
export function assertSameAsRegexes(count: number): void {
  const screen = { width: 100_000, height: 100_000 }; // keep what a phone screen would drop
  let withPoints = 0;
  for (const answer of randomAnswers(count)) {
    const expected = extractPointsByRegex(answer, screen);
    assert.deepEqual(extractPoints(answer, screen), expected, JSON.stringify(answer));
    if (expected.length > 0) withPoints++;
  }
  assert.ok(withPoints > count / 4, `only ${withPoints} answers held a point`);
}

/**
 * Each adversarial shape read a bounded number of times per character, at `small` characters and
 * at 16 times that. The old bare-pair regex took 5.2 s on "at" and 100,000 spaces, and grew with
 * the square of the length. Steps are counted, not milliseconds (a busy machine made a timed bound
 * flake): linear, an answer 16 times longer costs 16 times the reads, and each character is read
 * a few times (8 at most today, for "parentheses"); quadratic, 256 times. At least one read per
 * character proves the count sees the scanner's work (a regex would read none through it).
 */
export function assertLinearReads(small: number): void {
  const screen = { width: 1080, height: 2400 };
  const perCharacter = (size: number) =>
    Object.entries(adversarialAnswers(size)).map(([shape, answer]) => {
      const counted = new CountedString(answer);
      // The whole answer, past the usual cap; the cast hands the scanner the counting string.
      extractPoints(counted as unknown as string, screen, Infinity);
      return { shape, reads: counted.reads / answer.length };
    });
  const before = perCharacter(small);
  for (const [i, { shape, reads }] of perCharacter(small * 16).entries()) {
    assert.ok(reads >= 1 && reads <= 10, `${shape}: ${reads.toFixed(2)} reads per character`);
    const was = before[i]!.reads;
    assert.ok(
      reads <= was * 1.1,
      `${shape}: 16 times the length took ${(16 * reads / was).toFixed(1)} times the reads`,
    );
  }
}
