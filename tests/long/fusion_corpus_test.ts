// extractPoints' full corpora: 20,000 seeded random answers against the regexes it replaced, and
// the adversarial answers at 4,096 and 65,536 characters. tests/fusion_test.ts runs a tenth of the
// first (same seed, same tokens) and the second at a sixteenth of the size. `deno task test:long`.

import assert from "node:assert/strict";
import { extractPoints } from "../../lib/fusion.ts";
import { adversarialAnswers, extractPointsByRegex } from "../fixtures/coordinate_answers.ts";

function test(name: string, fn: () => void): void {
  Deno.test({ name, permissions: "none", fn });
}

const SCREEN = { width: 1080, height: 2400 };

test("extractPoints reads exactly what the regexes it replaced read, on 20,000 random answers", () => {
  // Token soup around every form: starts, separators, units, keywords glued to words and numbers,
  // Unicode spaces (\s) and look-alikes (U+200B is not a space). Seeded, so a failure reproduces.
  const tokens = [
    ..."xXyY=:,;()[]-._asp",
    ...[" ", "  ", "\n", "\t", "\u00a0", "\u2003", "\u3000", "\ufeff", "\u200b", "é"],
    ...["1", "54", "0", "5", "0.5", "1080", "2400", "px", "PX", "ms", "and", " and ", "AND"],
    ...["at", "At", "AT", "coordinates", "coordinate", "coords", "position", "point", "tap"],
    ...["click", "ax", "x=", "y=", "(1, 2)", "at 5,6", "[1,2][3,4]", "(1,2,3,4)"],
  ];
  let seed = 20_250_811;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const screen = { width: 100_000, height: 100_000 }; // keep what a phone screen would drop
  let withPoints = 0;
  for (let n = 0; n < 20_000; n++) {
    let answer = "";
    for (let t = 1 + Math.floor(random() * 40); t > 0; t--) {
      answer += tokens[Math.floor(random() * tokens.length)];
    }
    const expected = extractPointsByRegex(answer, screen);
    assert.deepEqual(extractPoints(answer, screen), expected, JSON.stringify(answer));
    if (expected.length > 0) withPoints++;
  }
  assert.ok(withPoints > 5_000, `only ${withPoints} answers held a point`);
});

/** A string that counts the characters read from it: the scanner reads through charCodeAt. */
class CountedString extends String {
  reads = 0;
  override charCodeAt(index: number): number {
    this.reads++;
    return super.charCodeAt(index);
  }
}

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
