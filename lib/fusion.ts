// Fuses phone_look's two channels: the prompt sent to the vision model, the coordinates
// found in its answer, and their snap onto UI-tree elements. Pure.

import { isInteractive, shortName, type Size, type UiElement } from "./ui_tree.ts";

export interface Point {
  x: number;
  y: number;
  /** The part of the vision answer the coordinates came from. */
  text: string;
}

export interface SnappedPoint {
  point: Point;
  element: UiElement | null;
  inside: boolean;
  /** Pixels from the point to the element's bounds; 0 when inside. */
  distance: number;
}

export const MAX_POINTS = 20;
/** How far from a point an element may be and still be its snap, as a share of the diagonal. */
export const SNAP_RADIUS = 0.15;

const NUM = String.raw`(-?\d+(?:\.\d+)?)`;
const SEP = String.raw`\s*,\s*`;
const PX = String.raw`(?:\s*px)?`;
const BOX_PAIRS = String.raw`\[\s*${NUM}${SEP}${NUM}\s*\]\s*\[\s*${NUM}${SEP}${NUM}\s*\]`;
const BOX_TUPLE = String.raw`[(\[]\s*${NUM}${SEP}${NUM}${SEP}${NUM}${SEP}${NUM}\s*[)\]]`;
// Every run of spaces has one way to match: two adjacent optional \s* would backtrack
// quadratically on a long run of spaces in an answer.
const X_THEN_Y = String
  .raw`\bx\s*[=:]\s*${NUM}${PX}(?:\s*[,;])?\s*(?:and\s+)?y\s*[=:]\s*${NUM}${PX}`;
const PAIR = String.raw`[(\[]\s*${NUM}${PX}${SEP}${NUM}${PX}\s*[)\]]`;
// A bare "540,1200" is only a point after a word that announces one, and not when a unit
// other than px follows ("at 540,1200ms").
const BARE_PAIR = String.raw`\b(?:at|coordinates?|coords|position|point|tap|click)\s*:?\s*` +
  String.raw`${NUM}${SEP}${NUM}${PX}(?!\.?\d|[a-z])`;
// Alternatives are tried left to right at each position, so the box forms come before the
// pair forms that would otherwise take their first half.
const COORDINATES = new RegExp([BOX_PAIRS, BOX_TUPLE, X_THEN_Y, PAIR, BARE_PAIR].join("|"), "gi");

/**
 * The coordinates a vision model wrote in its answer — "(540, 1200)", "[540,1200]",
 * "x=540, y=1200", "at 540,1200", and boxes "[x1,y1][x2,y2]" or "(x1, y1, x2, y2)" as their
 * centre — in device pixels, inside the screen, without duplicates, at most MAX_POINTS.
 */
export function extractPoints(visionText: string, screen: Size): Point[] {
  const points: Point[] = [];
  const seen = new Set<string>();
  for (const m of visionText.matchAll(COORDINATES)) {
    const raw = m.slice(1).filter((v): v is string => v !== undefined);
    // Fractions such as (0.42, 0.61) are normalized coordinates, not device pixels.
    if (raw.every((v) => v.includes(".") && Math.abs(Number(v)) <= 1)) continue;
    const [a = NaN, b = NaN, c, d] = raw.map(Number);
    const x = Math.round(c === undefined ? a : (a + c) / 2);
    const y = Math.round(d === undefined ? b : (b + d) / 2);
    if (!(x >= 0 && y >= 0 && x < screen.width && y < screen.height)) continue;
    const key = `${x},${y}`;
    if (seen.has(key)) continue;
    seen.add(key);
    points.push({ x, y, text: snippet(visionText, m.index, m.index + m[0].length) });
    if (points.length >= MAX_POINTS) break;
  }
  return points;
}

/**
 * Snaps each point to a UI element: among those whose bounds contain it, the smallest
 * interactive one, else the smallest labelled one; otherwise the nearest interactive or
 * labelled element within SNAP_RADIUS of the screen diagonal; otherwise none.
 * Pass `usefulElements(parseUiTree(xml), screen)` so snaps carry merged labels and clipped
 * bounds; a bare parse works too (layout plumbing is skipped).
 * @param screen device size, which sets the snap radius.
 */
export function snapPoints(points: Point[], elements: UiElement[], screen: Size): SnappedPoint[] {
  const candidates = elements.filter((e) => area(e) > 0 && (isInteractive(e) || isLabelled(e))).map(
    (e) => ({ e, interactive: isInteractive(e), area: area(e) }),
  );
  const radius = SNAP_RADIUS * Math.hypot(screen.width, screen.height);

  return points.map((point) => {
    let inside: typeof candidates[number] | undefined;
    let near: typeof candidates[number] | undefined;
    let nearDistance = Infinity;
    for (const c of candidates) {
      const d = distanceTo(point, c.e);
      if (d === 0) {
        if (!inside || better(c, inside)) inside = c;
      } else if (
        d < nearDistance ||
        (d === nearDistance && near !== undefined && better(c, near))
      ) {
        near = c;
        nearDistance = d;
      }
    }
    if (inside) return { point, element: inside.e, inside: true, distance: 0 };
    if (near && nearDistance <= radius) {
      return { point, element: near.e, inside: false, distance: Math.round(nearDistance) };
    }
    return { point, element: null, inside: false, distance: 0 };
  });
}

/**
 * One line per snap, e.g.
 * `(540,1200) → "Send" @ [900,2200][1060,2300] tap (980,2250)`,
 * `(700,90) → nearest "Search", 24 px away @ [0,120][1080,260] tap (540,190)`,
 * `(10,10) → no element nearby`.
 */
export function formatSnapLines(snaps: SnappedPoint[]): string[] {
  return snaps.map(({ point, element, inside, distance }) => {
    const from = `(${point.x},${point.y})`;
    if (!element) return `${from} → no element nearby`;
    const b = element.bounds;
    const label = JSON.stringify(element.label || shortName(element.className) || "element");
    const what = inside ? label : `nearest ${label}, ${distance} px away`;
    return `${from} → ${what} @ [${b.x1},${b.y1}][${b.x2},${b.y2}] tap (${element.center.x},${element.center.y})`;
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
  a: { interactive: boolean; area: number },
  b: { interactive: boolean; area: number },
): boolean {
  if (a.interactive !== b.interactive) return a.interactive;
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

function snippet(text: string, start: number, end: number): string {
  const lineStart = text.lastIndexOf("\n", start - 1) + 1;
  const lineEnd = text.indexOf("\n", end);
  const from = Math.max(lineStart, start - 60);
  const to = Math.min(lineEnd < 0 ? text.length : lineEnd, end + 20);
  const body = text.slice(from, to).replace(/\s+/g, " ").trim();
  return `${from > lineStart ? "…" : ""}${body}${
    to < (lineEnd < 0 ? text.length : lineEnd) ? "…" : ""
  }`;
}
