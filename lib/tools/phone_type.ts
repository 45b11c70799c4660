// phone_type: types ASCII text into the focused field with `input text`, quoted for the phone's shell.
// Text the input tool cannot type is refused with the way around it, before anything is sent.

import { z } from "zod";
import { refuseUntypableText, typeTextCommand } from "../adb/commands.ts";
import { runInput } from "../adb/input.ts";
import { ACTS_ON_PHONE, defineTool, textResult, ToolInputError } from "./tool.ts";

export const phoneType = defineTool({
  name: "phone_type",
  title: "Type text",
  description:
    'Type text into the focused field, as if on a keyboard: tap the field first. Printable ASCII only (adb\'s "input text" limit); for a new line or to submit use phone_key "enter"; to clear, phone_key "delete" repeatedly or select-all via a long press.',
  inputSchema: z.object({
    text: z.string().min(1).max(2000).describe("the text to type (printable ASCII, no newlines)"),
  }),
  annotations: ACTS_ON_PHONE,
  async handler({ device }, { text }) {
    const refusal = refuseUntypableText(text);
    if (refusal) throw new ToolInputError(refusal);
    await runInput(device, typeTextCommand(text), "type text");
    return textResult(`Typed ${text.length} character${text.length === 1 ? "" : "s"}.`);
  },
});
