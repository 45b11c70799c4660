// Finds an element by name in a UI tree: text, content-desc or resource-id, exact (ignoring case)
// before substring, nested matches counted once. Pure; phone_tap, phone_type and the look's waits use it.

import { closestNames } from "../core/near_names.ts";
import { isTappable, type UiElement } from "./ui_tree.ts";
import { shortName } from "./ui_tree_labels.ts";

/** What a name found on a screen. */
export type Found =
  | { kind: "one"; element: UiElement }
  | { kind: "many"; candidates: UiElement[] }
  | { kind: "none"; closest: string[] };

/** How many candidates a refusal lists, and how many near labels a miss names. */
export const CANDIDATES_SHOWN = 10;
export const CLOSEST_SHOWN = 5;

/** The names an element answers to: its text, content-desc, resource-id and the id's short name. */
function namesOf(e: UiElement): string[] {
  const names = [e.text, e.contentDesc, e.resourceId];
  if (e.resourceId.includes("/")) names.push(shortName(e.resourceId));
  return names.map((n) => n.trim().toLowerCase()).filter((n) => n !== "");
}

function hasArea(e: UiElement): boolean {
  return e.bounds.x2 > e.bounds.x1 && e.bounds.y2 > e.bounds.y1;
}

function contains(outer: UiElement, inner: UiElement): boolean {
  const o = outer.bounds;
  const i = inner.bounds;
  return o.x1 <= i.x1 && o.y1 <= i.y1 && o.x2 >= i.x2 && o.y2 >= i.y2;
}

/**
 * One element per place: a button and the label inside it both named "Save" are one target. Of
 * matches nested in one another the tappable one is kept, else the innermost.
 */
function onePerPlace(matches: UiElement[]): UiElement[] {
  const kept: UiElement[] = [];
  for (const m of matches) {
    const nested = kept.findIndex((k) => contains(k, m) || contains(m, k));
    if (nested < 0) {
      kept.push(m);
      continue;
    }
    const k = kept[nested]!;
    const better = isTappable(m) !== isTappable(k) ? isTappable(m) : contains(k, m);
    if (better) kept[nested] = m;
  }
  return kept;
}

/** Every element on screen whose names equal `name` (ignoring case), or else contain it. */
export function matchElements(elements: readonly UiElement[], name: string): UiElement[] {
  const want = name.trim().toLowerCase();
  if (want === "") return [];
  const visible = elements.filter(hasArea);
  const exact = visible.filter((e) => namesOf(e).some((n) => n === want));
  if (exact.length > 0) return onePerPlace(exact);
  return onePerPlace(visible.filter((e) => namesOf(e).some((n) => n.includes(want))));
}

/**
 * The element `name` points at. `prefer` breaks a tie: when several match and exactly one passes
 * it (phone_type prefers a text field), that one is the target.
 */
export function findElement(
  elements: readonly UiElement[],
  name: string,
  prefer?: (e: UiElement) => boolean,
): Found {
  const matches = matchElements(elements, name);
  if (matches.length === 1) return { kind: "one", element: matches[0]! };
  if (matches.length > 1) {
    const preferred = prefer ? matches.filter(prefer) : [];
    if (preferred.length === 1) return { kind: "one", element: preferred[0]! };
    return { kind: "many", candidates: matches };
  }
  const labels = [...new Set(elements.filter(hasArea).flatMap((e) => [e.text, e.contentDesc]))]
    .map((l) => l.trim()).filter((l) => l !== "");
  return { kind: "none", closest: closestNames(name, labels, CLOSEST_SHOWN) };
}

/** `"Save" (Button, id save) @ [x1,y1][x2,y2] centre (x, y)`: a candidate as a refusal lists it. */
export function describeCandidate(e: UiElement): string {
  const b = e.bounds;
  const what = [shortName(e.className), e.resourceId && `id ${shortName(e.resourceId)}`]
    .filter(Boolean).join(", ");
  return `"${e.label}"${
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
