// Finds an element by name in a UI tree, as phone_look prints it or by text, content-desc or
// resource-id, one match per place, in time linear in the tree. Pure; phone_tap, phone_type, waits.

import { closestNames } from "../core/near_names.ts";
import { nameKey, screenText } from "../core/text.ts";
import type { UiElement } from "./ui_tree.ts";
import { classLabel, shortName } from "./ui_tree_labels.ts";
import {
  type MatchTree,
  onePerPlace,
  shownByClass,
  shownKey,
  treeOf,
  type WorkMeter,
} from "./match_tree.ts";

export type { WorkMeter } from "./match_tree.ts";

/** What a name found on a screen. */
export type Found =
  | { kind: "one"; element: UiElement }
  | { kind: "many"; candidates: UiElement[] }
  | { kind: "none"; closest: string[] };

/** How many candidates a refusal lists, and how many near labels a miss names. */
export const CANDIDATES_SHOWN = 10;
export const CLOSEST_SHOWN = 5;
/** How many of a screen's names a miss weighs for its hints, in screen order: bounded work. */
export const HINT_NAMES_MAX = 1000;

export interface FindOptions {
  /**
   * Breaks a tie: when several match exactly (by what is shown or by resource-id) and exactly one
   * passes it, that one is the target (phone_type prefers a text field).
   */
  prefer?: ((e: UiElement) => boolean) | undefined;
  /** Counts the lookup's steps over the tree, for the test that shows the work is linear. */
  meter?: WorkMeter | undefined;
}

/** The name an agent gave, read for each way it can match. */
interface Wanted {
  key: string;
  /** A label phone-eye cut ends in "…" (nameKey reads it as "..."): the visible part before it. */
  prefix: string | undefined;
  /** `(ImageButton)`: a class, as phone_look shows an element with no name. */
  className: string | undefined;
}

function wantedOf(name: string): Wanted {
  const key = nameKey(name);
  const cut = key.endsWith("...") ? key.slice(0, -3).trimEnd() : "";
  const inner = /^\((.+)\)$/.exec(key)?.[1]?.trim() ?? "";
  return { key, prefix: cut || undefined, className: inner || undefined };
}

/** One way a name can match: which elements it accepts; byClass for the class of a nameless one. */
interface Way {
  test: (i: number) => boolean;
  byClass?: boolean;
}

/**
 * The ways a name matches, in order; the first that matches anything decides. The label as
 * phone_look shows it, whole; then a text or content-desc, whole; then a resource-id or its short
 * name, whole; then a cut label by its visible prefix, of a label shown, then of a text or
 * content-desc; then a class among elements shown by class; then a part of a text or
 * content-desc. Never a part of a resource-id: "OK" is no name of `checkout_book_order`. The first
 * three are the exact ways.
 */
function waysOf(tree: MatchTree, want: Wanted): Way[] {
  const { key, prefix, className } = want;
  const k = tree.keys;
  const ways: Way[] = [
    { test: (i) => shownKey(tree, i) === key },
    { test: (i) => k.text(i) === key || k.desc(i) === key },
    { test: (i) => k.id(i) === key || k.idShort(i) === key },
  ];
  if (prefix) {
    ways.push(
      { test: (i) => shownKey(tree, i).startsWith(prefix) },
      { test: (i) => k.text(i).startsWith(prefix) || k.desc(i).startsWith(prefix) },
    );
  }
  if (className) {
    ways.push({ test: (i) => shownByClass(tree, i) && k.cls(i) === className, byClass: true });
  }
  ways.push({ test: (i) => k.text(i).includes(key) || k.desc(i).includes(key) });
  return ways;
}

/** How many of waysOf's first ways are exact. */
const EXACT_WAYS = 3;

/** The indices of the visible elements `test` accepts; undefined when it accepts none. */
function maskOf(tree: MatchTree, test: (i: number) => boolean): Uint8Array | undefined {
  const mask = new Uint8Array(tree.elements.length);
  let any = false;
  for (let i = 0; i < mask.length; i++) {
    tree.meter.steps++;
    if (tree.shown[i] !== undefined && test(i)) {
      mask[i] = 1;
      any = true;
    }
  }
  return any ? mask : undefined;
}

/** The matches of the first way that has any, and which way that was (-1: none). */
function matchIn(tree: MatchTree, ways: Way[]): { matches: UiElement[]; way: number } {
  for (let way = 0; way < ways.length; way++) {
    const { test, byClass } = ways[way]!;
    const mask = maskOf(tree, test);
    if (mask) return { matches: onePerPlace(tree, mask, { byClass }), way };
  }
  return { matches: [], way: -1 };
}

/**
 * Every element on screen that `name` names, one per place (a button and the text inside it are
 * one target), as they would be tapped: bounds clipped to the screen, a button-like wrapper with
 * the label it takes from its text, an element with no name marked classOnly.
 */
export function matchElements(
  elements: readonly UiElement[],
  name: string,
  options: FindOptions = {},
): UiElement[] {
  const want = wantedOf(name);
  if (want.key === "") return [];
  const tree = treeOf(elements, options.meter);
  return matchIn(tree, waysOf(tree, want)).matches;
}

/** The element `name` points at, or the candidates, or the closest names on screen. */
export function findElement(
  elements: readonly UiElement[],
  name: string,
  options: FindOptions = {},
): Found {
  const want = wantedOf(name);
  const tree = treeOf(elements, options.meter);
  const ways = want.key === "" ? [] : waysOf(tree, want);
  const { matches, way } = matchIn(tree, ways);
  const { prefer } = options;
  if (prefer) {
    // A label and a field named alike, one by text and one by resource-id, tie as exact matches.
    const exact = ways.slice(0, EXACT_WAYS);
    const union = way >= 0 && way < EXACT_WAYS
      ? maskOf(tree, (i) => exact.some((w) => w.test(i)))
      : undefined;
    const pool = union ? onePerPlace(tree, union, {}) : matches;
    const preferred = pool.length > 1 ? pool.filter(prefer) : [];
    if (preferred.length === 1) return { kind: "one", element: preferred[0]! };
  }
  if (matches.length === 1) return { kind: "one", element: matches[0]! };
  if (matches.length > 1) return { kind: "many", candidates: matches };
  return { kind: "none", closest: closestNames(name, hintNames(tree), CLOSEST_SHOWN) };
}

/**
 * What a miss may hint at: the labels on screen and the short names of resource-ids, as shown
 * (cleaned and cut), once each, at most HINT_NAMES_MAX of them.
 */
function hintNames(tree: MatchTree): string[] {
  const names = new Map<string, string>();
  const add = (shown: string) => {
    const key = nameKey(shown);
    if (key !== "" && !names.has(key)) names.set(key, shown);
  };
  for (let i = 0; i < tree.elements.length && names.size < HINT_NAMES_MAX; i++) {
    tree.meter.steps++;
    const e = tree.elements[i]!;
    if (tree.shown[i] === undefined) continue;
    add(e.label);
    if (e.resourceId !== "") add(screenText(shortName(e.resourceId)));
  }
  return [...names.values()];
}

/** `"Save" (Button, id save) @ [x1,y1][x2,y2] centre (x, y)`: a candidate as a refusal lists it. */
export function describeCandidate(e: UiElement): string {
  const b = e.bounds;
  const what = [
    e.classOnly ? "" : screenText(shortName(e.className)),
    e.resourceId && `id ${screenText(shortName(e.resourceId))}`,
  ].filter(Boolean).join(", ");
  const named = e.classOnly ? classLabel(e.className) : `"${e.label}"`;
  return `${named}${
    what ? ` (${what})` : ""
  } @ [${b.x1},${b.y1}][${b.x2},${b.y2}] centre (${e.center.x}, ${e.center.y})`;
}

/**
 * Why a name that matched several elements or none picks nothing, with what to give instead: the
 * facts of the refusal, which the verb words ("Cannot tap: …").
 */
export function notFoundWhat(name: string, found: Found): string {
  if (found.kind === "many") {
    const shown = found.candidates.slice(0, CANDIDATES_SHOWN).map((e) =>
      `- ${describeCandidate(e)}`
    );
    const more = found.candidates.length - shown.length;
    return [
      `"${name}" matches ${found.candidates.length} elements, so nothing was tapped. Give a fuller name (text, content-desc or resource-id), or tap one by its centre (x, y):`,
      ...shown,
      ...(more > 0 ? [`(${more} more not shown)`] : []),
    ].join("\n");
  }
  const near = found.kind === "none" && found.closest.length > 0
    ? `; the closest labels on screen are ${found.closest.map((l) => `"${l}"`).join(", ")}`
    : "; the screen has no labelled element";
  return `no element on screen has text, content-desc or resource-id "${name}"${near}. Call phone_look to see the screen, or wait for it with phone_look's wait_for`;
}
