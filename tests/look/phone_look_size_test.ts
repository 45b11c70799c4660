// The largest phone_look result stays well under what clients accept: Claude Code cuts a tool
// result near 25,000 tokens (docs/clients.md). Built from the worst case, measured whole.

import assert from "node:assert/strict";
import { SUMMARY_MAX } from "../../lib/screen/ui_tree_summary.ts";
import { MAX_POINTS } from "../../lib/look/fusion.ts";
import { lookAnswer } from "../../lib/look/look.ts";
import { POINTS_SHOWN_MAX } from "../../lib/look/words.ts";
import { lookResult } from "../../lib/tools/phone_look.ts";
import { type Script, SCRIPTS, worstLook } from "../fixtures/worst_look.ts";

const CLIENT_CAP_TOKENS = 25_000;
/** "Well under": half the cap, leaving room for a tokenizer less kind than the estimates. */
const LIMIT_TOKENS = CLIENT_CAP_TOKENS / 2;

/**
 * Tokens by the more pessimistic of two common estimates: a token per 3.5 characters (English
 * text) or per 4 UTF-8 bytes (scripts of 3-byte characters, emoji).
 */
function estimateTokens(wire: string): number {
  const bytes = new TextEncoder().encode(wire).length;
  return Math.ceil(Math.max(wire.length / 3.5, bytes / 4));
}

for (const script of Object.keys(SCRIPTS) as Script[]) {
  Deno.test({
    name: `the largest phone_look in ${script} text stays under half of Claude Code's token cap`,
    permissions: "none",
    fn() {
      const result = lookResult(lookAnswer(worstLook(script)));
      // The whole result as the client receives it: JSON escaping counts too.
      const wire = JSON.stringify(result);
      const tokens = estimateTokens(wire);
      assert.ok(
        tokens <= LIMIT_TOKENS,
        `${tokens} estimated tokens (${wire.length} chars) > ${LIMIT_TOKENS}`,
      );
      // The worst case really is one: every part at its cap, nothing left for a client to drop.
      assert.equal(result.structuredContent, undefined);
      const text = (result.content[0] as { text: string }).text;
      const tree = text.split("[ui-tree]\n")[1]?.split("\n\n")[0]?.split("\n") ?? [];
      assert.equal(tree.length, SUMMARY_MAX);
      const points = text.split("[points]\n")[1]?.split("\n\n")[0]?.split("\n") ?? [];
      assert.equal(points.length, Math.min(MAX_POINTS, POINTS_SHOWN_MAX));
      assert.ok(points.every((p) => p.includes("→ nearest ")), points[0]);
      assert.match(text, /\(answer cut to its first \d+ of 2\d{5} characters;/);
      assert.match(text, /\(note: "screencap -p" returned an empty PNG/);
      assert.match(text, /\nSaved to \/home\/someone\/.*\.png\.$/);
    },
  });
}
