// Typing any language end to end, as rows: each script typed through ADB Keyboard into the sim's
// text field, the previous input method restored. e2e_typing_test.ts runs a sample of the rows
// (ASCII, and the row that holds every UTF-8 length);
// tests/long/typing_matrix_test.ts runs them all, and the wait for a keyboard that never starts.

import assert from "node:assert/strict";
import { textOf } from "./in_process.ts";
import type { Rig } from "./rig.ts";
import { SIM_DEFAULT_IME } from "../../sim/sim_phone.ts";

/** Label and text of each row. */
export const MATRIX: ReadonlyArray<readonly [string, string]> = [
  ["ASCII", `it's 100%sure "ok"`],
  ["Latin accents", "héllo déjà vu, Ærøskøbing, ñandú"],
  ["CJK", "你好，世界 こんにちは 안녕하세요"],
  ["emoji", "👋🏽 family 👨‍👩‍👧 flag 🇫🇷"],
  ["all at once", "héllo 你好 👋"],
];

/** phone_type through the rig's phone-eye, without settling: each row reads the field itself. */
export async function typeText(r: Rig, text: string): Promise<{ isError: boolean; text: string }> {
  const result = await r.call("phone_type", { text, settle: false });
  return { isError: result.isError === true, text: textOf(result) };
}

/**
 * One row on a phone with ADB Keyboard and the Notes field focused: the text arrives exactly,
 * ASCII through `input text`, the rest through ADB Keyboard, and the user's keyboard comes back.
 */
export async function typeRowWithKeyboard(r: Rig, label: string, text: string): Promise<void> {
  await r.sim.setScreen({ notesText: "" });
  const before = r.sim.toolCalls("ime").length;
  const typed = await typeText(r, text);
  assert.equal(typed.isError, false, typed.text);
  assert.equal(r.sim.screen().text, text);
  const ime = await r.sim.ime();
  assert.equal(ime.selected, SIM_DEFAULT_IME, "the previous input method is selected again");
  assert.deepEqual(ime.enabled, [SIM_DEFAULT_IME], "ADB Keyboard is disabled again");
  if (label === "ASCII") {
    assert.equal(typed.text, `Typed ${text.length} characters.`);
    assert.equal(r.sim.toolCalls("ime").length, before, "ASCII keeps `input text`");
  } else {
    assert.match(
      typed.text,
      new RegExp(
        `^Typed ${[...text].length} characters through ADB Keyboard\\. The previous keyboard \\(${
          SIM_DEFAULT_IME.replaceAll(".", "\\.")
        }\\) is selected again\\.$`,
      ),
    );
  }
}

/**
 * With no text field focused ADB Keyboard never starts listening: phone-eye's wait on the phone
 * gives up after READY_POLLS checks (3 s of a device-side loop), sends anyway and says so.
 */
export async function typeWithNoFieldFocused(r: Rig): Promise<void> {
  await r.sim.setScreen({ app: "home" });
  const typed = await typeText(r, "你好");
  assert.equal(typed.isError, false, typed.text);
  assert.match(typed.text, /^Sent 2 characters to ADB Keyboard, but it had not started/);
  assert.match(typed.text, /tap the field and call phone_type again/);
  assert.equal((await r.sim.ime()).selected, SIM_DEFAULT_IME);
  await r.sim.setScreen({ app: "notes" });
}
