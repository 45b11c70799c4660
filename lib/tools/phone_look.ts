// phone_look: a vision model's reading of the screen fused with the UI tree's exact bounds, after
// an optional wait for an element. Static and cheap; the work (lib/look/look.ts) loads on the first look.

import type { CallToolResult } from "@modelcontextprotocol/server";
import { z } from "zod";
import { characterName, scanCharacters } from "../core/characters.ts";
import { elementName, loadFacts } from "./acting.ts";
import { ToolInputError } from "../core/errors.ts";
import { defineTool, deviceArg, LOOKS_ONLY } from "./tool.ts";
import type { LookAnswer } from "../look/look.ts";

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
    throw new ToolInputError({
      what: `the question contains a control character (${characterName(control)})`,
      fix: "remove it (line breaks and tabs are fine: they are read as spaces)",
    });
  }
  return flat;
}

/**
 * The look's work: the capture, the codecs and the tree parser. Not loaded at start-up, so
 * tools/list never waits for it; the server preloads it once tools/list has been answered.
 */
const loadLook = () => import("../look/look.ts");
const loadWait = () => import("../look/look_wait.ts");

/**
 * The look's answer as the tool result; an error only when both channels failed. No
 * structuredContent: Claude Code and Codex show the model only that when it is present,
 * dropping the text (docs/vision.md, "Why phone_look returns text only").
 */
export function lookResult({ text, failed }: LookAnswer): CallToolResult {
  return { content: [{ type: "text", text }], ...(failed ? { isError: true } : {}) };
}

/** A wait's timeout when none is given, and the most one may be. */
export const WAIT_DEFAULT_MS = 10_000;
export const WAIT_MAX_MS = 30_000;

export const phoneLook = defineTool({
  name: "phone_look",
  title: "Look at the screen",
  description:
    "See what is on the Android phone's screen: a screenshot read by a vision model, with the on-screen elements and their exact bounds to tap. Answers with the size in device pixels, [vision] (the model's answer to question), [ui-tree] (up to 40 elements as `label @ [x1,y1][x2,y2]`) and [points] (points the answer names, snapped to the element there). wait_for or wait_gone first waits for an element (text, content-desc or resource-id) to show or go; [waited] says how that went.",
  inputSchema: z.strictObject({
    device: deviceArg(),
    question: z.string().max(2000).optional().describe(
      '"Where is the Send button?"; omit for a description',
    ),
    wait_for: elementName().optional().describe('an element to wait for ("Saved")'),
    wait_gone: elementName().optional().describe("an element to wait to be gone"),
    timeout_ms: z.number().int().min(0).max(WAIT_MAX_MS).optional().describe(
      `how long the wait may take (default ${WAIT_DEFAULT_MS})`,
    ),
  }),
  annotations: LOOKS_ONLY,
  // The look's own channels are worded in its sections (lib/look/words.ts); this names the rest.
  action: "look",
  async handler(deps, { question, wait_for, wait_gone, timeout_ms }, call) {
    const asked = visionQuestion(question);
    if (wait_for !== undefined && wait_gone !== undefined) {
      throw new ToolInputError({ what: "give wait_for or wait_gone, not both" });
    }
    const name = wait_for ?? wait_gone;
    if (name !== undefined) {
      const { waitThenLook } = await loadWait();
      const wait = {
        name,
        gone: wait_gone !== undefined,
        timeoutMs: timeout_ms ?? WAIT_DEFAULT_MS,
      };
      const answer = await waitThenLook(deps, asked, wait, call);
      call.record.observed = {
        ...(await loadFacts()).observationOf(answer.tree, answer.screen),
        waited: { name, gone: wait.gone, met: answer.waited?.met ?? false },
      };
      return lookResult(answer);
    }
    if (timeout_ms !== undefined) {
      throw new ToolInputError({
        what: "timeout_ms is how long wait_for or wait_gone waits",
        fix: "give one of them, or leave timeout_ms out",
      });
    }
    const { look } = await loadLook();
    const answer = await look(deps, asked, call);
    call.record.observed = (await loadFacts()).observationOf(answer.tree, answer.screen);
    return lookResult(answer);
  },
  preload: () => Promise.all([loadLook(), loadWait()]),
});
