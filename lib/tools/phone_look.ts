// phone_look: a vision model's reading of the screen fused with the UI tree's exact bounds.
// The definition is static and cheap; the work (lib/look.ts) loads on the first look.

import { z } from "zod";
import { characterName, scanCharacters } from "../characters.ts";
import { defineTool, deviceArg, LOOKS_ONLY, ToolInputError } from "./tool.ts";

/**
 * The question as the vision model gets it. It goes to a model, not to a shell, and line breaks and
 * tabs are ordinary in text a model wrote, so they are not refused but become spaces: the question
 * stays the one closing paragraph buildVisionPrompt lays out. Any other control character (NUL,
 * escape) has no place in a question and is refused, as in every tool.
 */
export function visionQuestion(question: string | undefined): string | undefined {
  if (question === undefined) return undefined;
  const flat = question.replace(/[\t\n\r]+/g, " ");
  const control = scanCharacters(flat).control;
  if (control !== undefined) {
    throw new ToolInputError(
      `Cannot look: the question contains a control character (${
        characterName(control)
      }); remove it (line breaks and tabs are fine: they are read as spaces)`,
    );
  }
  return flat;
}

/**
 * The look's work: the capture, the codecs and the tree parser. Not loaded at start-up, so
 * tools/list never waits for it; the server preloads it once tools/list has been answered.
 */
const loadLook = () => import("../look.ts");

export const phoneLook = defineTool({
  name: "phone_look",
  title: "Look at the screen",
  description:
    "See the phone's screen. Returns its size in device pixels, then [vision]: a vision model's answer to your question (or a description of the screen), with positions in device pixels; [ui-tree]: up to 40 elements as `label @ [x1,y1][x2,y2]`, exact bounds, interactive first; and [points]: each point the vision answer names, snapped to the smallest tree element under it or one just beside it (never a screen-sized container), with the center to tap, or \"no element here: tap the point itself\".",
  inputSchema: z.strictObject({
    device: deviceArg(),
    question: z.string().max(2000).optional().describe(
      'what to look for, e.g. "Where is the Send button?"; omit for a description of the screen',
    ),
  }),
  annotations: LOOKS_ONLY,
  async handler(deps, { question }, call) {
    const asked = visionQuestion(question);
    const { look } = await loadLook();
    return await look(deps, asked, call);
  },
  preload: loadLook,
});
