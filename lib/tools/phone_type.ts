// phone_type: types text into the focused field, or into the field named (element), tapped first.
// ASCII goes through `input text`, quoted; other text through ADB Keyboard (adb/adb_keyboard.ts).

import { z } from "zod";
import { typedTextProblem, typeTextCommand } from "../adb/input_commands.ts";
import { characterName, scanCharacters } from "../core/characters.ts";
import {
  ADB_KEYBOARD_RELEASES,
  type KeyboardTyping,
  READY_POLLS,
  type Restored,
  typeWithAdbKeyboard,
} from "../adb/adb_keyboard.ts";
import { runInput } from "../adb/input.ts";
import { tapCommand } from "../adb/input_commands.ts";
import {
  actionResult,
  asStep,
  elementField,
  loadFacts,
  locate,
  screenBefore,
  SETTLE_SENTENCE,
  settleField,
} from "./acting.ts";
import { AgentError, failureWords, ToolInputError } from "../core/errors.ts";
import { errorResult } from "./call.ts";
import { ACTS_ON_PHONE, defineTool, deviceArg } from "./tool.ts";

const ACTION = "type text";

export const phoneType = defineTool({
  name: "phone_type",
  title: "Type text",
  description:
    'Type text into the focused text field on the Android phone, as on its keyboard: tap the field first, or give element (its text, content-desc or resource-id, e.g. "note_text") and phone-eye taps it for you. Any language and emoji when the phone has ADB Keyboard installed (phone-eye selects it for the call and puts the current keyboard back); otherwise printable ASCII only (adb\'s "input text" limit). For a new line or to submit use phone_key "enter"; to clear, phone_key "delete" repeatedly or select-all via a long press. ' +
    SETTLE_SENTENCE,
  inputSchema: z.strictObject({
    device: deviceArg(),
    text: z.string().min(1).max(2000).describe(
      "the text to type (no newlines or other control characters)",
    ),
    element: elementField("the field to tap before typing; omit to type into the focused field"),
    settle: settleField,
  }),
  annotations: ACTS_ON_PHONE,
  action: ACTION,
  async handler(deps, { text, element, settle }, call) {
    const { device } = deps;
    const refusal = typedTextProblem(text);
    // "type", not the verb's "type text": the refusal is of the text itself.
    if (refusal) throw new ToolInputError(`Cannot type: ${refusal}`);
    let before = element === undefined ? await screenBefore(deps, settle) : undefined;
    let into = "";
    if (element !== undefined) {
      const found = await locate(deps, {
        name: element,
        prefer: (e) => e.className.endsWith("EditText"),
      });
      before = found.before;
      call.record.target = (await loadFacts()).targetOf(element, found);
      into = `Tapped ${found.described}, then: `;
      const { x, y } = found.element.center;
      await asStep("tap the field", () => runInput(device, tapCommand(x, y), call.signal));
    }
    call.record.password = (await loadFacts()).passwordOf(call.record.target, before);
    const other = scanCharacters(text).beyondAscii;
    if (other === undefined) {
      await runInput(device, typeTextCommand(text), call.signal);
      const reply = `Typed ${text.length} character${text.length === 1 ? "" : "s"}.`;
      return await actionResult(deps, call, settle, before, `${into}${reply}`);
    }
    const typed = await typeWithAdbKeyboard(device, text);
    if ("absent" in typed) throw new ToolInputError(noKeyboardMessage(other));
    const said = keyboardWords(typed);
    if ("failed" in said) return errorResult(said.failed);
    return await actionResult(deps, call, settle, before, `${into}${said.reply}`);
  },
});

/** The refusal when the phone has no ADB Keyboard: what cannot be typed and how to install it. */
function noKeyboardMessage(char: string): string {
  return `Cannot type ${JSON.stringify(char)} (${
    characterName(char)
  }): adb's "input text" can only type printable ASCII, and this phone has no ADB Keyboard, the input method phone-eye types other text with. Install it once: download the APK from ${ADB_KEYBOARD_RELEASES} and run "adb install ADBKeyboard.apk" (nothing to enable: phone-eye selects it for each such call and puts the current keyboard back). Meanwhile type the ASCII parts with phone_type and the rest on the on-screen keyboard (phone_tap on its keys)`;
}

/**
 * What typing through ADB Keyboard says: the reply, or the failure when putting the previous
 * keyboard back failed (said first, so an agent that reads only the first words, as Codex's does
 * with no error flag, learns something is wrong). A typing failure alone is thrown as it is, for
 * the server to word like any other.
 */
function keyboardWords(done: KeyboardTyping): { reply: string } | { failed: string } {
  const { typing, restored } = done;
  if (!typing.ok) {
    if (restored === null || restored.ok) throw typing.error;
    return { failed: `${errorWords(ACTION, typing.error)}. Also: ${restoreWords(restored)}` };
  }
  const chars = `${done.count} character${done.count === 1 ? "" : "s"}`;
  const line = typing.listening
    ? `Typed ${chars} through ADB Keyboard.`
    : `Sent ${chars} to ADB Keyboard, but it had not started listening after ${
      READY_POLLS / 10
    } s, so they may not have arrived: it listens only while its keyboard is up, i.e. while a text field has focus. Look at the field; if the text is missing, tap the field and call phone_type again.`;
  if (restored === null) return { reply: line };
  if (!restored.ok) {
    return {
      failed: `Failed to put the keyboard back after typing: ${restoreWords(restored)}. ${line}`,
    };
  }
  return { reply: `${line} ${restoreWords(restored)}` };
}

/** How the previous keyboard was put back, or why not, with the command to run by hand. */
function restoreWords(restored: Restored): string {
  const { previous } = restored;
  if (restored.ok) {
    return previous !== null
      ? `The previous keyboard (${previous}) is selected again.`
      : restored.disabled
      ? "ADB Keyboard is disabled again."
      : "The phone had no input method selected before, so ADB Keyboard stays selected.";
  }
  const manual = previous === null ? "" : `; run "adb shell ime set ${previous}"`;
  return "refused" in restored
    ? `the phone refused to put the previous input method back (${restored.refused})${manual}`
    : `could not put the previous input method back (${
      errorWords("put the previous keyboard back", restored.error)
    })${manual}`;
}

/** An error's words for a step of typing: an AgentError's sentence, or an unexpected one's text. */
function errorWords(step: string, error: unknown): string {
  if (error instanceof AgentError) return failureWords(step, error);
  return error instanceof Error ? error.message : String(error);
}
