// The UI tree at scale and at random: the parser on a 5 MB dump, and the round trip (every label
// [ui-tree] prints finds its element by name) over thousands of generated screens shaped like the
// corpus's (tests/fixtures/ui/corpus.ts). `deno task test:long`; PHONE_EYE_UI_SEED replays a run.

import assert from "node:assert/strict";
import { extractDump, parseUiTree } from "../../lib/screen/ui_tree.ts";
import { summarizeUiTree } from "../../lib/screen/ui_tree_summary.ts";
import { makeDump } from "../fixtures/ui/big_dump.ts";
import { roundTripMisses } from "../fixtures/ui/round_trip.ts";
import { randomScreen } from "../fixtures/ui/random_screen.ts";
import { seededRandom } from "../helpers/prng.ts";

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

Deno.test({
  name: "on thousands of generated screens, every label [ui-tree] prints finds its element by name",
  permissions: { env: ["PHONE_EYE_UI_SEED", "PHONE_EYE_UI_SCREENS"] },
  fn() {
    const rng = seededRandom("PHONE_EYE_UI_SEED");
    const screens = Number(Deno.env.get("PHONE_EYE_UI_SCREENS") ?? 2000);
    for (let i = 0; i < screens; i++) {
      const screen = randomScreen(rng);
      const misses = roundTripMisses(screen);
      // The seed replays the run; randomScreen(randomFrom(seed)) called i + 1 times, the screen.
      assert.deepEqual(misses, [], `PHONE_EYE_UI_SEED=${rng.seed}, screen ${i}`);
    }
  },
});
