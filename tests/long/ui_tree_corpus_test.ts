// The UI-tree parser on a 5 MB dump, the size the adb runner's text cap is set against (three
// times it, lib/adb/runner.ts). tests/screen/ui_tree_test.ts reads a 1 MB one. `deno task test:long`.

import assert from "node:assert/strict";
import { extractDump, parseUiTree } from "../../lib/screen/ui_tree.ts";
import { summarizeUiTree } from "../../lib/screen/ui_tree_summary.ts";
import { makeDump } from "../fixtures/ui/big_dump.ts";

Deno.test({
  name: "parseUiTree reads a 5 MB dump completely",
  permissions: "none",
  fn() {
    const xml = makeDump(5 * 1024 * 1024);
    assert.ok(xml.length >= 5 * 1024 * 1024);
    const dump = extractDump(xml);
    assert.ok(dump.ok, `expected XML, got ${JSON.stringify(dump).slice(0, 200)}`);
    const elements = parseUiTree(dump.xml);
    const items = (elements.length - 1) / 6;
    assert.ok(Number.isInteger(items) && items > 2000, `${elements.length} elements`);
    assert.equal(elements.at(-1)?.label, "Like");
    assert.equal(elements.at(-2)?.text, `Body of post ${items - 1}: <b>bold</b> 😀`);
    assert.equal(summarizeUiTree(elements).lines.length, 40);
  },
});
