// phone_look's work: gather both channels (gather.ts), fuse them (fuse.ts), word them (words.ts).
// Loaded on the first look, which lib/tools/phone_look.ts turns into the tool result.

import type { LookCall, LookDeps } from "./deps.ts";
import { fuseLook } from "./fuse.ts";
import { gatherLook, type LookOutcomes } from "./gather.ts";
import { lookText } from "./words.ts";
import type { Size, UiElement } from "../screen/ui_tree.ts";

/** What a look answers: the text the agent reads, and whether it is a failure. */
export interface LookAnswer {
  text: string;
  /** True when neither channel gave anything: the tool result is then an error. */
  failed: boolean;
  /** What was seen, as data for the journal: the tree read and the screenshot's size, if any. */
  tree: UiElement[] | undefined;
  screen: Size | undefined;
  /** The wait's outcome, when the look waited (look_wait.ts). */
  waited?: { met: boolean };
}

/** Steps 2 and 3 together: the text, a failure only when both channels failed. */
export function lookAnswer(outcomes: LookOutcomes): LookAnswer {
  return {
    text: lookText(fuseLook(outcomes)),
    failed: !outcomes.vision.ok && !outcomes.tree.ok,
    tree: outcomes.tree.ok ? outcomes.tree.value : undefined,
    screen: outcomes.vision.ok ? outcomes.vision.value.screen : undefined,
  };
}

/** The whole look: both channels gathered within the budget, fused and worded. */
export async function look(
  deps: LookDeps,
  question: string | undefined,
  call: LookCall,
): Promise<LookAnswer> {
  return lookAnswer(await gatherLook(deps, question, call));
}
