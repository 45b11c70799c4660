// Every row of the typing matrix through ADB Keyboard (tests/helpers/typing_rows.ts), and the wait
// for a keyboard that never starts listening; e2e_typing_test.ts types a sample of the rows.

import { startRig } from "../helpers/rig.ts";
import { MATRIX, typeRowWithKeyboard, typeWithNoFieldFocused } from "../helpers/typing_rows.ts";

Deno.test("typing matrix with ADB Keyboard: every script arrives exactly, and the user's keyboard comes back", async (t) => {
  await using r = await startRig({ phones: [{ adbKeyboard: true }] });
  await r.sim.setScreen({ app: "notes", notesText: "" });
  for (const [label, text] of MATRIX) {
    await t.step(label, () => typeRowWithKeyboard(r, label, text));
  }
  await t.step(
    "no text field focused: sent, but said to be unconfirmed, and the keyboard restored",
    () => typeWithNoFieldFocused(r),
  );
});
