// The one check for control characters and text beyond printable ASCII, and the one way messages
// name a character.

import assert from "node:assert/strict";
import { characterName, scanCharacters } from "../../lib/core/characters.ts";

Deno.test({
  name: "a character is named one way everywhere: its common name, then U+XXXX",
  permissions: "none",
  fn() {
    assert.equal(characterName("\0"), "NUL, U+0000");
    assert.equal(characterName("\n"), "newline, U+000A");
    assert.equal(characterName("\t"), "tab, U+0009");
    assert.equal(characterName("\x1b"), "escape, U+001B");
    assert.equal(characterName("\x7f"), "DEL, U+007F");
    assert.equal(characterName("\x07"), "U+0007");
    assert.equal(characterName("é"), "U+00E9");
    assert.equal(characterName("你"), "U+4F60");
    assert.equal(characterName("👋"), "U+1F44B");
  },
});

Deno.test({
  name: "scanCharacters finds the first control character and the first beyond ASCII, apart",
  permissions: "none",
  fn() {
    assert.deepEqual(scanCharacters(`Hello ~\`$(x)'"\\ 100%s`), {
      control: undefined,
      beyondAscii: undefined,
    });
    // Each class is found even when the other comes first.
    assert.deepEqual(scanCharacters("é\n你\t"), { control: "\n", beyondAscii: "é" });
    assert.deepEqual(scanCharacters("a\x7fb"), { control: "\x7f", beyondAscii: undefined });
    assert.deepEqual(scanCharacters("👋"), { control: undefined, beyondAscii: "👋" });
    assert.deepEqual(scanCharacters("\ud800"), { control: undefined, beyondAscii: "\ud800" });
    assert.deepEqual(scanCharacters(""), { control: undefined, beyondAscii: undefined });
  },
});
