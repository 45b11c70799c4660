// phone_look's third step (pure): the text the agent reads, the screen size first, then the
// [vision], [ui-tree] and [points] sections, each cut to what a client shows whole.

import { formatSnapLines } from "./fusion.ts";
import type { Look } from "./fuse.ts";
import type { ChannelFailure, Seen } from "./gather.ts";
import { seconds } from "../core/text.ts";
import { failureWords } from "../core/errors.ts";
import { truncate } from "../core/text.ts";

/**
 * What the text shows at most, so the largest look stays far below what clients accept (Claude
 * Code cuts a tool result near 25,000 tokens; tests/look/phone_look_size_test.ts measures the worst
 * case). The answer is cut for display only: its points are read from fusion.ts's larger
 * MAX_ANSWER_CHARS.
 */
export const ANSWER_SHOWN_MAX = 6_000;
export const POINTS_SHOWN_MAX = 20;

/** The vision section's lines: the answer as shown, and why it was cut or how it was captured. */
function visionLines(seen: Seen): string[] {
  const answer = seen.answer.trim();
  const shown = truncate(answer, ANSWER_SHOWN_MAX);
  return [
    shown,
    shown !== answer &&
    `(answer cut to its first ${ANSWER_SHOWN_MAX} of ${answer.length} characters; ask a narrower question to see the rest)`,
    seen.note && `(note: ${seen.note})`,
  ].filter((line): line is string => Boolean(line));
}

/** What each channel does, as its failure names it. */
const READ_TREE = "read the UI tree";
const TAKE_SHOT = "take a screenshot for the vision model";

/** Why a channel gave nothing, in the words its section shows; `action` is what the channel does. */
function failureText(failure: ChannelFailure, action: string): string {
  switch (failure.kind) {
    case "error":
      return failureWords(action, failure.error);
    case "unexpected":
      return `unexpected error: ${failure.detail}`;
    case "cancelled":
      return "the client cancelled the look";
    case "unavailable":
      return failure.note;
    case "late": {
      const budget = seconds(failure.budgetMs);
      switch (failure.waitingFor) {
        case "uiautomator":
          return `Cannot ${action}: uiautomator gave no answer within the look's ${budget} budget (the phone is busy or its link is slow); look again, or check the phone`;
        case "screenshot":
          return `Cannot ${action}: none arrived within the look's ${budget} budget (the phone is busy or its link is slow), so the model was not asked; look again, or use phone_shot`;
        case "model":
          return `The vision model at ${failure.endpoint} gave no answer within the look's ${budget} budget (the screenshot took ${
            seconds(failure.shotMs)
          } of it); look again, or for a slow model raise PHONE_EYE_VISION_TIMEOUT_MS (the budget grows with it) and your client's tool timeout to match`;
      }
    }
  }
}

/** The answer of a look whose client cancelled it while it waited for an element. */
export const WAIT_CANCELLED = "Cannot look: the client cancelled the call while it waited";

/** The first line of a look where both channels failed (the result is then an error). */
export const LOOK_FAILED =
  "Cannot see the screen: neither vision nor the UI tree gave an answer (each section below says why).";

/**
 * Step 3 (pure): the text the agent reads: the screen size, then sections [vision], [ui-tree]
 * and [points], then where the screenshot was kept.
 */
export function lookText({ vision, tree, screen, snaps }: Look): string {
  const sections = [
    // An error's first words say it failed: Codex shows its model no isError flag, only the text.
    ...(!vision.ok && !tree.ok ? [LOOK_FAILED, ""] : []),
    ...(screen ? [`Screen: ${screen.width}×${screen.height} device pixels.`, ""] : []),
    "[vision]",
    ...(vision.ok
      ? visionLines(vision.value)
      : [`Vision unavailable: ${failureText(vision.failure, TAKE_SHOT)}`]),
    "",
    "[ui-tree]",
    !tree.ok
      ? `UI tree unavailable: ${failureText(tree.failure, READ_TREE)}`
      : tree.value.lines.length > 0
      ? tree.value.lines.join("\n")
      : "No labelled or interactive elements on this screen.",
  ];
  if (snaps.length > 0) {
    sections.push("", "[points]", ...formatSnapLines(snaps.slice(0, POINTS_SHOWN_MAX)));
    const more = snaps.length - POINTS_SHOWN_MAX;
    if (more > 0) sections.push(`(${more} more points in the answer not shown)`);
  }
  if (vision.ok && vision.value.saved) sections.push("", vision.value.saved);
  return sections.join("\n");
}
