// ADB Keyboard typing as data: parsing the input-method query, the commands it builds, and the
// select → type → restore flow against a fake adb runner, including every failure path.

import assert from "node:assert/strict";
import { deviceShellLine } from "../../lib/adb/commands.ts";
import {
  ADB_KEYBOARD_ID,
  base64Utf8,
  imeRefusal,
  imeStateCommand,
  parseImeState,
  restoreImeCommand,
  typeWithAdbKeyboard,
  typeWithKeyboardCommand,
} from "../../lib/adb/adb_keyboard.ts";
import { createDevice, type Device } from "../../lib/adb/device.ts";
import { AdbError } from "../../lib/adb/errors.ts";
import { exited, fakeAdb, type FakeAnswer } from "../helpers/fake_adb.ts";
import { connectInProcess, textOf } from "../helpers/in_process.ts";

const LATIN = "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME";
const SEP = "--phone-eye--";

/** The answer of imeStateCommand on a phone with these methods. */
function stateAnswer(installed: string[], enabled: string[], current: string): FakeAnswer {
  return exited(0, `${installed.join("\n")}\n${SEP}\n${enabled.join("\n")}\n${SEP}\n${current}\n`);
}

const READY_TYPED =
  "Input method com.android.adbkeyboard/.AdbIME: now enabled for user #0\nInput method com.android.adbkeyboard/.AdbIME selected for user #0\nphone-eye-keyboard: ready\nBroadcasting: Intent { act=ADB_INPUT_B64 flg=0x400000 (has extras) }\nBroadcast completed: result=0\n";

function phone(rules: Parameters<typeof fakeAdb>[0]) {
  const adb = fakeAdb(rules);
  return {
    device: createDevice({ run: adb.run, serial: "127.0.0.1:5555", timeoutMs: 1000 }),
    sent: adb.sent,
  };
}

/** What phone_type answers for `text` on `device` (no settle): the words the agent reads. */
async function typedOverMcp(
  device: Device,
  text: string,
): Promise<{ isError: boolean; text: string }> {
  const mcp = await connectInProcess({ device });
  try {
    const result = await mcp.client.callTool({
      name: "phone_type",
      arguments: { text, settle: false },
    });
    return { isError: result.isError === true, text: textOf(result) };
  } finally {
    await mcp.close();
  }
}

Deno.test({
  name: "the input-method query is read into installed, enabled and selected",
  permissions: "none",
  fn() {
    assert.deepEqual(
      parseImeState(`${LATIN}\n${ADB_KEYBOARD_ID}\n${SEP}\n${LATIN}\n${SEP}\n${LATIN}\n`),
      { installed: true, enabled: false, current: LATIN },
    );
    assert.deepEqual(
      parseImeState(
        `${LATIN}\r\n${ADB_KEYBOARD_ID}\r\n${SEP}\r\n${ADB_KEYBOARD_ID}\r\n${SEP}\r\n${ADB_KEYBOARD_ID}\r\n`,
      ),
      { installed: true, enabled: true, current: ADB_KEYBOARD_ID },
      "legacy shells end lines with CRLF",
    );
    assert.deepEqual(parseImeState(`${LATIN}\n${SEP}\n${LATIN}\n${SEP}\nnull\n`), {
      installed: false,
      enabled: false,
      current: null,
    });
    assert.equal(
      parseImeState(`${LATIN}\n${SEP}\n${LATIN}\n${SEP}\n'; reboot\n`)?.current,
      null,
      "a selected id that is not package/class is not trusted",
    );
    assert.equal(parseImeState("/system/bin/sh: ime: not found\n"), null);
    assert.match(
      deviceShellLine(imeStateCommand()),
      /^ime list -a -s; echo --phone-eye--; ime list -s;/,
    );
  },
});

Deno.test({
  name: "text goes out as UTF-8 base64, quoted, and decodes back exactly",
  permissions: "none",
  fn() {
    for (
      const text of ["héllo 你好 👋", "👨‍👩‍👧 🇫🇷", "Ærøskøbing", "'; reboot; echo '", "x".repeat(2000)]
    ) {
      const b64 = base64Utf8(text);
      assert.match(b64, /^[A-Za-z0-9+/]+=*$/);
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      assert.equal(new TextDecoder().decode(bytes), text);
      const command = deviceShellLine(
        typeWithKeyboardCommand(text, { enable: true, select: true }),
      );
      assert.ok(command.includes(`--es msg '${b64}'`), command);
    }
    const all = deviceShellLine(typeWithKeyboardCommand("é", { enable: true, select: true }));
    assert.match(all, /^ime enable 'com\.android\.adbkeyboard\/\.AdbIME' 2>&1; s=\$\(ime set /);
    const noEnable = deviceShellLine(typeWithKeyboardCommand("é", { enable: false, select: true }));
    assert.doesNotMatch(noEnable, /ime enable/);
    const already = deviceShellLine(typeWithKeyboardCommand("é", { enable: false, select: false }));
    assert.doesNotMatch(already, /ime (enable|set)/);
    assert.match(already, /dumpsys activity broadcasts com\.android\.adbkeyboard/);
    assert.equal(
      deviceShellLine(restoreImeCommand({ previous: LATIN, disable: true })),
      `ime set '${LATIN}' 2>&1; ime disable '${ADB_KEYBOARD_ID}' 2>&1`,
    );
    assert.equal(
      deviceShellLine(restoreImeCommand({ previous: LATIN, disable: false })),
      `ime set '${LATIN}' 2>&1`,
    );
    assert.equal(
      imeRefusal(`Unknown input method ${LATIN} cannot be selected for user #0`),
      `Unknown input method ${LATIN} cannot be selected for user #0`,
    );
    assert.equal(imeRefusal(`Input method ${LATIN} selected for user #0`), null);
  },
});

Deno.test({
  name: "typing through ADB Keyboard: three round trips, and the previous keyboard named",
  permissions: "none",
  async fn() {
    const { device, sent } = phone([
      [/ime list -a -s/, stateAnswer([LATIN, ADB_KEYBOARD_ID], [LATIN], LATIN)],
      [/am broadcast/, exited(0, READY_TYPED)],
      [/shell ime set/, exited(0, `Input method ${LATIN} selected for user #0\n`)],
    ]);
    const result = await typeWithAdbKeyboard(device, "héllo 你好 👋");
    assert.deepEqual(result, {
      count: 10,
      typing: { ok: true, listening: true },
      restored: { ok: true, previous: LATIN, disabled: true },
    });
    assert.equal(sent.length, 3);
    assert.match(sent[1]!, /^ime enable /);
    assert.equal(sent[2], deviceShellLine(restoreImeCommand({ previous: LATIN, disable: true })));
    assert.deepEqual(await typedOverMcp(device, "héllo 你好 👋"), {
      isError: false,
      text:
        `Typed 10 characters through ADB Keyboard. The previous keyboard (${LATIN}) is selected again.`,
    });
  },
});

Deno.test({
  name: "no ADB Keyboard: absent after one read-only query, nothing switched",
  permissions: "none",
  async fn() {
    const { device, sent } = phone([[/ime list/, stateAnswer([LATIN], [LATIN], LATIN)]]);
    assert.deepEqual(await typeWithAdbKeyboard(device, "é"), { absent: true });
    assert.deepEqual(sent, [deviceShellLine(imeStateCommand())]);
  },
});

Deno.test({
  name: "a failed broadcast still puts the previous keyboard back, and the first error wins",
  permissions: "none",
  async fn() {
    const { device, sent } = phone([
      [/ime list -a -s/, stateAnswer([LATIN, ADB_KEYBOARD_ID], [LATIN, ADB_KEYBOARD_ID], LATIN)],
      [/am broadcast/, exited(0, "", "", { status: 137 })],
      [/shell ime set/, exited(0, `Input method ${LATIN} selected for user #0\n`)],
    ]);
    const typed = await typeWithAdbKeyboard(device, "é");
    assert.ok(!("absent" in typed) && !typed.typing.ok);
    assert.ok(typed.typing.error instanceof AdbError);
    assert.match(typed.typing.error.what, /exit code 137/);
    assert.deepEqual(typed.restored, { ok: true, previous: LATIN, disabled: false });
    assert.equal(
      sent.at(-1),
      deviceShellLine(restoreImeCommand({ previous: LATIN, disable: false })),
      "restored, not disabled",
    );
  },
});

Deno.test({
  name: "a refused restore is reported with the command to run by hand",
  permissions: "none",
  async fn() {
    const refused = `Unknown input method ${LATIN} cannot be selected for user #0`;
    const { device } = phone([
      [/ime list -a -s/, stateAnswer([LATIN, ADB_KEYBOARD_ID], [LATIN], LATIN)],
      [/am broadcast/, exited(0, READY_TYPED)],
      [/shell ime set/, exited(0, "", refused)],
    ]);
    const typed = await typedOverMcp(device, "é");
    assert.equal(typed.isError, true);
    assert.ok(
      typed.text.startsWith(
        "Failed to put the keyboard back after typing: the phone refused to put the previous input method back",
      ) && typed.text.includes(refused) &&
        typed.text.includes(`run "adb shell ime set ${LATIN}"`) &&
        typed.text.endsWith("Typed 1 character through ADB Keyboard."),
      typed.text,
    );
  },
});

Deno.test({
  name: "both the typing and the restore fail: both are said",
  permissions: "none",
  async fn() {
    const { device } = phone([
      [/ime list -a -s/, stateAnswer([LATIN, ADB_KEYBOARD_ID], [LATIN], LATIN)],
      [/am broadcast/, exited(0, "", "", { status: 1 })],
      [/shell ime set/, exited(0, "", "", { status: 255 })],
    ]);
    const typed = await typedOverMcp(device, "é");
    assert.equal(typed.isError, true);
    assert.match(
      typed.text,
      /^Cannot type text: the phone answered with exit code 1\b.*\. Also: could not put the previous input method back \(Cannot put the previous keyboard back: the phone answered with exit code 255\); run "adb shell ime set /,
    );
  },
});

Deno.test({
  name: "phone_type over MCP: ASCII uses input text, other text the keyboard, absent a refusal",
  permissions: "none",
  async fn() {
    let installed = [LATIN];
    const adb = fakeAdb([
      [/ime list -a -s/, exited(0)],
      [/am broadcast/, exited(0, READY_TYPED)],
    ]);
    // The query's answer depends on the test's phone; rebuild it per call.
    const run: typeof adb.run = (args, timeout) => {
      const last = args.at(-1) ?? "";
      if (last.startsWith("ime list -a -s")) {
        const body = `${installed.join("\n")}\n${SEP}\n${LATIN}\n${SEP}\n${LATIN}\n`;
        return fakeAdb([[/ime/, exited(0, body)]]).run(args, timeout);
      }
      return adb.run(args, timeout);
    };
    const device = createDevice({ run, serial: "127.0.0.1:5555", timeoutMs: 1000 });
    const mcp = await connectInProcess({ device });
    try {
      const call = (text: string) =>
        mcp.client.callTool({ name: "phone_type", arguments: { text, settle: false } });
      const ascii = await call("plain");
      assert.equal(textOf(ascii), "Typed 5 characters.");
      const refused = await call("naïve");
      assert.equal(refused.isError, true);
      assert.match(textOf(refused), /^Cannot type "ï" \(U\+00EF\): .*no ADB Keyboard/);
      installed = [LATIN, ADB_KEYBOARD_ID];
      const typed = await call("naïve");
      assert.equal(typed.isError, undefined, textOf(typed));
      assert.match(textOf(typed), /^Typed 5 characters through ADB Keyboard\./);
      assert.deepEqual(adb.sent.filter((c) => c.startsWith("input")), ["input text 'plain'"]);
    } finally {
      await mcp.close();
    }
  },
});
