// phone_type: types text into the focused field, or into the field named (element), tapped first.
// ASCII goes through `input text`, quoted; other text through ADB Keyboard (adb/adb_keyboard.ts).

import { z } from "zod";
import { typedTextProblem, typeTextCommand } from "../adb/input_commands.ts";
import { scanCharacters } from "../core/characters.ts";
import { noKeyboardMessage, typeWithAdbKeyboard } from "../adb/adb_keyboard.ts";
import { runInput } from "../adb/input.ts";
import { tapCommand } from "../adb/input_commands.ts";
import {
  actionResult,
  elementField,
  loadElementTarget,
  screenBefore,
  SETTLE_SENTENCE,
  settleField,
} from "./acting.ts";
import { ToolInputError } from "../core/errors.ts";
import { ACTS_ON_PHONE, defineTool, deviceArg } from "./tool.ts";

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
  async handler(deps, { text, element, settle }, call) {
    const { device } = deps;
    const refusal = typedTextProblem(text);
    if (refusal) throw new ToolInputError(refusal);
    let before = element === undefined ? await screenBefore(deps, settle) : undefined;
    let into = "";
    if (element !== undefined) {
      const { locateElement } = await loadElementTarget();
      const found = await locateElement(deps.screens.of(device), {
        clock: deps.clock,
        name: element,
        action: "type text",
        prefer: (e) => e.className.endsWith("EditText"),
      });
      before = found.before;
      into = `Tapped ${found.described}, then: `;
      await runInput(
        device,
        tapCommand(found.element.center.x, found.element.center.y),
        "tap the field",
        call.signal,
      );
    }
    const other = scanCharacters(text).beyondAscii;
    let reply: string;
    if (other === undefined) {
      await runInput(device, typeTextCommand(text), "type text", call.signal);
      reply = `Typed ${text.length} character${text.length === 1 ? "" : "s"}.`;
    } else {
      const result = await typeWithAdbKeyboard(device, text);
      if ("absent" in result) throw new ToolInputError(noKeyboardMessage(other));
      reply = result.typed;
    }
    return await actionResult(deps, call, settle, before, `${into}${reply}`);
  },
});
