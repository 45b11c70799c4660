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
import { tapThen } from "../adb/input_commands.ts";
import type { Located } from "../screen/element_target.ts";
import type { ScreenReading } from "../screen/phone_screen.ts";
import { focusedTextField, isTextField, nearestTextFields } from "../screen/text_fields.ts";
import {
  actionResult,
  beginAction,
  elementField,
  loadFacts,
  locate,
  SETTLE_SENTENCE,
  settleField,
} from "./acting.ts";
import { AgentError, errorText, failureWords, ToolInputError } from "../core/errors.ts";
import { errorResult } from "./call.ts";
import { ACTS_ON_PHONE, defineTool, deviceArg } from "./tool.ts";

const ACTION = "type text";

export const phoneType = defineTool({
  name: "phone_type",
  title: "Type text",
  description:
    'Type text into the focused text field on the Android phone, as on its keyboard, or into the text field named by element ("note_text"), tapped first in the same command (any other element is refused). Any language and emoji when ADB Keyboard is installed; otherwise printable ASCII. New line or submit: phone_key "enter"; clear: phone_key "delete". ' +
    SETTLE_SENTENCE,
  inputSchema: z.strictObject({
    device: deviceArg(),
    text: z.string().min(1).max(2000).describe("no newlines or other control characters"),
    element: elementField("the text field to type into; omit for the focused one"),
    settle: settleField,
  }),
  annotations: ACTS_ON_PHONE,
  action: ACTION,
  async handler(deps, { text, element, settle }, call) {
    const { device } = deps;
    const refusal = typedTextProblem(text);
    // "type", not the verb's "type text": the refusal is of the text itself.
    if (refusal) throw new ToolInputError(`Cannot type: ${refusal}`);
    let field: Located | undefined;
    if (element !== undefined) {
      field = await locate(deps, { name: element, prefer: isTextField, signal: call.signal });
      if (!isTextField(field.element)) {
        // Refused with nothing sent: the tree the lookup read stays the phone's last seen screen.
        throw new ToolInputError({ what: await notTextField(element, field) });
      }
      call.record.target = (await loadFacts()).targetOf(element, field);
    }
    // The tap on the field and the typing go to the phone as one command (tapThen).
    const tapFirst = field?.element.center;
    const into = field === undefined ? "" : `Tapped ${field.described}, then: `;
    const other = scanCharacters(text).beyondAscii;
    const acting = beginAction(deps, { settle, found: field });
    call.record.password = (await loadFacts()).passwordOf(call.record.target, acting.before);
    if (other === undefined) {
      const typing = typeTextCommand(text);
      const command = tapFirst === undefined ? typing : tapThen(tapFirst.x, tapFirst.y, typing);
      await runInput(device, command, call.signal);
      const typed = `Typed ${text.length} character${text.length === 1 ? "" : "s"}`;
      return await actionResult(deps, call, acting, (after) => `${into}${typed}${nowhere(after)}`);
    }
    const typed = await typeWithAdbKeyboard(device, text, { tapFirst });
    if ("absent" in typed) {
      // Refused with nothing sent: the screen before stays the phone's last.
      deps.screens.of(device).sentNothing(acting);
      throw new ToolInputError(noKeyboardMessage(other));
    }
    const said = keyboardWords(typed);
    if ("failed" in said) return errorResult(said.failed);
    return await actionResult(deps, call, acting, (after) => `${into}${said.reply(after)}`);
  },
});

/**
 * What follows "Typed N characters": "." or, when the screen after typing shows no text field with
 * focus and no keyboard, that the text may have gone nowhere. `input text` sends key events to the
 * focused window, and with no field focused they are dropped without an error. Said in the first
 * sentence, which is what an agent reads. No reading after the action: nothing is claimed.
 */
function nowhere(after: ScreenReading | undefined): string {
  if (after === undefined || after.keyboard === true) return ".";
  if (focusedTextField(after.elements) !== undefined) return ".";
  return `, but no text field has focus${
    after.keyboard === false ? " and the keyboard is down" : ""
  }, so the text may have gone nowhere. Tap the field (or give element) and type again if it is missing.`;
}

/** How many text fields a refusal of a non-field element lists. */
const FIELDS_SHOWN = 5;

/**
 * Why the element named is no place to type, with the text fields nearest it. The tree's modules
 * are loaded already (the element was found with them), not at start-up.
 */
async function notTextField(name: string, field: Located): Promise<string> {
  const { describeCandidate } = await import("../screen/find_element.ts");
  const { element } = field;
  const fields = nearestTextFields(field.before.elements, element.center, FIELDS_SHOWN);
  const head = `"${name}" names ${
    describeCandidate(element)
  }, which is not a text field, so nothing was tapped or typed`;
  if (fields.length === 0) {
    return `${head}; the screen has no text field. Open the screen that has the field, or tap the field yourself and call phone_type without element`;
  }
  return [
    `${head}. Give element as one of the text fields nearest it (by its resource-id, text or content-desc), or omit element to type into the focused field:`,
    ...fields.map((f) => `- ${describeCandidate(f)}`),
  ].join("\n");
}

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
function keyboardWords(
  done: KeyboardTyping,
): { reply: (after: ScreenReading | undefined) => string } | { failed: string } {
  const { typing, restored } = done;
  if (!typing.ok) {
    if (restored === null || restored.ok) throw typing.error;
    return { failed: `${errorWords(ACTION, typing.error)}. Also: ${restoreWords(restored)}` };
  }
  const chars = `${done.count} character${done.count === 1 ? "" : "s"}`;
  const notListening = `Sent ${chars} to ADB Keyboard, but it had not started listening after ${
    READY_POLLS / 10
  } s, so they may not have arrived: it listens only while its keyboard is up, i.e. while a text field has focus. Look at the field; if the text is missing, tap the field and call phone_type again.`;
  const line = (after: ScreenReading | undefined) =>
    !typing.listening ? notListening : `Typed ${chars} through ADB Keyboard${nowhere(after)}`;
  if (restored === null) return { reply: line };
  if (!restored.ok) {
    return {
      failed: `Failed to put the keyboard back after typing: ${restoreWords(restored)}. ${
        line(undefined)
      }`,
    };
  }
  return { reply: (after) => `${line(after)} ${restoreWords(restored)}` };
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
  return errorText(error);
}
