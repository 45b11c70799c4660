// What phone_look shows of the UI tree: the elements worth an agent's attention (interactive or
// labelled, on screen, a wrapper taking its only child's label), ranked and cut to a line budget.

import {
  type Bounds,
  centerOf,
  isInteractive,
  isTappable,
  rootExtent,
  type Size,
  type UiElement,
  visibleBounds,
} from "./ui_tree.ts";
import { nameKey } from "../core/text.ts";
import { classLabel, classShortName, isSpoken } from "./ui_tree_labels.ts";

export const SUMMARY_MAX = 40;

/** One summary line: `<label> @ [x1,y1][x2,y2]`, or `(<class>) @ …` for an element with no name. */
export function formatElementLine(e: UiElement): string {
  const b = e.bounds;
  return `${shownName(e)} @ [${b.x1},${b.y1}][${b.x2},${b.y2}]`;
}

/** An element's label as every line shows it: `(ImageButton)` for one known only by its class. */
export function shownName(e: UiElement): string {
  return e.classOnly ? classLabel(e.className) : e.label;
}

/**
 * The elements worth an agent's attention, uncapped and in document order: labelled
 * (text or content-desc) or interactive, with on-screen area. Bounds are clipped to the
 * screen so each center is tappable. A non-scrollable interactive container with no text or
 * content-desc of its own, whose only labelled content is one non-interactive descendant
 * (and which holds no other control), takes that descendant's label and replaces it: the
 * container is what receives the tap. Unlabelled interactive
 * elements are labelled with their class's short name, marked classOnly.
 * @param screen device size; when omitted, the extent of the dump's root nodes.
 */
export function usefulElements(elements: UiElement[], screen?: Size): UiElement[] {
  return rankUseful(elements, screen).map((r) => r.element);
}

/**
 * The `[ui-tree]` section: at most `max` useful elements, interactive and named first, then
 * labelled, then interactive known only by a resource-id, then only by their class; screen order
 * (top-to-bottom, left-to-right) within each group. A resource-id or a class says less than the
 * text a person sees, so a long screen drops those lines first.
 */
export function summarizeUiTree(
  elements: UiElement[],
  max: number = SUMMARY_MAX,
  screen?: Size,
): { lines: string[]; elements: UiElement[] } {
  const groups: UiElement[][] = [[], [], [], []];
  for (const { element, group } of rankUseful(elements, screen)) groups[group]?.push(element);
  const chosen: UiElement[] = [];
  for (const group of groups) {
    // Array.prototype.sort is stable, so equal positions keep document order.
    group.sort((a, b) => a.bounds.y1 - b.bounds.y1 || a.bounds.x1 - b.bounds.x1);
    for (const e of group) {
      if (chosen.length >= max) break;
      chosen.push(e);
    }
  }
  return { lines: chosen.map(formatElementLine), elements: chosen };
}

/**
 * 0: interactive, with text or content-desc (its own or borrowed); 1: text or content-desc only;
 * 2: interactive, named only by a resource-id; 3: interactive, known only by its class.
 */
type Group = 0 | 1 | 2 | 3;

/** What rankUseful reads of each element, by its index in the dump. */
interface ElementFacts {
  interactive: boolean[];
  /** Has text or content-desc of its own. */
  spoken: boolean[];
  /** Has a name of its own: spoken, or (interactive only) a resource-id. */
  named: boolean[];
  /** Its bounds clipped to the screen; undefined when nothing of it is on screen. */
  shown: (Bounds | undefined)[];
}

/** Per interactive element, what it holds (ownedBy fills these in). */
interface Contents {
  /** It holds another interactive element. */
  ownsInteractive: Uint8Array;
  /** How many named, non-interactive, shown elements it holds... */
  labelledContent: Int32Array;
  /** ...and the last of them (-1: none). */
  soleLabel: Int32Array;
  /** Per element, its nearest interactive ancestor (-1: none). */
  ownerOf: Int32Array;
}

/** Which elements lend their label to a wrapper (absorbed), and which each wrapper takes. */
interface Borrowed {
  absorbed: Uint8Array;
  labelFrom: Int32Array;
}

function rankUseful(
  elements: UiElement[],
  screen: Size | undefined,
): { element: UiElement; group: Group }[] {
  const facts = elementFacts(elements, screen ?? rootExtent(elements));
  const borrowed = borrowLabels(elements, facts, ownedBy(elements, facts));
  return rankedElements(elements, facts, borrowed);
}

function elementFacts(elements: UiElement[], area: Size | undefined): ElementFacts {
  const interactive = elements.map(isInteractive);
  const spoken = elements.map(isSpoken);
  // A resource-id names layout plumbing ("content", "action_bar_root") as often as controls,
  // so it only counts as a name on something the agent can act on.
  const named = elements.map((e, i) =>
    spoken[i] === true || (interactive[i] === true && e.label !== "")
  );
  const shown = elements.map((e) => visibleBounds(e.bounds, area));
  return { interactive, spoken, named, shown };
}

/** Walks the nesting once: what each interactive element holds, through its descendants. */
function ownedBy(elements: UiElement[], facts: ElementFacts): Contents {
  const { interactive, named, shown } = facts;
  const count = elements.length;
  // owner[i]: the nearest interactive element among i and its ancestors (-1: none).
  const owner = new Int32Array(count).fill(-1);
  const labelledContent = new Int32Array(count);
  const soleLabel = new Int32Array(count).fill(-1);
  const ownsInteractive = new Uint8Array(count);
  const ownerOf = new Int32Array(count).fill(-1);
  const stack: number[] = [];
  for (let i = 0; i < count; i++) {
    const depth = elements[i]?.depth ?? 0;
    while (stack.length > 0 && (elements[stack[stack.length - 1] ?? 0]?.depth ?? 0) >= depth) {
      stack.pop();
    }
    const parent = stack.length > 0 ? stack[stack.length - 1] ?? -1 : -1;
    const inherited = parent >= 0 ? owner[parent] ?? -1 : -1;
    owner[i] = interactive[i] ? i : inherited;
    ownerOf[i] = inherited;
    if (interactive[i] && inherited >= 0) ownsInteractive[inherited] = 1;
    if (named[i] && !interactive[i] && inherited >= 0 && shown[i]) {
      labelledContent[inherited] = (labelledContent[inherited] ?? 0) + 1;
      soleLabel[inherited] = i;
    }
    stack.push(i);
  }
  return { ownsInteractive, labelledContent, soleLabel, ownerOf };
}

/**
 * A button-like wrapper whose only labelled content is one element takes that label; a text that
 * repeats the name of the control holding it is that control's, one line (as one match).
 */
function borrowLabels(elements: UiElement[], facts: ElementFacts, contents: Contents): Borrowed {
  const { interactive, spoken, shown } = facts;
  const { ownsInteractive, labelledContent, soleLabel, ownerOf } = contents;
  const count = elements.length;
  const absorbed = new Uint8Array(count);
  const labelFrom = new Int32Array(count).fill(-1);
  for (let i = 0; i < count; i++) {
    // Only a button-like wrapper takes a child's label: a list (scrollable) or a container
    // holding other controls would put that label on a large area that means something else.
    // A resource-id is a weaker name than the text the user sees, so it gives way.
    const wrapper = interactive[i] && !spoken[i] && !elements[i]?.scrollable && !ownsInteractive[i];
    if (wrapper && shown[i] && labelledContent[i] === 1) {
      const child = soleLabel[i] ?? -1;
      labelFrom[i] = child;
      if (child >= 0) absorbed[child] = 1;
    }
    const owner = elements[ownerOf[i] ?? -1];
    const echo = !interactive[i] && spoken[i] && owner !== undefined && isTappable(owner) &&
      isSpoken(owner) && nameKey(owner.label) === nameKey(elements[i]?.label ?? "");
    if (echo) absorbed[i] = 1;
  }
  return { absorbed, labelFrom };
}

/** The useful elements with their labels, clipped bounds and group; duplicates dropped. */
function rankedElements(
  elements: UiElement[],
  facts: ElementFacts,
  borrowed: Borrowed,
): { element: UiElement; group: Group }[] {
  const { interactive, spoken, named, shown } = facts;
  const { absorbed, labelFrom } = borrowed;
  const out: { element: UiElement; group: Group }[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < elements.length; i++) {
    const e = elements[i];
    const bounds = shown[i];
    if (!e || !bounds || absorbed[i] || !(interactive[i] || named[i])) continue;
    const source = elements[labelFrom[i] ?? -1];
    const classOnly = !source && !named[i];
    const label = source?.label ?? (classOnly ? classShortName(e.className) : e.label);
    const group: Group = !interactive[i] ? 1 : spoken[i] || source ? 0 : classOnly ? 3 : 2;
    const element: UiElement = { ...e, label, bounds, center: centerOf(bounds) };
    if (classOnly) element.classOnly = true;
    const key = `${shownName(element)}\u0000${boundsKey(element)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ element, group });
  }
  // A bare clickable wrapper with exactly the bounds of a labelled element adds nothing.
  const labelledAt = new Set(out.filter((r) => r.group !== 3).map((r) => boundsKey(r.element)));
  return out.filter((r) => r.group !== 3 || !labelledAt.has(boundsKey(r.element)));
}

function boundsKey(e: UiElement): string {
  const b = e.bounds;
  return `${b.x1},${b.y1},${b.x2},${b.y2}`;
}
