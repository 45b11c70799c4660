// Reading points out of vision answers: a normal answer, and adversarial ones built to make a
// coordinate reader backtrack, read by the scanner and by the regexes it replaced (issue 8).
// `deno bench -P=test --no-prompt bench/fusion_bench.ts` for the table with ratios;
// `deno run -P=test --no-prompt bench/fusion_bench.ts` prints medians (deno bench shows none).

import { extractPoints } from "../lib/look/fusion.ts";
import { adversarialAnswers, extractPointsByRegex } from "../tests/fixtures/coordinate_answers.ts";

const SCREEN = { width: 1080, height: 2400 };

// What a vision model answers to "describe this screen": prose with a dozen coordinates.
const normal = [
  "This is the chat list of a messaging app, in light mode.",
  ...Array.from(
    { length: 12 },
    (_, i) =>
      `- "Conversation ${i + 1}" row, at (540, ${300 + i * 150}); its avatar is at x=90, y=${
        300 + i * 150
      }.`,
  ),
  "The compose button is a round blue button at 960,1880. The toolbar spans [0,84][1080,231]",
  "and holds the search icon at (880, 157) and the overflow menu at (1010, 157).",
].join("\n");

// The regexes are quadratic on two of these shapes: 10 KB keeps their run to tens of ms.
const small = adversarialAnswers(10 * 1024);
const large = adversarialAnswers(1 << 20);

interface Case {
  name: string;
  group: string;
  baseline?: boolean;
  fn: () => unknown;
}

const cases: Case[] = [
  {
    name: "regexes (before): normal answer",
    group: "normal",
    baseline: true,
    fn: () => extractPointsByRegex(normal, SCREEN),
  },
  { name: "scanner: normal answer", group: "normal", fn: () => extractPoints(normal, SCREEN) },
];
for (const [shape, answer] of Object.entries(small)) {
  cases.push(
    {
      name: `regexes (before): ${shape}, 10 KB`,
      group: shape,
      baseline: true,
      fn: () => extractPointsByRegex(answer, SCREEN),
    },
    {
      name: `scanner: ${shape}, 10 KB`,
      group: shape,
      fn: () => extractPoints(answer, SCREEN, Infinity),
    },
    {
      name: `scanner: ${shape}, 1 MB`,
      group: shape,
      fn: () => extractPoints(large[shape]!, SCREEN, Infinity),
    },
    {
      name: `phone_look (first ${8_000} chars): ${shape}, 1 MB`,
      group: shape,
      fn: () => extractPoints(large[shape]!, SCREEN),
    },
  );
}

for (const c of cases) {
  Deno.bench({
    name: c.name,
    group: c.group,
    baseline: c.baseline ?? false,
    fn: () => void c.fn(),
  });
}

if (import.meta.main) {
  const median = (fn: () => unknown) => {
    fn(); // warm-up: JIT
    const times: number[] = [];
    for (let i = 0; i < 9; i++) {
      const start = performance.now();
      fn();
      times.push(performance.now() - start);
    }
    return times.sort((a, b) => a - b)[4]!;
  };
  const lines: string[] = [
    `normal answer: ${normal.length} chars. Median of 9 runs, ms; for the scanner, the regexes'`,
    "time over its own (same text), or its 1 MB time over its 10 KB time (102× the text: linear",
    "is ~100×, quadratic ~10,000×).",
  ];
  let group = "";
  let regexes = NaN;
  let scanner10k = NaN;
  for (const c of cases) {
    if (c.group !== group) lines.push(`${group = c.group}`);
    const ms = median(c.fn);
    let note = "";
    if (c.baseline) regexes = ms;
    else if (c.name.endsWith("10 KB") || c.group === "normal") {
      scanner10k = ms;
      note = `regexes ÷ scanner ${(regexes / ms).toFixed(1)}`;
    } else if (c.name.startsWith("scanner")) note = `1 MB ÷ 10 KB ${(ms / scanner10k).toFixed(0)}`;
    lines.push(`  ${c.name.padEnd(64)} ${ms.toFixed(3).padStart(9)}  ${note}`);
  }
  // deno-lint-ignore no-console
  console.log(lines.join("\n"));
}
