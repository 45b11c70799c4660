// phone_look's second step (pure): both channels placed on one screen, the tree summarised, and the
// points the vision answer names snapped onto the tree's elements.

import { extractPoints, type SnappedPoint, snapPoints } from "./fusion.ts";
import type { LookOutcomes, Outcome, Seen } from "./gather.ts";
import { truncate } from "../core/text.ts";
import type { Size, UiElement } from "../screen/ui_tree.ts";
import { summarizeUiTree, SUMMARY_MAX, usefulElements } from "../screen/ui_tree_summary.ts";

/** The outcomes fused: the screen both channels are placed on, the tree summary, the snaps. */
export interface Look {
  vision: Outcome<Seen>;
  tree: Outcome<{ lines: string[]; elements: UiElement[] }>;
  screen: Size | undefined;
  snaps: SnappedPoint[];
}

/** ui_tree.ts keeps 80 graphemes, but one grapheme can hold any number of combining marks. */
export const LABEL_SHOWN_MAX = 100;

/** The screen's extent from the tree's root nodes, for when neither a screenshot nor `wm size` came. */
function treeExtent(elements: UiElement[]): Size | undefined {
  const roots = elements.filter((e) => e.depth === 0 && e.bounds.x2 > 0 && e.bounds.y2 > 0);
  if (roots.length === 0) return undefined;
  return {
    width: Math.max(...roots.map((e) => e.bounds.x2)),
    height: Math.max(...roots.map((e) => e.bounds.y2)),
  };
}

function shownLabel(e: UiElement): UiElement {
  return e.label.length > LABEL_SHOWN_MAX ? { ...e, label: truncate(e.label, LABEL_SHOWN_MAX) } : e;
}

/**
 * The screen's size when only the tree came: the phone's own (`wm size`), turned to the
 * orientation the tree is drawn in, since `wm size` gives the natural one and the tree the current
 * rotation; else the tree's extent. With neither channel there is no screen to name.
 */
function screenOfTree(natural: Size | undefined, elements: UiElement[]): Size | undefined {
  const extent = treeExtent(elements);
  if (natural === undefined) return extent;
  if (extent === undefined || extent.width === extent.height) return natural;
  const turned = (extent.width > extent.height) !== (natural.width > natural.height);
  return turned ? { width: natural.height, height: natural.width } : natural;
}

/** Step 2 (pure): places both channels on one screen, summarises the tree, snaps the answer's points. */
export function fuseLook({ vision, tree, screenSize }: LookOutcomes): Look {
  const screen = vision.ok
    ? vision.value.screen
    : tree.ok
    ? screenOfTree(screenSize, tree.value)
    : undefined;
  const elements = tree.ok ? tree.value.map(shownLabel) : [];
  // Snap against every useful element, not only the SUMMARY_MAX the summary shows.
  const snaps = vision.ok && tree.ok && screen
    ? snapPoints(
      extractPoints(vision.value.answer, screen),
      usefulElements(elements, screen),
      screen,
    )
    : [];
  return {
    vision,
    tree: tree.ok ? { ok: true, value: summarizeUiTree(elements, SUMMARY_MAX, screen) } : tree,
    screen,
    snaps,
  };
}
