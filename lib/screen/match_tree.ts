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
import { classShortName, shortName } from "./ui_tree_labels.ts";

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
  /** Has text or content-desc, once cleaned. */
  spoken: Uint8Array;
  /** Each element's nearest interactive ancestor (-1: none). */
  owner: Int32Array;
  /**
   * A button-like wrapper's one text, whose label it shows (ui_tree_summary.ts borrows alike): the
   * wrapper is interactive, not scrollable, with no text or content-desc of its own, holding no
   * other interactive element and exactly one element with text or content-desc on screen. -1: none.
   */
  borrows: Int32Array;
  keys: NameKeys;
  meter: WorkMeter;
}

function lazyKeys(elements: readonly UiElement[], of: (e: UiElement) => string) {
  const cache: (string | undefined)[] = new Array(elements.length);
  return (i: number): string => cache[i] ??= nameKey(of(elements[i]!));
}

/** The tree of a dump's elements, in passes over them each linear in their number. */
export function treeOf(elements: readonly UiElement[], meter: WorkMeter = { steps: 0 }): MatchTree {
  const n = elements.length;
  const extent = rootExtent(elements);
  meter.steps += n;
  const keys: NameKeys = {
    text: lazyKeys(elements, (e) => e.text),
    desc: lazyKeys(elements, (e) => e.contentDesc),
    label: lazyKeys(elements, (e) => e.label),
    id: lazyKeys(elements, (e) => e.resourceId),
    idShort: lazyKeys(elements, (e) => e.resourceId.includes("/") ? shortName(e.resourceId) : ""),
    cls: lazyKeys(elements, (e) => classShortName(e.className)),
  };
  const tree: MatchTree = {
    elements,
    parent: new Int32Array(n),
    shown: new Array(n),
    interactive: new Uint8Array(n),
    tappable: new Uint8Array(n),
    spoken: new Uint8Array(n),
    owner: new Int32Array(n),
    borrows: new Int32Array(n).fill(-1),
    keys,
    meter,
  };
  const { parent, shown, interactive, tappable, spoken, owner } = tree;
  const open: number[] = [];
  for (let i = 0; i < n; i++) {
    meter.steps++;
    const e = elements[i]!;
    // Each element is pushed once and popped at most once: linear however deep the nesting.
    while (open.length > 0 && elements[open[open.length - 1]!]!.depth >= e.depth) {
      meter.steps++;
      open.pop();
    }
    const p = open.length > 0 ? open[open.length - 1]! : -1;
    parent[i] = p;
    open.push(i);
    interactive[i] = isInteractive(e) ? 1 : 0;
    tappable[i] = isTappable(e) ? 1 : 0;
    spoken[i] = keys.text(i) !== "" || keys.desc(i) !== "" ? 1 : 0;
    shown[i] = visibleBounds(e.bounds, extent);
    owner[i] = p < 0 ? -1 : interactive[p] ? p : owner[p]!;
  }
  findWrappers(tree);
  return tree;
}

/** Fills tree.borrows: children come after their parent, so a backward pass sums each subtree. */
function findWrappers(tree: MatchTree): void {
  const { elements, parent, interactive, spoken, shown, borrows, meter } = tree;
  const n = elements.length;
  const spokenBelow = new Int32Array(n);
  const lastSpoken = new Int32Array(n).fill(-1);
  const interactiveBelow = new Uint8Array(n);
  for (let i = n - 1; i >= 0; i--) {
    meter.steps++;
    const p = parent[i]!;
    if (p < 0) continue;
    spokenBelow[p] = spokenBelow[p]! + spokenBelow[i]!;
    if (lastSpoken[i]! >= 0) lastSpoken[p] = lastSpoken[i]!;
    if (!interactive[i] && spoken[i] && shown[i] !== undefined) {
      spokenBelow[p] = spokenBelow[p]! + 1;
      lastSpoken[p] = i;
    }
    interactiveBelow[p] = interactiveBelow[p]! | interactiveBelow[i]! | interactive[i]!;
  }
  for (let i = 0; i < n; i++) {
    meter.steps++;
    const wrapper = interactive[i] && !spoken[i] && !elements[i]!.scrollable &&
      !interactiveBelow[i] && spokenBelow[i] === 1 && shown[i] !== undefined;
    if (wrapper) borrows[i] = lastSpoken[i]!;
  }
}

/** The label phone_look shows for element `i`, as a key; "" when it shows none (or a class). */
export function shownKey(tree: MatchTree, i: number): string {
  const from = tree.borrows[i]!;
  if (from >= 0) return tree.keys.label(from);
  return tree.interactive[i] || tree.spoken[i] ? tree.keys.label(i) : "";
}

/** Whether phone_look shows element `i` by its class, `(ImageButton)`: nothing names it. */
export function shownByClass(tree: MatchTree, i: number): boolean {
  return tree.interactive[i] === 1 && tree.elements[i]!.label === "" && tree.borrows[i]! < 0;
}

/**
 * The places `mask`'s matches stand for, in document order, as they would be tapped. A wrapper's
 * one text stands for the wrapper, which phone_look shows under that label; matches nested in one
 * another (by the tree, not by bounds, which a child may overrun) are one place, as
 * outermostTappable keeps them; matches with the same bounds count once. `byClass`: the matches
 * are elements with no name, picked by class, and are marked classOnly.
 */
export function onePerPlace(
  tree: MatchTree,
  mask: Uint8Array,
  options: { byClass?: boolean | undefined },
): UiElement[] {
  const { meter, owner, borrows } = tree;
  const placed = new Uint8Array(mask.length);
  for (let i = 0; i < mask.length; i++) {
    meter.steps++;
    if (!mask[i]) continue;
    const w = owner[i]!;
    placed[w >= 0 && borrows[w] === i ? w : i] = 1;
  }
  const kept = outermostTappable(tree, placed);
  return placesOf(tree, kept, { byClass: options.byClass ?? false });
}

/**
 * Of placed matches nested in one another: a match that is not tappable stands for the nearest
 * tappable match around it (its text); a tappable match holding another gives way to it unless it
 * stands for a text of its own, which would lose its place; else the innermost is kept.
 */
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
  // The nearest tappable match around each element, and which of them stand for a text.
  const around = new Int32Array(n).fill(-1);
  const hasText = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    meter.steps++;
    const p = parent[i]!;
    if (p >= 0) around[i] = placed[p] && tappable[p] ? p : around[p]!;
    if (placed[i] && !tappable[i] && around[i]! >= 0) hasText[around[i]!] = 1;
  }
  const kept = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    meter.steps++;
    if (!placed[i]) continue;
    const stays = tappable[i] ? !tappableBelow[i] || hasText[i] : around[i]! < 0 && !below[i];
    if (stays) kept[i] = 1;
  }
  return kept;
}

/** The kept matches as elements to tap, once per bounds (a tappable one first). */
function placesOf(tree: MatchTree, kept: Uint8Array, how: { byClass: boolean }): UiElement[] {
  const { elements, shown, tappable, borrows, meter } = tree;
  const at = new Map<string, number>();
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
    const from = borrows[i]!;
    const e = elements[i]!;
    // An element tapped as the dump gave it is returned as it is: no copy of 100,000 matches.
    if (bounds === e.bounds && from < 0 && !how.byClass) return e;
    const element: UiElement = { ...e, bounds, center: centerOf(bounds) };
    if (from >= 0) element.label = elements[from]!.label;
    if (how.byClass) {
      element.label = classShortName(element.className);
      element.classOnly = true;
    }
    return element;
  });
}

/** Bounds as a Map key. */
function boundsKey(b: Bounds): string {
  return `${b.x1},${b.y1},${b.x2},${b.y2}`;
}
