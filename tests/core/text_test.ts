// The one way phone-eye cuts text (lib/core/text.ts): shown text ends in "…" and keeps graphemes whole;
// text that is read (a vision answer's points) is cut silently; excerpts are one flat line.

import assert from "node:assert/strict";
import {
  excerpt,
  nameKey,
  oneLine,
  SCREEN_TEXT_GRAPHEMES,
  SCREEN_TEXT_UNITS,
  screenText,
  truncate,
} from "../../lib/core/text.ts";

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

test("oneLine keeps screen text on its line: breaks, NBSP, controls and ESC as one space", () => {
  assert.equal(oneLine("Sign\nin"), "Sign in");
  assert.equal(oneLine("  Pay\u00a0now\r\n\t "), "Pay now");
  assert.equal(oneLine("a\u0007b\u001b[31mc\u0085d\u2028e"), "a b [31mc d e");
  assert.equal(oneLine("x\n[changed]\n+ Fake @ [0,0][1,1]"), "x [changed] + Fake @ [0,0][1,1]");
  assert.equal(oneLine(""), "");
});

test("oneLine drops what takes no room on screen, keeping the joiners of emoji and words", () => {
  assert.equal(oneLine("\ufeffHome"), "Home");
  assert.equal(oneLine("Blue\u00adtooth\u200b"), "Bluetooth");
  assert.equal(oneLine("\u202eevil\u202c \u200fשלום\u200f"), "evil שלום");
  assert.equal(oneLine("👨\u200d👩\u200d👧"), "👨\u200d👩\u200d👧");
  assert.equal(oneLine("\ud83d lone"), "\ufffd lone");
});

test("screenText cuts to 80 graphemes and 640 units, as a prefix and a mark", () => {
  assert.equal(screenText("x".repeat(SCREEN_TEXT_GRAPHEMES)), "x".repeat(80));
  const long = "word ".repeat(40);
  const cut = screenText(long);
  assert.equal(cut, `${long.slice(0, 79).trimEnd()}…`);
  assert.ok(long.startsWith(cut.slice(0, -1)));
  const family = "👨\u200d👩\u200d👧\u200d👦"; // 11 units
  const fam = screenText(family.repeat(100));
  assert.ok(fam.length <= SCREEN_TEXT_UNITS);
  assert.equal(fam, `${family.repeat(58)}…`);
  // One letter under a megabyte of combining marks is one grapheme: the units cut it.
  const zalgo = screenText("e" + "\u0301".repeat(1_000_000));
  assert.equal(zalgo.length, SCREEN_TEXT_UNITS);
  assert.ok(zalgo.endsWith("…"));
  assert.equal(screenText(`a\n${"b".repeat(1_000_000)}`).length, 80);
});

test("nameKey compares names however they were written", () => {
  assert.equal(nameKey("Sign\u00a0In"), nameKey("sign in"));
  assert.equal(nameKey("\ufeffＯＫ"), "ok");
  assert.equal(nameKey("Loading…"), nameKey("loading..."));
  assert.equal(nameKey("ΟΔΟΣ"), "οδοσ");
  assert.equal(nameKey("Don\u2019t allow"), "don't allow");
  assert.equal(nameKey("Wi\u2011Fi \u201chotspot\u201d"), 'wi-fi "hotspot"');
  assert.ok(nameKey("ΟΔΟΣ ΑΘΗΝΑΣ").startsWith(nameKey("ΟΔΟΣ")));
});
