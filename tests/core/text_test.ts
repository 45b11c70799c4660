// The one way phone-eye cuts text (lib/core/text.ts): shown text ends in "…" and keeps graphemes whole;
// text that is read (a vision answer's points) is cut silently; excerpts are one flat line.

import assert from "node:assert/strict";
import { excerpt, truncate } from "../../lib/core/text.ts";

function test(name: string, fn: () => void): void {
  Deno.test({ name, permissions: "none", fn });
}

test("truncate cuts on grapheme boundaries, and between code points only inside one huge grapheme", () => {
  assert.equal(truncate("short", 10), "short");
  assert.equal(truncate("abcdefghijk", 5), "abcd…");
  // A family emoji is 11 units: it is kept whole or left out, never split.
  const family = "👨‍👩‍👧‍👦";
  assert.equal(truncate(`ab${family}${family}`, 14), `ab${family}…`);
  assert.equal(truncate(`ab${family}cd`, 12), "ab…");
  // One grapheme longer than the cap: cut between code points, never inside a surrogate pair.
  const huge = "e" + "\u0301".repeat(50);
  assert.equal(truncate(huge, 10), `${huge.slice(0, 9)}…`);
  const astral = "😀" + "\u0301".repeat(20);
  assert.equal(truncate(astral, 4), "😀\u0301…");
  assert.equal(truncate(astral, 2), "…");
});

test("truncate decides a grapheme at the cut from the text before it, however long the rest", () => {
  // The flag at the cut is whole in the first 12 units only with its second regional indicator.
  const flag = "🇫🇷";
  assert.equal(truncate(`abcdefghij${flag}${"x".repeat(100_000)}`, 13), "abcdefghij…");
  assert.equal(truncate(`abcdefghij${flag}${"x".repeat(100_000)}`, 15), `abcdefghij${flag}…`);
  // An accent after the cut belongs to the letter before it: the letter goes too.
  assert.equal(truncate(`abcde\u0301fgh`, 6), "abcd…");
});

test("truncate with no mark cuts silently, keeping an emoji whole", () => {
  assert.equal(truncate("at (100, 200) and (300, 400)", 18, ""), "at (100, 200) and");
  assert.equal(truncate("ab😀cd", 3, ""), "ab");
  assert.equal(truncate("ab😀cd", 4, ""), "ab😀");
  assert.equal(truncate("abc", Infinity, ""), "abc");
});

test("excerpt is one line of at most max units, cut with a mark", () => {
  assert.equal(excerpt("  error:\n\tdevice\r\n offline  "), "error: device offline");
  assert.equal(excerpt("x".repeat(400)), `${"x".repeat(299)}…`);
  assert.equal(excerpt("one two three", 9), "one two…");
  assert.equal(excerpt(""), "");
});
