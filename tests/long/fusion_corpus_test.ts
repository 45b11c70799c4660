// extractPoints' full corpora: 20,000 seeded random answers against the regexes it replaced, and
// the adversarial answers at 4,096 and 65,536 characters. tests/fusion_test.ts runs a tenth of the
// first (same seed, same tokens) and the second at a sixteenth of the size. `deno task test:long`.

import assert from "node:assert/strict";
import { extractPoints } from "../../lib/fusion.ts";
import {
  adversarialAnswers,
  CountedString,
  extractPointsByRegex,
  randomAnswers,
} from "../fixtures/coordinate_answers.ts";

function test(name: string, fn: () => void): void {
  Deno.test({ name, permissions: "none", fn });
}

const SCREEN = { width: 1080, height: 2400 };

test("extractPoints reads exactly what the regexes it replaced read, on 20,000 random answers", () => {
  // Seeded, so a failure reproduces.
  const screen = { width: 100_000, height: 100_000 }; // keep what a phone screen would drop
  let withPoints = 0;
  for (const answer of randomAnswers(20_000)) {
    const expected = extractPointsByRegex(answer, screen);
    assert.deepEqual(extractPoints(answer, screen), expected, JSON.stringify(answer));
    if (expected.length > 0) withPoints++;
  }
  assert.ok(withPoints > 5_000, `only ${withPoints} answers held a point`);
});

test("extractPoints reads each character of an adversarial answer a bounded number of times", () => {
  // The old bare-pair regex took 5.2 s on "at" and 100,000 spaces, and grew with the square of
  // the length. Steps are counted, not milliseconds (a busy machine made a timed bound flake):
  // linear, an answer 16 times longer costs 16 times the reads, and each character is read a few
  // times (8 at most today, for "parentheses"); quadratic, 256 times. At least one read per
  // character proves the count sees the scanner's work (a regex would read none through it).
  const perCharacter = (size: number) =>
    Object.entries(adversarialAnswers(size)).map(([shape, answer]) => {
      const counted = new CountedString(answer);
      // The whole answer, past the usual cap; the cast hands the scanner the counting string.
      extractPoints(counted as unknown as string, SCREEN, Infinity);
      return { shape, reads: counted.reads / answer.length };
    });
  const small = perCharacter(1 << 12);
  const large = perCharacter(1 << 16);
  for (const [i, { shape, reads }] of large.entries()) {
    assert.ok(reads >= 1 && reads <= 10, `${shape}: ${reads.toFixed(2)} reads per character`);
    const before = small[i]!.reads;
    assert.ok(
      reads <= before * 1.1,
      `${shape}: 16 times the length took ${(16 * reads / before).toFixed(1)} times the reads`,
    );
  }
});
