// The generated tables of the docs match the code they come from, each in the file that holds it
// (scripts/readme_tools.ts, GENERATED_FILES): the tool table in README.md, the configuration table
// in docs/configuration.md, the reliability and soak tables in docs/reliability.md.

import assert from "node:assert/strict";
import {
  CONFIG_END,
  CONFIG_SECTION,
  CONFIG_START,
  END,
  GENERATED_FILES,
  normalizeTable,
  readSection,
  RELIABILITY_END,
  RELIABILITY_SECTION,
  RELIABILITY_START,
  renderConfigTable,
  renderReliabilityTable,
  renderSoakTable,
  renderToolTable,
  type Section,
  SOAK_SECTION,
  staleSections,
  START,
  TOOL_SECTION,
  updateSections,
} from "../../scripts/readme_tools.ts";
import { ENV_HELP } from "../../lib/app/help.ts";
import { TOOLS } from "../../lib/tools/index.ts";
import { RELIABILITY_CASES } from "./reliability_cases.ts";

/** A file of the repository, by its path from the root. */
const readDoc = (path: string) => Deno.readTextFile(new URL(`../../${path}`, import.meta.url));

/** The file GENERATED_FILES names for `section`: the one the generator writes it into. */
function fileOf(section: Section): string {
  const files = Object.entries(GENERATED_FILES).filter(([, sections]) =>
    sections.includes(section)
  );
  assert.equal(files.length, 1, `${section.what} is generated into exactly one file`);
  return files[0]![0];
}

Deno.test("each generated section lives in one file, and only that file holds its markers", async () => {
  const all = Object.values(GENERATED_FILES).flat();
  for (const [file, sections] of Object.entries(GENERATED_FILES)) {
    const text = await readDoc(file);
    for (const section of all) {
      const holds = text.includes(section.start) && text.includes(section.end);
      assert.equal(holds, sections.includes(section), `${file} and the ${section.what}`);
    }
    assert.deepEqual(
      staleSections(text, sections),
      [],
      `${file} is stale: run \`deno task readme\``,
    );
  }
  assert.equal(fileOf(TOOL_SECTION), "README.md");
});

Deno.test("the README's tool table matches the tool list (run `deno task readme` if not)", async () => {
  const readme = await readDoc(fileOf(TOOL_SECTION));
  assert.equal(
    readSection(readme, TOOL_SECTION),
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

Deno.test("the docs' configuration table matches lib/app/help.ts (run `deno task readme` if not)", async () => {
  const file = fileOf(CONFIG_SECTION);
  const doc = await readDoc(file);
  assert.equal(
    readSection(doc, CONFIG_SECTION),
    normalizeTable(renderConfigTable()),
    `${file}'s configuration table is stale: run \`deno task readme\``,
  );
  for (const row of ENV_HELP) assert.ok(doc.includes(`| \`${row.name}\``), row.name);
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
    const all = [TOOL_SECTION, CONFIG_SECTION, RELIABILITY_SECTION, SOAK_SECTION];
    const fresh =
      `# x\n\n${renderToolTable()}\n\n${renderConfigTable()}\n\n${renderReliabilityTable()}\n\n${renderSoakTable()}\n\nafter\n`;
    const stale = fresh.replace("limit for each adb call", "limit for each call");
    assert.notEqual(readSection(stale, CONFIG_SECTION), normalizeTable(renderConfigTable()));
    assert.deepEqual(staleSections(stale, all), ["configuration table"]);
    assert.equal(updateSections(stale, all), fresh);
    assert.throws(() => updateSections("# no markers", all), /lacks the tool table markers/);
  },
});

Deno.test("the docs' soak table matches tests/long/soak_figures.json (run `deno task readme` if not)", async () => {
  const file = fileOf(SOAK_SECTION);
  const doc = await readDoc(file);
  assert.equal(
    readSection(doc, SOAK_SECTION),
    normalizeTable(renderSoakTable()),
    `${file}'s soak table is stale: run \`deno task readme\``,
  );
});

Deno.test("the docs' reliability table matches the cases the reliability test runs (run `deno task readme` if not)", async () => {
  const file = fileOf(RELIABILITY_SECTION);
  const doc = await readDoc(file);
  assert.equal(
    readSection(doc, RELIABILITY_SECTION),
    normalizeTable(renderReliabilityTable()),
    `${file}'s reliability table is stale: run \`deno task readme\``,
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
    const all = [TOOL_SECTION, CONFIG_SECTION, RELIABILITY_SECTION, SOAK_SECTION];
    assert.notEqual(readSection(stale, RELIABILITY_SECTION), normalizeTable(table));
    assert.equal(
      readSection(updateSections(stale, all), RELIABILITY_SECTION),
      normalizeTable(table),
    );
  },
});
