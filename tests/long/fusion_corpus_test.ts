// extractPoints' full corpora: 20,000 seeded random answers against the regexes it replaced, and
// the adversarial answers at 4,096 and 65,536 characters. tests/look/fusion_test.ts runs a tenth of the
// first (same seed, same tokens) and the second at a sixteenth of the size. `deno task test:long`.

import { assertLinearReads, assertSameAsRegexes } from "../helpers/extract_points_checks.ts";

function test(name: string, fn: () => void): void {
  Deno.test({ name, permissions: "none", fn });
}

test("extractPoints reads exactly what the regexes it replaced read, on 20,000 random answers", () => {
  // Seeded, so a failure reproduces.
  assertSameAsRegexes(20_000);
});

test("extractPoints reads each character of an adversarial answer a bounded number of times", () => {
  assertLinearReads(1 << 12);
});
