// Tap-by-name: the element an agent names, found on a fresh UI tree just before the action, which
// that tree becomes the "before" of; or a refusal listing the candidates or the closest labels.

import type { Clock } from "../core/clock.ts";
import { describeCandidate, findElement, notFoundMessage } from "./find_element.ts";
import type { PhoneScreen, ScreenReading } from "./phone_screen.ts";
import { readUiTree } from "./screen.ts";
import { ToolInputError } from "../core/errors.ts";
import type { UiElement } from "./ui_tree.ts";

/** What to find, and for which action (its words in the refusal). */
export interface ElementTarget {
  clock: Clock;
  /** The name the agent gave: text, content-desc or resource-id. */
  name: string;
  /** The action it is for: "tap", "type into". */
  action: string;
  /** Breaks a tie between several matches (findElement). */
  prefer?: ((e: UiElement) => boolean) | undefined;
}

/**
 * The element `name` names on a fresh tree, remembered as the screen before the action. A miss
 * leaves the tree as the phone's last seen screen; a find takes it as the action's "before".
 */
export async function locateElement(
  screen: PhoneScreen,
  target: ElementTarget,
): Promise<{ element: UiElement; described: string; before: ScreenReading }> {
  const { clock, name, action, prefer } = target;
  const elements = await readUiTree(screen, `find "${name}" on screen`, clock);
  const before = screen.remember({ elements, at: clock.now() });
  const found = findElement(elements, name, prefer);
  if (found.kind !== "one") throw new ToolInputError(notFoundMessage(action, name, found));
  // The action is about to change the screen: this tree is "before" now, not the phone's last.
  screen.forget();
  return { element: found.element, described: describeCandidate(found.element), before };
}
