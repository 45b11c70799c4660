// Fuses phone_look's two channels: the prompt sent to the vision model, how much of its answer is
// read and shown, the coordinates found there, and their snap onto UI-tree elements. Pure.

import { CoordinateScanner } from "./coordinate_scanner.ts";
import { truncate } from "../core/text.ts";
import { isInteractive, isTappable, type Size, type UiElement } from "../screen/ui_tree.ts";
import { shortName } from "../screen/ui_tree_labels.ts";

export interface Point {
  x: number;
  y: number;
  /** The part of the vision answer the coordinates came from. */
  text: string;
}

export interface SnappedPoint {
  point: Point;
  /** The element the point stands for, or null: then tap the point itself. */
  element: UiElement | null;
  inside: boolean;
  /** Pixels from the point to the element's bounds; 0 when inside or when there is no element. */
  distance: number;
  /** Where to tap: the element's centre, or the point itself when no element fits. */
  tap: { x: number; y: number };
}

export const MAX_POINTS = 20;

/**
 * How much of a vision answer is read for points, in UTF-16 code units (phone_look shows less:
 * its ANSWER_SHOWN_MAX).
 * An answer that names 20 places in prose is ~3,000; a model that echoes or loops can send
 * megabytes, and every character read is CPU the other tools wait for.
 */
export const MAX_ANSWER_CHARS = 8_000;

/**
 * The coordinates a vision model wrote in its answer — "(540, 1200)", "[540,1200]",
 * "x=540, y=1200", "at 540,1200", and boxes "[x1,y1][x2,y2]" or "(x1, y1, x2, y2)" as their
 * centre — in device pixels, inside the screen, without duplicates, at most MAX_POINTS. Reads the
 * first `maxChars` characters (MAX_ANSWER_CHARS), in time linear
 * in their number.
 */
export function extractPoints(
  visionText: string,
  screen: Size,
  maxChars: number = MAX_ANSWER_CHARS,
): Point[] {
  const text = truncate(visionText, maxChars, "");
  const points: Point[] = [];
  const seen = new Set<string>();
  for (const m of new CoordinateScanner(text).matches()) {
    // Fractions such as (0.42, 0.61) are normalized coordinates, not device pixels.
    if (m.values.every((v) => v.includes(".") && Math.abs(Number(v)) <= 1)) continue;
    const [a = NaN, b = NaN, c, d] = m.values.map(Number);
    const x = Math.round(c === undefined ? a : (a + c) / 2);
    const y = Math.round(d === undefined ? b : (b + d) / 2);
    if (!(x >= 0 && y >= 0 && x < screen.width && y < screen.height)) continue;
    const key = `${x},${y}`;
    if (seen.has(key)) continue;
    seen.add(key);
    points.push({ x, y, text: snippet(text, m.start, m.end) });
    if (points.length >= MAX_POINTS) break;
  }
  return points;
}

// --- snapping -----------------------------------------------------------------------------------

/**
 * An element covering more than this share of the screen is a container (a launcher's
 * "workspace", a list, a web page), not a thing to tap: its centre is some other element, often
 * far from the point. Such elements are never a snap.
 */
const CONTAINER_SHARE = 0.25;
/** How far beside an element a point may lie and still stand for it: 5% of the short side. */
const BESIDE_SHARE = 0.05;
/** How far from the point a beside-snap's tap (the element's centre) may be: 25% of the side. */
const REACH_SHARE = 0.25;

/**
 * Snaps each point to the UI element it stands for, so the agent taps exact bounds instead of a
 * model's estimate. Elements larger than a quarter of the screen are containers and never count.
 * - inside: among the elements that contain the point, the smallest tappable one, else the
 *   smallest labelled one; tap its centre.
 * - beside: else the nearest element, when its edge is within 5% of the screen's short side (54 px
 *   on a 1080-px-wide phone) and its centre within 25% (270 px) of the point; tap its centre.
 * - else no element: tap the point itself. Never a tap far from the point named that lands on
 *   whatever lies at a big element's centre.
 * Pass `usefulElements(parseUiTree(xml), screen)` so snaps carry merged labels and clipped
 * bounds; a bare parse works too (layout plumbing is skipped).
 * @param screen device size, which sets the container size and both distances.
 */
export function snapPoints(points: Point[], elements: UiElement[], screen: Size): SnappedPoint[] {
  const screenArea = screen.width * screen.height;
  const candidates = elements
    .filter((e) => area(e) > 0 && area(e) <= CONTAINER_SHARE * screenArea)
    .filter((e) => isInteractive(e) || isLabelled(e))
    .map((e) => ({ e, tappable: isTappable(e), area: area(e) }));
  const short = Math.min(screen.width, screen.height);
  const beside = BESIDE_SHARE * short;
  const reach = REACH_SHARE * short;

  return points.map((point) => {
    let inside: typeof candidates[number] | undefined;
    let near: typeof candidates[number] | undefined;
    let nearDistance = Infinity;
    for (const c of candidates) {
      const d = distanceTo(point, c.e);
      if (d === 0) {
        if (!inside || better(c, inside)) inside = c;
      } else if (d < nearDistance || (d === nearDistance && near && better(c, near))) {
        near = c;
        nearDistance = d;
      }
    }
    if (inside) {
      return { point, element: inside.e, inside: true, distance: 0, tap: inside.e.center };
    }
    if (
      near && nearDistance <= beside &&
      Math.hypot(near.e.center.x - point.x, near.e.center.y - point.y) <= reach
    ) {
      const distance = Math.round(nearDistance);
      return { point, element: near.e, inside: false, distance, tap: near.e.center };
    }
    return { point, element: null, inside: false, distance: 0, tap: { x: point.x, y: point.y } };
  });
}

/**
 * One line per snap, e.g.
 * `(540,1200) → "Send" @ [900,2200][1060,2300] tap (980,2250)`,
 * `(700,90) → nearest "Search", 24 px away @ [0,120][1080,260] tap (540,190)`,
 * `(60,30) → no element here: tap the point itself (60,30)`.
 */
export function formatSnapLines(snaps: SnappedPoint[]): string[] {
  return snaps.map(({ point, element, inside, distance, tap }) => {
    const from = `(${point.x},${point.y})`;
    if (!element) return `${from} → no element here: tap the point itself (${tap.x},${tap.y})`;
    const b = element.bounds;
    const label = JSON.stringify(element.label || shortName(element.className) || "element");
    const what = inside ? label : `nearest ${label}, ${distance} px away`;
    return `${from} → ${what} @ [${b.x1},${b.y1}][${b.x2},${b.y2}] tap (${tap.x},${tap.y})`;
  });
}

/**
 * The prompt sent with the screenshot. It gives the real screen size and the image's scale
 * so the model answers in device pixels, the space the UI tree and phone_tap use.
 */
export function buildVisionPrompt(question: string | undefined, screen: Size, image: Size): string {
  const asked = question?.trim() ||
    "Describe this screen: which app and screen it is, what it shows, and its main " +
      "interactive elements (buttons, fields, tabs, links, toggles) with the position of each.";
  const sx = image.width / screen.width;
  const sy = image.height / screen.height;
  const scale = Math.abs(sx - 1) < 0.001 && Math.abs(sy - 1) < 0.001
    ? "The image is at full device resolution: image pixels are device pixels."
    : `The image you see is ${image.width}×${image.height} pixels, the screen scaled by ` +
      `${scaleText(sx, sy)}; divide image coordinates by that factor to get device pixels.`;
  return [
    `This is a screenshot of an Android phone whose screen is ${screen.width}×${screen.height} ` +
    `device pixels, with the origin at the top-left corner, x growing to the right and y downward.`,
    scale,
    "Whenever you locate something, give the centre of it in device pixels as (x, y). " +
    "Do not give image pixels or fractions of the screen.",
    "",
    asked,
  ].join("\n");
}

function scaleText(sx: number, sy: number): string {
  const fmt = (v: number) => String(Number(v.toFixed(3)));
  return Math.abs(sx - sy) < 0.005 ? fmt(sx) : `${fmt(sx)} horizontally and ${fmt(sy)} vertically`;
}

// Elements from usefulElements carry labels of their own or borrowed from a child; a bare
// parse labels layout plumbing by resource-id, which is not a name worth snapping to.
function isLabelled(e: UiElement): boolean {
  if (e.text.trim() !== "" || e.contentDesc.trim() !== "") return true;
  return e.label !== "" && e.label !== shortName(e.resourceId) &&
    e.label !== shortName(e.className);
}

function better(
  a: { tappable: boolean; area: number },
  b: { tappable: boolean; area: number },
): boolean {
  if (a.tappable !== b.tappable) return a.tappable;
  return a.area < b.area;
}

function area(e: UiElement): number {
  const b = e.bounds;
  return Math.max(0, b.x2 - b.x1) * Math.max(0, b.y2 - b.y1);
}

// Bounds are [x1, x2) × [y1, y2), as Android's Rect.
function distanceTo(p: { x: number; y: number }, e: UiElement): number {
  const b = e.bounds;
  const dx = p.x < b.x1 ? b.x1 - p.x : p.x >= b.x2 ? p.x - (b.x2 - 1) : 0;
  const dy = p.y < b.y1 ? b.y1 - p.y : p.y >= b.y2 ? p.y - (b.y2 - 1) : 0;
  return Math.hypot(dx, dy);
}

/**
 * The words around a match, on its line, for a point's `text`. Exported for the tests' reference
 * scanner (tests/fixtures/coordinate_answers.ts), so both name a point the same way.
 */
export function snippet(text: string, start: number, end: number): string {
  const lineStart = text.lastIndexOf("\n", start - 1) + 1;
  const lineEnd = text.indexOf("\n", end);
  const from = Math.max(lineStart, start - 60);
  const to = Math.min(lineEnd < 0 ? text.length : lineEnd, end + 20);
  const body = text.slice(from, to).replace(/\s+/g, " ").trim();
  return `${from > lineStart ? "…" : ""}${body}${
    to < (lineEnd < 0 ? text.length : lineEnd) ? "…" : ""
  }`;
}
