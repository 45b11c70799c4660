// Typing any language, end to end: main.ts under the production permission set, the real adb and
// the simulated phone with and without ADB Keyboard. The matrix: ASCII, Latin accents, CJK and
// emoji, each checked in the sim's text field, and the previous input method always restored.

import assert from "node:assert/strict";
import { type AdbHarness, startAdbHarness } from "./helpers/adb_harness.ts";
import { textOf } from "./helpers/in_process.ts";
import { type PhoneEyeProcess, startPhoneEye } from "./helpers/phone_eye.ts";
import {
  ADB_KEYBOARD_IME,
  SIM_DEFAULT_IME,
  type SimPhone,
  type SimPhoneOptions,
  startSimPhone,
} from "./sim/sim_phone.ts";

interface Rig {
  sim: SimPhone;
  adb: AdbHarness;
  eye: PhoneEyeProcess;
  type(text: string): Promise<{ isError: boolean; text: string }>;
  close(): Promise<void>;
}

async function rig(
  adbKeyboard: boolean,
  phone: Omit<SimPhoneOptions, "adbKeyboard"> = {},
): Promise<Rig> {
  const sim = await startSimPhone({ ...phone, adbKeyboard });
  const adb = await startAdbHarness();
  await adb.connect(sim.serial);
  const eye = await startPhoneEye({ env: { ...adb.env, ANDROID_SERIAL: sim.serial } });
  return {
    sim,
    adb,
    eye,
    async type(text) {
      const result = await eye.client.callTool({
        name: "phone_type",
        arguments: { text, settle: false },
      });
      return { isError: result.isError === true, text: textOf(result) };
    },
    async close() {
      await eye.close();
      await adb.close();
      await sim.close();
    },
  };
}

const MATRIX: ReadonlyArray<readonly [string, string]> = [
  ["ASCII", `it's 100%sure "ok"`],
  ["Latin accents", "héllo déjà vu, Ærøskøbing, ñandú"],
  ["CJK", "你好，世界 こんにちは 안녕하세요"],
  ["emoji", "👋🏽 family 👨‍👩‍👧 flag 🇫🇷"],
  ["all at once", "héllo 你好 👋"],
];

Deno.test("typing matrix with ADB Keyboard: every script arrives exactly, and the user's keyboard comes back", async (t) => {
  const r = await rig(true);
  try {
    await r.sim.setScreen({ app: "notes", notesText: "" });
    for (const [label, text] of MATRIX) {
      await t.step(label, async () => {
        await r.sim.setScreen({ notesText: "" });
        const before = r.sim.toolCalls("ime").length;
        const typed = await r.type(text);
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
              `^Typed ${
                [...text].length
              } characters through ADB Keyboard\\. The previous keyboard \\(${
                SIM_DEFAULT_IME.replaceAll(".", "\\.")
              }\\) is selected again\\.$`,
            ),
          );
        }
      });
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

    await t.step("ADB Keyboard already selected: typed, and left selected", async () => {
      await r.adb.adb("-s", r.sim.serial, "shell", `ime enable ${ADB_KEYBOARD_IME}`);
      await r.adb.adb("-s", r.sim.serial, "shell", `ime set ${ADB_KEYBOARD_IME}`);
      await r.sim.setScreen({ notesText: "" });
      const typed = await r.type("ça va");
      assert.equal(typed.isError, false, typed.text);
      assert.equal(typed.text, "Typed 5 characters through ADB Keyboard.");
      assert.equal(r.sim.screen().text, "ça va");
      assert.equal((await r.sim.ime()).selected, ADB_KEYBOARD_IME);
      await r.adb.adb("-s", r.sim.serial, "shell", `ime set ${SIM_DEFAULT_IME}`);
      await r.adb.adb("-s", r.sim.serial, "shell", `ime disable ${ADB_KEYBOARD_IME}`);
    });

    await t.step(
      "no text field focused: sent, but said to be unconfirmed, and the keyboard restored",
      async () => {
        await r.sim.setScreen({ app: "home" });
        const typed = await r.type("你好");
        assert.equal(typed.isError, false, typed.text);
        assert.match(typed.text, /^Sent 2 characters to ADB Keyboard, but it had not started/);
        assert.match(typed.text, /tap the field and call phone_type again/);
        assert.equal((await r.sim.ime()).selected, SIM_DEFAULT_IME);
        await r.sim.setScreen({ app: "notes" });
      },
    );

    await t.step(
      "the switch is refused (unknown id on stderr, exit 0): an error, nothing typed, keyboard back",
      async () => {
        await r.sim.setScreen({ notesText: "" });
        r.sim.faults.imeUnknown([ADB_KEYBOARD_IME]);
        try {
          const typed = await r.type("héllo");
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
        const typed = await r.type("déjà");
        assert.equal(typed.isError, true);
        assert.match(typed.text, /had dropped; phone-eye reconnected but did not repeat/);
        const ime = await r.sim.ime();
        assert.equal(ime.selected, SIM_DEFAULT_IME);
        assert.deepEqual(ime.enabled, [SIM_DEFAULT_IME]);
      },
    );

    await t.step("control characters are still refused before anything is sent", async () => {
      const sent = r.sim.commands().length;
      const typed = await r.type("你好\n世界");
      assert.equal(typed.isError, true);
      assert.match(typed.text, /control character \(newline, U\+000A\).*phone_key "enter"/);
      assert.equal(r.sim.commands().length, sent);
    });
  } finally {
    await r.close();
  }
});

Deno.test("typing matrix without ADB Keyboard: ASCII types, everything else is refused with the install steps", async (t) => {
  const r = await rig(false);
  try {
    await r.sim.setScreen({ app: "notes", notesText: "" });
    for (const [label, text] of MATRIX) {
      await t.step(label, async () => {
        await r.sim.setScreen({ notesText: "" });
        const typed = await r.type(text);
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
    await t.step("without the keyboard, nothing is switched: only the read-only query ran", () => {
      assert.deepEqual(
        r.sim.toolCalls("ime").map((argv) => argv.join(" ")).filter((c) => !c.startsWith("list")),
        [],
      );
    });
  } finally {
    await r.close();
  }
});

Deno.test("ADB Keyboard on Android 10 and on a legacy-shell phone: typed, and the keyboard restored", async (t) => {
  for (
    const [label, phone] of [
      ["Android 10", { androidVersion: 10 }],
      ["legacy shell (no exit status, one output stream)", { shellV2: false }],
    ] as const
  ) {
    await t.step(label, async () => {
      const r = await rig(true, phone);
      try {
        await r.sim.setScreen({ app: "notes", notesText: "" });
        const typed = await r.type("héllo 你好 👋");
        assert.equal(typed.isError, false, typed.text);
        assert.equal(r.sim.screen().text, "héllo 你好 👋");
        assert.equal((await r.sim.ime()).selected, SIM_DEFAULT_IME);
      } finally {
        await r.close();
      }
    });
  }
});
