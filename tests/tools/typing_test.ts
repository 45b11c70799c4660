// Typing any language, end to end: main.ts under the production permission set, the real adb and
// the simulated phone with and without ADB Keyboard. The matrix: ASCII, Latin accents, CJK and
// emoji, each checked in the sim's text field, and the previous input method always restored.
// With ADB Keyboard this file types a sample of the rows (tests/helpers/typing_rows.ts): ASCII,
// and one text with every UTF-8 length; tests/long/typing_matrix_test.ts types them all.

import assert from "node:assert/strict";
import { type Rig, startRig, type ToolResult } from "../helpers/rig.ts";
import { ADB_KEYBOARD_IME, SIM_DEFAULT_IME, type SimPhone } from "../../sim/sim_phone.ts";
import { MATRIX, typeRowWithKeyboard, typeText } from "../helpers/typing_rows.ts";
import { textOf } from "../helpers/in_process.ts";
import { type PhoneEyeProcess, startPhoneEye } from "../helpers/phone_eye.ts";

/**
 * The rig as one of its phones sees it: `sim` is that phone, and every call names it as `device`
 * to the phone-eye that drives all four (PHONE_EYE_DEVICES), so the rows in tests/long read it as
 * a rig of their own.
 */
function phoneOf(r: Rig, eye: PhoneEyeProcess, sim: SimPhone): Rig {
  const outputs: string[] = [];
  return {
    sim,
    sims: [sim],
    adb: r.adb,
    eye,
    client: eye.client,
    serial: sim.serial,
    env: r.env,
    outputs,
    stderr: () => eye.stderr(),
    async call(name, args = {}) {
      const result = await eye.client.callTool({
        name,
        arguments: { ...args, device: sim.serial },
      });
      outputs.push(JSON.stringify(result));
      return result as ToolResult;
    },
    [Symbol.asyncDispose]: () => Promise.resolve(),
  };
}

/** The rows typed here: ASCII (`input text`), and 2-, 3- and 4-byte UTF-8 in one text. */
const SAMPLE = MATRIX.filter(([label]) => ["ASCII", "all at once"].includes(label));

/** On a phone with ADB Keyboard. */
async function withKeyboard(t: Deno.TestContext, r: Rig): Promise<void> {
  await r.sim.setScreen({ app: "notes", notesText: "" });
  for (const [label, text] of SAMPLE) {
    await t.step(label, () => typeRowWithKeyboard(r, label, text));
  }

  await t.step("round trips: one read-only query, one switch-and-type, one restore", () => {
    const commands = r.sim.commands().filter((c) => c.includes("ime "));
    const last = commands.slice(-3);
    assert.match(last[0]!, /^ime list -a -s; .*ime list -s; .*settings get secure/);
    assert.match(last[1]!, /ime enable .*ime set .*am broadcast -a ADB_INPUT_B64 --es msg '/);
    assert.match(
      last[2]!,
      /^ime set 'com\.google[^']*' 2>&1; ime disable 'com\.android\.adbkeyboard/,
    );
  });

  await t.step(
    "element: the field's tap and the keyboard's typing are one command; a button is refused",
    async () => {
      await r.sim.setScreen({ app: "notes", notesText: "" });
      const start = r.sim.commands().length;
      const typed = await r.call("phone_type", {
        element: "note_text",
        text: "ça va",
        settle: false,
      });
      assert.equal(typed.isError, undefined, textOf(typed));
      assert.match(
        textOf(typed),
        /^Tapped "note_text" \(EditText, id note_text\) @ .*, then: Typed 5 characters through ADB Keyboard\./,
      );
      assert.equal(r.sim.screen().text, "ça va");
      const sent = r.sim.commands().slice(start);
      const taps = sent.filter((c) => c.startsWith("input tap"));
      assert.equal(taps.length, 1, sent.join("\n"));
      assert.match(taps[0]!, /^input tap \d+ \d+ && \{ .*ime set .*am broadcast -a ADB_INPUT_B64/);

      const refused = await r.call("phone_type", { element: "Clear", text: "ça" });
      assert.equal(refused.isError, true);
      assert.match(
        textOf(refused),
        /^Cannot type text: "Clear" names "Clear" \(Button, id clear\) @ .*, which is not a text field, so nothing was tapped or typed\..*\n- "ça va" \(EditText, id note_text\)/s,
      );
      assert.equal(r.sim.screen().text, "ça va", "Clear was not tapped");
    },
  );

  await t.step("ADB Keyboard already selected: typed, and left selected", async () => {
    const [ime, user] = [ADB_KEYBOARD_IME, SIM_DEFAULT_IME];
    await r.adb.adb("-s", r.sim.serial, "shell", `ime enable ${ime} && ime set ${ime}`);
    await r.sim.setScreen({ notesText: "" });
    const typed = await typeText(r, "ça va");
    assert.equal(typed.isError, false, typed.text);
    assert.equal(typed.text, "Typed 5 characters through ADB Keyboard.");
    assert.equal(r.sim.screen().text, "ça va");
    assert.equal((await r.sim.ime()).selected, ADB_KEYBOARD_IME);
    await r.adb.adb("-s", r.sim.serial, "shell", `ime set ${user} && ime disable ${ime}`);
  });

  await t.step(
    "the switch is refused (unknown id on stderr, exit 0): an error, nothing typed, keyboard back",
    async () => {
      await r.sim.setScreen({ notesText: "" });
      r.sim.faults.imeUnknown([ADB_KEYBOARD_IME]);
      try {
        const typed = await typeText(r, "héllo");
        assert.equal(typed.isError, true);
        assert.match(
          typed.text,
          /^Cannot type text: the phone refused to select ADB Keyboard \(Unknown input method com\.android\.adbkeyboard\/\.AdbIME cannot be (enabled|selected) for user #0\), so nothing was typed/,
        );
        assert.equal(r.sim.screen().text, "");
        assert.equal((await r.sim.ime()).selected, SIM_DEFAULT_IME);
      } finally {
        r.sim.faults.imeUnknown([]);
      }
    },
  );

  await t.step(
    "the link drops during the broadcast: the error says so, and the keyboard is still restored",
    async () => {
      r.sim.faults.dropAfterNext(/am broadcast/);
      const typed = await typeText(r, "déjà");
      assert.equal(typed.isError, true);
      assert.match(typed.text, /had dropped; phone-eye reconnected but did not repeat/);
      const ime = await r.sim.ime();
      assert.equal(ime.selected, SIM_DEFAULT_IME);
      assert.deepEqual(ime.enabled, [SIM_DEFAULT_IME]);
    },
  );

  await t.step("control characters are still refused before anything is sent", async () => {
    const sent = r.sim.commands().length;
    const typed = await typeText(r, "你好\n世界");
    assert.equal(typed.isError, true);
    assert.match(typed.text, /control character \(newline, U\+000A\).*phone_key "enter"/);
    assert.equal(r.sim.commands().length, sent);
  });
}

/** On a phone without ADB Keyboard: every row of the matrix. */
async function withoutKeyboard(t: Deno.TestContext, r: Rig): Promise<void> {
  await r.sim.setScreen({ app: "notes", notesText: "" });
  for (const [label, text] of MATRIX) {
    await t.step(label, async () => {
      await r.sim.setScreen({ notesText: "" });
      const typed = await typeText(r, text);
      if (label === "ASCII") {
        assert.equal(typed.isError, false, typed.text);
        assert.equal(r.sim.screen().text, text);
        return;
      }
      assert.equal(typed.isError, true);
      const first = [...text].find((c) => c.codePointAt(0)! > 0x7e)!;
      assert.ok(typed.text.startsWith(`Cannot type ${JSON.stringify(first)} (U+`), typed.text);
      assert.match(typed.text, /this phone has no ADB Keyboard/);
      assert.match(typed.text, /https:\/\/github\.com\/senzhk\/ADBKeyBoard\/releases/);
      assert.match(typed.text, /adb install ADBKeyboard\.apk/);
      assert.equal(r.sim.screen().text, "", "nothing typed");
      const ime = await r.sim.ime();
      assert.equal(ime.selected, SIM_DEFAULT_IME);
      assert.deepEqual(ime.enabled, [SIM_DEFAULT_IME]);
    });
  }
  await t.step("typing with no field focused says the text may have gone nowhere", async () => {
    await r.sim.setScreen({ app: "home" });
    const typed = await r.call("phone_type", { text: "milk" });
    assert.equal(typed.isError, undefined, textOf(typed));
    assert.match(
      textOf(typed),
      /^Typed 4 characters, but no text field has focus and the keyboard is down, so the text may have gone nowhere\./,
    );
    await r.sim.setScreen({ app: "notes", notesText: "" });
    const into = await r.call("phone_type", { text: "milk" });
    assert.match(textOf(into), /^Typed 4 characters\.\n\n\[changed\]/);
  });
  await t.step("without the keyboard, nothing is switched: only the read-only query ran", () => {
    assert.deepEqual(
      r.sim.toolCalls("ime").map((argv) => argv.join(" ")).filter((c) => !c.startsWith("list")),
      [],
    );
  });
}

Deno.test("typing any language: exact through ADB Keyboard, refused with the install steps without it, and the user's keyboard always comes back", async (t) => {
  // Four phones behind one phone-eye (PHONE_EYE_DEVICES); each step drives its own by `device`.
  await using r = await startRig({
    phones: [
      { adbKeyboard: true },
      { adbKeyboard: false },
      { androidVersion: 10, adbKeyboard: true },
      { shellV2: false, adbKeyboard: true },
    ],
    serial: null,
    phoneEye: false,
  });
  await using eye = await startPhoneEye({
    env: { ...r.env, PHONE_EYE_DEVICES: r.sims.map((sim) => sim.serial).join(",") },
  });
  const [keyboard, none, android10, legacy] = r.sims.map((sim) => phoneOf(r, eye, sim)) as [
    Rig,
    Rig,
    Rig,
    Rig,
  ];

  await t.step(
    "with ADB Keyboard: ASCII and mixed scripts arrive exactly, and the user's keyboard comes back",
    (t) => withKeyboard(t, keyboard),
  );
  await t.step(
    "the matrix without ADB Keyboard: ASCII types, everything else is refused with the install steps",
    (t) => withoutKeyboard(t, none),
  );
  for (
    const [label, phone] of [
      ["ADB Keyboard on Android 10", android10],
      ["ADB Keyboard on a legacy-shell phone (no exit status, one output stream)", legacy],
    ] as const
  ) {
    await t.step(`${label}: typed, and the keyboard restored`, async () => {
      await phone.sim.setScreen({ app: "notes", notesText: "" });
      const typed = await typeText(phone, "héllo 你好 👋");
      assert.equal(typed.isError, false, typed.text);
      assert.equal(phone.sim.screen().text, "héllo 你好 👋");
      assert.equal((await phone.sim.ime()).selected, SIM_DEFAULT_IME);
    });
  }
});
