import assert from "node:assert/strict";
import {
  CONFIG_END,
  CONFIG_START,
  END,
  normalizeTable,
  readmeConfigTable,
  readmeReliabilityTable,
  readmeSoakTable,
  readmeTable,
  RELIABILITY_END,
  RELIABILITY_START,
  renderConfigTable,
  renderReliabilityTable,
  renderSoakTable,
  renderToolTable,
  START,
  updateReadme,
} from "../../scripts/readme_tools.ts";
import { ENV_HELP } from "../../lib/app/help.ts";
import { TOOLS } from "../../lib/tools/index.ts";
import { RELIABILITY_CASES } from "./reliability_cases.ts";

Deno.test("the README's tool table matches the tool list (run `deno task readme` if not)", async () => {
  const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
  assert.equal(
    readmeTable(readme),
    normalizeTable(renderToolTable()),
    "README.md's tool table is stale: run `deno task readme`",
  );
  for (const tool of TOOLS) assert.ok(readme.includes(`| \`${tool.name}\``), tool.name);
});

Deno.test({
  name: "the tool table lists every argument with its type and default",
  permissions: "none",
  fn() {
    const table = renderToolTable();
    assert.ok(table.startsWith(START) && table.endsWith(END));
    assert.match(
      table,
      /\| `phone_tap` \| `device\?: string`, `x\?: int`, `y\?: int`, `element\?: string`, `count\?: int`, `hold_ms\?: int`, `settle\?: boolean = true` \| acts on the phone \|/,
    );
    assert.match(table, /`duration_ms\?: int = 300`/);
    // A union's pipe is escaped, or it would split the table's cell.
    assert.match(
      table,
      /\| `phone_key` \| `device\?: string`, `key: string \\\| number`, `settle\?: boolean = true` \| acts on the phone \|/,
    );
  },
});

Deno.test("the README's configuration table matches lib/app/help.ts (run `deno task readme` if not)", async () => {
  const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
  assert.equal(
    readmeConfigTable(readme),
    normalizeTable(renderConfigTable()),
    "README.md's configuration table is stale: run `deno task readme`",
  );
  for (const row of ENV_HELP) assert.ok(readme.includes(`| \`${row.name}\``), row.name);
});

Deno.test({
  name: "the configuration table shows each variable's flag, meaning and default",
  permissions: "none",
  fn() {
    const table = renderConfigTable();
    assert.ok(table.startsWith(CONFIG_START) && table.endsWith(CONFIG_END));
    assert.match(table, /^\| `ANDROID_SERIAL` \/ `--serial` \| .* \| adb's default device \|$/m);
    assert.match(table, /^\| `PHONE_EYE_VISION_MODEL` \| model name .* \| `gpt-4o-mini` \|$/m);
    assert.match(table, /^\| `PHONE_EYE_SHOTS` \| .* \| unset \|$/m);
    assert.equal(table.split("\n").length, ENV_HELP.length + 4);
  },
});

Deno.test({
  name: "a stale configuration table is caught and rewritten in place",
  permissions: "none",
  fn() {
    const fresh =
      `# x\n\n${renderToolTable()}\n\n${renderConfigTable()}\n\n${renderReliabilityTable()}\n\n${renderSoakTable()}\n\nafter\n`;
    const stale = fresh.replace("limit for each adb call", "limit for each call");
    assert.notEqual(readmeConfigTable(stale), normalizeTable(renderConfigTable()));
    assert.equal(updateReadme(stale), fresh);
    assert.throws(() => updateReadme("# no markers"), /lacks the tool table markers/);
  },
});

Deno.test("the README's soak table matches tests/adb/soak_figures.json (run `deno task readme` if not)", async () => {
  const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
  assert.equal(
    readmeSoakTable(readme),
    normalizeTable(renderSoakTable()),
    "README.md's soak table is stale: run `deno task readme`",
  );
});

Deno.test("the README's reliability table matches the cases the reliability test runs (run `deno task readme` if not)", async () => {
  const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
  assert.equal(
    readmeReliabilityTable(readme),
    normalizeTable(renderReliabilityTable()),
    "README.md's reliability table is stale: run `deno task readme`",
  );
});

Deno.test({
  name: "the reliability table has one row per case, in three columns, with unique ids",
  permissions: "none",
  fn() {
    const table = renderReliabilityTable();
    assert.ok(table.startsWith(RELIABILITY_START) && table.endsWith(RELIABILITY_END));
    const rows = table.split("\n").slice(3, -1);
    assert.equal(rows.length, RELIABILITY_CASES.length);
    for (const row of rows) assert.equal(row.split(/(?<!\\)\|/).length, 5, row);
    assert.equal(new Set(RELIABILITY_CASES.map((c) => c.id)).size, RELIABILITY_CASES.length);
    const fresh = `${renderToolTable()}\n${renderConfigTable()}\n${table}\n${renderSoakTable()}\n`;
    const stale = fresh.replace("Several phones attached", "Two phones");
    assert.notEqual(readmeReliabilityTable(stale), normalizeTable(table));
    assert.equal(readmeReliabilityTable(updateReadme(stale)), normalizeTable(table));
  },
});
