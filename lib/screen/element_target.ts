// Tap-by-name: the element an agent names, found on a fresh UI tree just before the action, which
// that tree is the "before" of once sent; or a refusal listing the candidates or the closest labels.

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
  /** The call's cancel: stops the read of the tree. */
  signal?: AbortSignal | undefined;
}

/** The element found, described as a refusal would list it, and the tree it was found on. */
export interface Located {
  element: UiElement;
  described: string;
  /** The fresh tree, as the screen before the action. */
  before: ScreenReading;
}

/**
 * The element `name` names on a fresh tree, remembered as the phone's last seen screen: the
 * action's "before" once the verb sends it (PhoneScreen.beginAction), the next call's if the verb
 * refuses first. A miss is a ToolInputError (the agent's argument at fault); a failed read, the
 * AdbError it met.
 */
export async function locateElement(
  screen: PhoneScreen,
  target: ElementTarget,
): Promise<Located> {
  const { clock, name, prefer, signal } = target;
  const actionsSent = screen.actions;
  const elements = await readUiTree(screen, clock, signal);
  const before = screen.remember({ elements, at: clock.now(), actionsSent });
  const found = findElement(elements, name, { prefer });
  if (found.kind !== "one") throw new ToolInputError({ what: notFoundWhat(name, found) });
  return { element: found.element, described: describeCandidate(found.element), before };
}
