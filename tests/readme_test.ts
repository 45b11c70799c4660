import assert from "node:assert/strict";
import {
  END,
  normalizeTable,
  readmeTable,
  renderToolTable,
  START,
} from "../scripts/readme_tools.ts";
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
      /\| `phone_tap` \| `x: int`, `y: int`, `hold_ms\?: int` \| acts on the phone \|/,
    );
    assert.match(table, /`duration_ms\?: int = 300`/);
  },
});
