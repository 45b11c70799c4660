// Over the corpus of realistic screens: every label phone_look prints finds its element through
// phone_tap's lookup, as printed and as a model might retype it; every screen parses and fits.

import assert from "node:assert/strict";
import { CORPUS } from "../fixtures/ui/corpus.ts";
import { roundTripMisses, uiTreeLines } from "../fixtures/ui/round_trip.ts";
import { extractDump, parseUiTree } from "../../lib/screen/ui_tree.ts";

for (const screen of CORPUS) {
  Deno.test({
    name: `every label [ui-tree] prints on ${screen.name} finds its element by name`,
    permissions: "none",
    fn() {
      assert.deepEqual(roundTripMisses(screen.output), []);
    },
  });
}

Deno.test({
  name: "the corpus covers what real screens hold, and no printed line holds a control character",
  permissions: "none",
  fn() {
    const lines = CORPUS.flatMap((s) => {
      const dump = extractDump(s.output);
      assert.ok(dump.ok, s.name);
      return uiTreeLines(parseUiTree(dump.xml));
    });
    const all = lines.join("\n");
    for (
      const [what, shape] of [
        ["a cut label", /…\s@ \[/],
        ["a class shown apart", /^\(\w+\) @ \[/m],
        ["right-to-left text", /[\u05d0-\u05ea\u0600-\u06ff]/],
        ["CJK text", /[\u4e00-\u9fff\u3040-\u30ff\uac00-\ud7af]/],
        ["an emoji sequence", /\u200d/],
        ["a keyboard key", /^q @ \[/m],
        ["a resource-id name", /^checkout_book_order|^item_card @/m],
      ] as const
    ) {
      assert.match(all, shape, `no line shows ${what}`);
    }
    // deno-lint-ignore no-control-regex
    assert.doesNotMatch(all.replaceAll("\n", " "), /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
  },
});
