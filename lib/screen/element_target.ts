// Tap-by-name: the element an agent names, found on a fresh UI tree just before the action, which
// that tree becomes the "before" of; or a refusal listing the candidates or the closest labels.

import type { Clock } from "../core/clock.ts";
import { describeCandidate, findElement, notFoundWhat } from "./find_element.ts";
import type { PhoneScreen, ScreenReading } from "./phone_screen.ts";
import { readUiTree } from "./screen.ts";
import { ToolInputError } from "../core/errors.ts";
import type { UiElement } from "./ui_tree.ts";

/** What to find. */
export interface ElementTarget {
  clock: Clock;
  /** The name the agent gave: text, content-desc or resource-id. */
  name: string;
  /** Breaks a tie between several matches (findElement). */
  prefer?: ((e: UiElement) => boolean) | undefined;
}

/** The element found, described as a refusal would list it, and the tree it was found on. */
export interface Located {
  element: UiElement;
  described: string;
  /** The fresh tree, as the screen before the action. */
  before: ScreenReading;
}

/**
 * The element `name` names on a fresh tree, remembered as the screen before the action. A miss
 * leaves the tree as the phone's last seen screen; a find takes it as the action's "before". A
 * miss is a ToolInputError (the agent's argument at fault); a failed read, the AdbError it met.
 */
export async function locateElement(
  screen: PhoneScreen,
  target: ElementTarget,
): Promise<Located> {
  const { clock, name, prefer } = target;
  const elements = await readUiTree(screen, clock);
  const before = screen.remember({ elements, at: clock.now() });
  const found = findElement(elements, name, { prefer });
  if (found.kind !== "one") throw new ToolInputError({ what: notFoundWhat(name, found) });
  // The action is about to change the screen: this tree is "before" now, not the phone's last.
  screen.forget();
  return { element: found.element, described: describeCandidate(found.element), before };
}
