// Parsing and summarizing uiautomator dumps: a typical screen (~100 KB) and a huge one (5 MB);
// finding an element by name on them and on a hostile screen.
// `deno bench -P=test --no-prompt bench/ui_tree_bench.ts` for the table;
// `deno run -P=test --no-prompt bench/ui_tree_bench.ts` prints medians (deno bench shows none).

import { extractPoints } from "../lib/look/fusion.ts";
import { findElement } from "../lib/screen/find_element.ts";
import { extractDump, parseUiTree } from "../lib/screen/ui_tree.ts";
import { summarizeUiTree } from "../lib/screen/ui_tree_summary.ts";
import { makeDump } from "../tests/fixtures/ui/big_dump.ts";

const typical = makeDump(100 * 1024);
const huge = makeDump(5 * 1024 * 1024);
const typicalElements = parseUiTree(typical);
const hugeElements = parseUiTree(huge);
const hugeOutput = `UI hierchary dumped to: /data/local/tmp/x.xml\n${huge}\n`;
// 40,000 buttons all named "Sign in": the screen that blocked the event loop 13 s when matching
// was quadratic (issue 27).
const sameNamed = parseUiTree(
  `<hierarchy><node bounds="[0,0][1080,2400]">${
    Array.from({ length: 40_000 }, (_, i) =>
      `<node text="Sign in" clickable="true" bounds="[${i % 1000},${Math.floor(i / 1000)}][${
        (i % 1000) + 1
      },${Math.floor(i / 1000) + 1}]"/>`).join("")
  }</node></hierarchy>`,
);
// Long runs of spaces are where a careless coordinate regex backtracks quadratically.
const spacedAnswer = ("x=540" + " ".repeat(2000) + "(12, 34) at 56,78 ").repeat(50);

const cases: { name: string; group: string; runs: number; fn: () => void }[] = [
  { name: "parseUiTree 100 KB dump", group: "parse", runs: 200, fn: () => parseUiTree(typical) },
  { name: "parseUiTree 5 MB dump", group: "parse", runs: 21, fn: () => parseUiTree(huge) },
  {
    name: "summarizeUiTree 100 KB dump",
    group: "summary",
    runs: 200,
    fn: () => summarizeUiTree(typicalElements),
  },
  {
    name: "summarizeUiTree 5 MB dump",
    group: "summary",
    runs: 21,
    fn: () => summarizeUiTree(hugeElements),
  },
  {
    name: "extractDump 5 MB output",
    group: "pipeline",
    runs: 200,
    fn: () => extractDump(hugeOutput),
  },
  {
    name: "extract + parse + summarize 100 KB",
    group: "pipeline",
    runs: 200,
    fn: () => {
      const dump = extractDump(typical);
      if (dump.ok) summarizeUiTree(parseUiTree(dump.xml));
    },
  },
  {
    name: 'findElement "Like" on the 5 MB dump',
    group: "names",
    runs: 21,
    fn: () => findElement(hugeElements, "Like"),
  },
  {
    name: "findElement on 40,000 same-named elements",
    group: "names",
    runs: 21,
    fn: () => findElement(sameNamed, "Sign in"),
  },
  {
    name: "extractPoints 100 KB answer full of spaces",
    group: "fusion",
    runs: 200,
    fn: () => extractPoints(spacedAnswer, { width: 1080, height: 2400 }),
  },
];

for (const c of cases) Deno.bench({ name: c.name, group: c.group, fn: c.fn });

if (import.meta.main) {
  const lines = [`dump sizes: ${typical.length} and ${huge.length} chars`];
  // Warm every case first so the JIT has settled before anything is timed.
  for (const c of cases) for (let i = 0; i < 5; i++) c.fn();
  for (const c of cases) {
    const times: number[] = [];
    for (let i = 0; i < c.runs; i++) {
      const start = performance.now();
      c.fn();
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)] ?? NaN;
    lines.push(`${c.name.padEnd(44)} median ${median.toFixed(3).padStart(9)} ms (${c.runs} runs)`);
  }
  // deno-lint-ignore no-console
  console.log(lines.join("\n"));
}
