import assert from "node:assert/strict";
import {
  CONFIG_END,
  CONFIG_START,
  END,
  normalizeTable,
  readmeConfigTable,
  readmeTable,
  renderConfigTable,
  renderToolTable,
  START,
  updateReadme,
} from "../scripts/readme_tools.ts";
import { ENV_TABLE } from "../lib/env_vars.ts";
import { TOOLS } from "../lib/tools/index.ts";

Deno.test("the README's tool table matches the tool list (run `deno task readme` if not)", async () => {
  const readme = await Deno.readTextFile(new URL("../README.md", import.meta.url));
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
      /\| `phone_tap` \| `x: int`, `y: int`, `count\?: int`, `hold_ms\?: int` \| acts on the phone \|/,
    );
    assert.match(table, /`duration_ms\?: int = 300`/);
    // A union's pipe is escaped, or it would split the table's cell.
    assert.match(table, /\| `phone_key` \| `key: string \\\| number` \| acts on the phone \|/);
  },
});

Deno.test("the README's configuration table matches lib/env_vars.ts (run `deno task readme` if not)", async () => {
  const readme = await Deno.readTextFile(new URL("../README.md", import.meta.url));
  assert.equal(
    readmeConfigTable(readme),
    normalizeTable(renderConfigTable()),
    "README.md's configuration table is stale: run `deno task readme`",
  );
  for (const row of ENV_TABLE) assert.ok(readme.includes(`| \`${row.name}\``), row.name);
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
    assert.equal(table.split("\n").length, ENV_TABLE.length + 4);
  },
});

Deno.test({
  name: "a stale configuration table is caught and rewritten in place",
  permissions: "none",
  fn() {
    const fresh = `# x\n\n${renderToolTable()}\n\n${renderConfigTable()}\n\nafter\n`;
    const stale = fresh.replace("limit for each adb call", "limit for each call");
    assert.notEqual(readmeConfigTable(stale), normalizeTable(renderConfigTable()));
    assert.equal(updateReadme(stale), fresh);
    assert.throws(() => updateReadme("# no markers"), /lacks the tool table markers/);
  },
});
