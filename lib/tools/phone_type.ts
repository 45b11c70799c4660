// phone_type: types text into the focused field. ASCII goes through `input text`, quoted for the
// phone's shell; any other text through ADB Keyboard when the phone has it (adb/adb_keyboard.ts).

import { z } from "zod";
import { typedTextProblem, typeTextCommand } from "../adb/commands.ts";
import { scanCharacters } from "../characters.ts";
import { noKeyboardMessage, typeWithAdbKeyboard } from "../adb/adb_keyboard.ts";
import { runInput } from "../adb/input.ts";
import { ACTS_ON_PHONE, defineTool, deviceArg, textResult, ToolInputError } from "./tool.ts";

export const phoneType = defineTool({
  name: "phone_type",
  title: "Type text",
  description:
    'Type text into the focused field, as if on a keyboard: tap the field first. Any language and emoji when the phone has ADB Keyboard installed (phone-eye selects it for the call and puts the current keyboard back); otherwise printable ASCII only (adb\'s "input text" limit). For a new line or to submit use phone_key "enter"; to clear, phone_key "delete" repeatedly or select-all via a long press.',
  inputSchema: z.strictObject({
    device: deviceArg(),
    text: z.string().min(1).max(2000).describe(
      "the text to type (no newlines or other control characters)",
    ),
  }),
  annotations: ACTS_ON_PHONE,
  async handler({ device }, { text }) {
    const refusal = typedTextProblem(text);
    if (refusal) throw new ToolInputError(refusal);
    const other = scanCharacters(text).beyondAscii;
    if (other === undefined) {
      await runInput(device, typeTextCommand(text), "type text");
      return textResult(`Typed ${text.length} character${text.length === 1 ? "" : "s"}.`);
    }
    const result = await typeWithAdbKeyboard(device, text);
    if ("absent" in result) throw new ToolInputError(noKeyboardMessage(other));
    return textResult(result.typed);
  },
});
