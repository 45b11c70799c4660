// The UI tree as an element lookup walks it (each element's parent, visible bounds, name keys) and
// one match per place, all in passes linear in the number of elements: a screen cannot stall a poll.

import { nameKey } from "../core/text.ts";
import {
  type Bounds,
  centerOf,
  isInteractive,
  isTappable,
  rootExtent,
  type UiElement,
  visibleBounds,
} from "./ui_tree.ts";
import { shortName } from "./ui_tree_labels.ts";

/** Counts steps over the tree's elements, so a test can show a lookup's work grows linearly. */
export interface WorkMeter {
  steps: number;
}

/** An element's names as compared (nameKey), each worked out once, when first asked for. */
export interface NameKeys {
  text(i: number): string;
  desc(i: number): string;
  label(i: number): string;
  id(i: number): string;
  idShort(i: number): string;
  /** The class's short name ("element" when there is none), as `(ImageButton)` gives it. */
  cls(i: number): string;
}

export interface MatchTree {
  /** In document order, as parseUiTree gives them: a parent before its children. */
  elements: readonly UiElement[];
  /** Each element's parent's index; -1 for a window's root. */
  parent: Int32Array;
  /** Bounds clipped to the screen (the window roots' extent); undefined when not on screen. */
  shown: (Bounds | undefined)[];
  interactive: Uint8Array;
  tappable: Uint8Array;
  keys: NameKeys;
  meter: WorkMeter;
}

function lazyKeys(elements: readonly UiElement[], of: (e: UiElement) => string) {
  const cache: (string | undefined)[] = new Array(elements.length);
  return (i: number): string => cache[i] ??= nameKey(of(elements[i]!));
}

/** The tree of a dump's elements, in one pass over them (and one for the screen's extent). */
export function treeOf(elements: readonly UiElement[], meter: WorkMeter = { steps: 0 }): MatchTree {
  const n = elements.length;
  const extent = rootExtent(elements);
  const parent = new Int32Array(n);
  const interactive = new Uint8Array(n);
  const tappable = new Uint8Array(n);
  const shown: (Bounds | undefined)[] = new Array(n);
  const open: number[] = [];
  meter.steps += n;
  for (let i = 0; i < n; i++) {
    meter.steps++;
    const e = elements[i]!;
    // Each element is pushed once and popped at most once: linear however deep the nesting.
    while (open.length > 0 && elements[open[open.length - 1]!]!.depth >= e.depth) {
      meter.steps++;
      open.pop();
    }
    parent[i] = open.length > 0 ? open[open.length - 1]! : -1;
    open.push(i);
    interactive[i] = isInteractive(e) ? 1 : 0;
    tappable[i] = isTappable(e) ? 1 : 0;
    shown[i] = visibleBounds(e.bounds, extent);
  }
  const keys: NameKeys = {
    text: lazyKeys(elements, (e) => e.text),
    desc: lazyKeys(elements, (e) => e.contentDesc),
    label: lazyKeys(elements, (e) => e.label),
    id: lazyKeys(elements, (e) => e.resourceId),
    idShort: lazyKeys(elements, (e) => e.resourceId.includes("/") ? shortName(e.resourceId) : ""),
    cls: lazyKeys(elements, (e) => shortName(e.className) || "element"),
  };
  return { elements, parent, shown, interactive, tappable, keys, meter };
}

/**
 * The places `mask`'s matches stand for, in document order, as they would be tapped. A text that
 * is a button-like wrapper's only label stands for the wrapper, which phone_look shows under that
 * label; of matches nested in one another (by the tree, not by bounds, which a child may overrun)
 * the tappable one is kept, else the innermost; matches with the same bounds count once.
 * `byClass`: the matches are elements with no name, picked by class, and are marked classOnly.
 */
export function onePerPlace(
  tree: MatchTree,
  mask: Uint8Array,
  options: { byClass?: boolean | undefined },
): UiElement[] {
  const { placed, borrowed } = wrappersFor(tree, mask);
  const kept = outermostTappable(tree, placed);
  return placesOf(tree, kept, { borrowed, byClass: options.byClass ?? false });
}

/**
 * `mask` with each match that is a wrapper's only label replaced by the wrapper: interactive, not
 * scrollable, with no text or content-desc of its own, holding no other interactive element and
 * exactly one element with text or content-desc on screen (ui_tree_summary.ts borrows alike).
 */
function wrappersFor(
  tree: MatchTree,
  mask: Uint8Array,
): { placed: Uint8Array; borrowed: Map<number, number> } {
  const { elements, parent, interactive, shown, keys, meter } = tree;
  const n = elements.length;
  const spoken = (i: number) => keys.text(i) !== "" || keys.desc(i) !== "";
  // Children come after their parent: a backward pass adds each subtree into its parent.
  const spokenBelow = new Int32Array(n);
  const interactiveBelow = new Int32Array(n);
  for (let i = n - 1; i >= 0; i--) {
    meter.steps++;
    const p = parent[i]!;
    if (p < 0) continue;
    const spokenHere = !interactive[i] && shown[i] !== undefined && spoken(i) ? 1 : 0;
    spokenBelow[p] = spokenBelow[p]! + spokenBelow[i]! + spokenHere;
    interactiveBelow[p] = interactiveBelow[p]! + interactiveBelow[i]! + interactive[i]!;
  }
  // ...and a forward pass hands each element its nearest interactive ancestor.
  const owner = new Int32Array(n).fill(-1);
  const placed = new Uint8Array(n);
  const borrowed = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    meter.steps++;
    const p = parent[i]!;
    owner[i] = p < 0 ? -1 : interactive[p] ? p : owner[p]!;
    if (!mask[i]) continue;
    const w = owner[i]!;
    const wrapper = w >= 0 && !interactive[i] && spoken(i) && !spoken(w) &&
      !elements[w]!.scrollable && interactiveBelow[w] === 0 && spokenBelow[w] === 1 &&
      shown[w] !== undefined;
    if (wrapper) {
      placed[w] = 1;
      borrowed.set(w, i);
    } else {
      placed[i] = 1;
    }
  }
  return { placed, borrowed };
}

/** Of placed matches nested in one another, the tappable one, else the innermost. */
function outermostTappable(tree: MatchTree, placed: Uint8Array): Uint8Array {
  const { parent, tappable, meter } = tree;
  const n = placed.length;
  const below = new Uint8Array(n);
  const tappableBelow = new Uint8Array(n);
  for (let i = n - 1; i >= 0; i--) {
    meter.steps++;
    const p = parent[i]!;
    if (p < 0) continue;
    below[p] = below[p]! | below[i]! | placed[i]!;
    tappableBelow[p] = tappableBelow[p]! | tappableBelow[i]! | (placed[i]! & tappable[i]!);
  }
  const tappableAbove = new Uint8Array(n);
  const kept = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    meter.steps++;
    const p = parent[i]!;
    if (p >= 0) tappableAbove[i] = tappableAbove[p]! | (placed[p]! & tappable[p]!);
    if (!placed[i]) continue;
    // A match holding a match as good (tappable, or either when it is not) gives way to it...
    const givesWay = tappable[i] ? tappableBelow[i] : below[i];
    // ...and a match that is not tappable gives way to a tappable one around it.
    if (!givesWay && (tappable[i] || !tappableAbove[i])) kept[i] = 1;
  }
  return kept;
}

/** The kept matches as elements to tap, once per bounds (a tappable one first). */
function placesOf(
  tree: MatchTree,
  kept: Uint8Array,
  how: { borrowed: Map<number, number>; byClass: boolean },
): UiElement[] {
  const { elements, shown, tappable, meter } = tree;
  const at = new Map<number | string, number>();
  for (let i = 0; i < kept.length; i++) {
    meter.steps++;
    const b = shown[i];
    if (!kept[i] || b === undefined) continue;
    const key = boundsKey(b);
    const earlier = at.get(key);
    if (earlier === undefined || (tappable[i] && !tappable[earlier])) at.set(key, i);
  }
  const indices = [...at.values()].sort((a, b) => a - b);
  return indices.map((i) => {
    const bounds = shown[i]!;
    const from = how.borrowed.get(i);
    const e = elements[i]!;
    // An element tapped as the dump gave it is returned as it is: no copy of 100,000 matches.
    if (bounds === e.bounds && from === undefined && !how.byClass) return e;
    const element: UiElement = { ...e, bounds, center: centerOf(bounds) };
    if (from !== undefined) element.label = elements[from]!.label;
    if (how.byClass) {
      element.label = shortName(element.className) || "element";
      element.classOnly = true;
    }
    return element;
  });
}

const SIDE = 8192;

/** Bounds as a Map key: one number while each side is below 8,192 px (any phone), else text. */
function boundsKey(b: Bounds): number | string {
  if (b.x2 < SIDE && b.y2 < SIDE) return ((b.x1 * SIDE + b.y1) * SIDE + b.x2) * SIDE + b.y2;
  return `${b.x1},${b.y1},${b.x2},${b.y2}`;
}
