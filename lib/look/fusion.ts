// Fuses phone_look's two channels: the prompt sent to the vision model, how much of its answer is
// read and shown, the coordinates found there, and their snap onto UI-tree elements. Pure.

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

// --- the coordinate scanner ---------------------------------------------------------------------
// The forms extractPoints reads, as the regular expressions they once were (case-insensitive;
// NUM = -?\d+(?:\.\d+)?, SEP = \s*,\s*, PX = (?:\s*px)?), tried in this order at each position:
//   box pairs   \[\s*NUM SEP NUM\s*\]\s*\[\s*NUM SEP NUM\s*\]
//   box tuple   [(\[]\s*NUM SEP NUM SEP NUM SEP NUM\s*[)\]]
//   x then y    \bx\s*[=:]\s*NUM PX(?:\s*[,;])?\s*(?:and\s+)?y\s*[=:]\s*NUM PX
//   pair        [(\[]\s*NUM PX SEP NUM PX\s*[)\]]
//   bare pair   \b(?:at|coordinates?|coords|position|point|tap|click)\s*:?\s*NUM SEP NUM PX
//               not followed by \.?\d or a letter ("at 540,1200ms" is a time, not a point)
// As regexes, V8 backtracked: "at" and 100,000 spaces took 5 to 9 s in the bare-pair form, since
// `\s*:?\s*` splits a run of spaces in n ways and each is tried. Each step below reads forward and
// never goes back, so a try reads each character at most a few times; a run of spaces or digits
// is crossed only by tries that start within the dozen tokens before it; so a scan is linear in
// the answer's length (bench/fusion_bench.ts). tests/look/fusion_test.ts checks it against the regexes.

const KEYWORDS = ["at", "coordinates", "coordinate", "coords", "position", "point", "tap", "click"];

// JavaScript's \s: ASCII whitespace, NBSP, the Unicode space separators, line/paragraph separators
// and the BOM.
function isWhiteSpace(c: number): boolean {
  return (c >= 9 && c <= 13) || c === 32 || c === 0xa0 || c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f ||
    c === 0x205f || c === 0x3000 || c === 0xfeff;
}
const isDigit = (c: number) => c >= 48 && c <= 57;
const isLetter = (c: number) => (c | 0x20) >= 97 && (c | 0x20) <= 122;
const isWordChar = (c: number) => isDigit(c) || isLetter(c) || c === 95;
const isClose = (c: number) => c === 41 || c === 93; // ) ]
/** First letters of "x" and the keywords, lower case: the only letters a form starts with. */
const STARTS = new Set([..."x" + KEYWORDS.map((k) => k[0]).join("")].map((l) => l.charCodeAt(0)));

interface Found {
  start: number;
  end: number;
  /** The numbers as written: two for a point, four for a box. */
  values: string[];
}

/**
 * The coordinate forms in a vision answer, read left to right in one pass: each `find…` method
 * tries one form at a position and returns where it ends (or -1), noting the numbers it read in
 * `bounds`. A class so that state is two private fields, not a closure's captured variables; the
 * hand-written scan (not a regex) pays its way in bench/fusion_bench.ts.
 */
class CoordinateScanner {
  readonly #text: string;
  readonly #length: number;
  /** Where the numbers of the current try start and end: at most four, so no array grows. */
  readonly #bounds = new Int32Array(8);
  /** How many numbers the current try has read. */
  #found = 0;

  constructor(text: string) {
    this.#text = text;
    this.#length = text.length;
  }

  *matches(): Generator<Found> {
    for (let i = 0; i < this.#length;) {
      const end = this.#formAt(i);
      if (end < 0) {
        i++;
        continue;
      }
      const values: string[] = [];
      for (let n = 0; n < this.#found; n++) {
        values.push(this.#text.slice(this.#bounds[n * 2], this.#bounds[n * 2 + 1]));
      }
      yield { start: i, end, values };
      i = end;
    }
  }

  /** The end of the first form that matches at i, or -1. */
  #formAt(i: number): number {
    const c = this.#at(i);
    if (c === 40 || c === 91) {
      let end = this.#boxPairs(i);
      if (end < 0) end = this.#bracketed(i, 4, false);
      if (end < 0) end = this.#bracketed(i, 2, true);
      return end;
    }
    if (STARTS.has(c | 0x20) && !isWordChar(this.#at(i - 1))) {
      const end = this.#xThenY(i);
      return end >= 0 ? end : this.#barePair(i);
    }
    return -1;
  }

  /** -1 outside the text, so no test passes there and every code stays a small integer. */
  #at(i: number): number {
    return i >= 0 && i < this.#length ? this.#text.charCodeAt(i) : -1;
  }

  #spaces(i: number): number {
    while (isWhiteSpace(this.#at(i))) i++;
    return i;
  }

  /** Case-insensitive ASCII `w` at i. */
  #word(i: number, w: string): boolean {
    for (let k = 0; k < w.length; k++) {
      if ((this.#at(i + k) | 0x20) !== w.charCodeAt(k)) return false;
    }
    return true;
  }

  /** NUM at i: its end, with the number noted in `bounds`; -1 when there is none. */
  #num(i: number): number {
    let j = this.#at(i) === 45 ? i + 1 : i; // -
    if (!isDigit(this.#at(j))) return -1;
    while (isDigit(this.#at(j))) j++;
    if (this.#at(j) === 46 && isDigit(this.#at(j + 1))) { // .
      j += 2;
      while (isDigit(this.#at(j))) j++;
    }
    this.#bounds[this.#found * 2] = i;
    this.#bounds[this.#found * 2 + 1] = j;
    this.#found++;
    return j;
  }

  /** PX at i: past "px" when only spaces come before it, else i. */
  #px(i: number): number {
    const j = this.#spaces(i);
    return this.#word(j, "px") ? j + 2 : i;
  }

  /** SEP at i: past the comma and the spaces after it; -1 without a comma. */
  #sep(i: number): number {
    const j = this.#spaces(i);
    return this.#at(j) === 44 ? this.#spaces(j + 1) : -1;
  }

  /** `count` numbers joined by SEP, each followed by PX when `units`; the end or -1. */
  #numbers(i: number, count: number, units: boolean): number {
    let j = i;
    for (let n = 0; n < count; n++) {
      if (n > 0 && (j = this.#sep(j)) < 0) return -1;
      if ((j = this.#num(j)) < 0) return -1;
      if (units) j = this.#px(j);
    }
    return j;
  }

  /** What may follow a bare pair: not a digit, ".digit" or a letter. */
  #endsBare(i: number): boolean {
    const c = this.#at(i);
    return !isDigit(c) && !(c === 46 && isDigit(this.#at(i + 1))) && !isLetter(c);
  }

  // Each form starts from no numbers: a failed try may have read some.

  /** "[x1,y1][x2,y2]". */
  #boxPairs(i: number): number {
    this.#found = 0;
    if (this.#at(i) !== 91) return -1;
    let j = this.#numbers(this.#spaces(i + 1), 2, false);
    if (j < 0 || this.#at(j = this.#spaces(j)) !== 93) return -1;
    if (this.#at(j = this.#spaces(j + 1)) !== 91) return -1;
    j = this.#numbers(this.#spaces(j + 1), 2, false);
    return j >= 0 && this.#at(j = this.#spaces(j)) === 93 ? j + 1 : -1;
  }

  /** "(x, y)", "[x, y]", "(x1, y1, x2, y2)". */
  #bracketed(i: number, count: number, units: boolean): number {
    this.#found = 0;
    let j = this.#numbers(this.#spaces(i + 1), count, units);
    return j >= 0 && isClose(this.#at(j = this.#spaces(j))) ? j + 1 : -1;
  }

  /** "x=540, y=1200", "x: 540 and y: 1200". */
  #xThenY(i: number): number {
    this.#found = 0;
    if ((this.#at(i) | 0x20) !== 120) return -1; // x, after a \b the caller checked
    let j = this.#spaces(i + 1);
    if (this.#at(j) !== 61 && this.#at(j) !== 58) return -1; // = :
    if ((j = this.#num(this.#spaces(j + 1))) < 0) return -1;
    j = this.#px(j);
    const k = this.#spaces(j);
    j = this.#spaces(this.#at(k) === 44 || this.#at(k) === 59 ? k + 1 : k); // , ;
    if (this.#word(j, "and") && isWhiteSpace(this.#at(j + 3))) j = this.#spaces(j + 3);
    if ((this.#at(j) | 0x20) !== 121) return -1; // y
    j = this.#spaces(j + 1);
    if (this.#at(j) !== 61 && this.#at(j) !== 58) return -1;
    if ((j = this.#num(this.#spaces(j + 1))) < 0) return -1;
    return this.#px(j);
  }

  /** "at 540, 1200", "tap: 540,1200" and the other keywords. */
  #barePair(i: number): number {
    for (const keyword of KEYWORDS) {
      this.#found = 0;
      if (!this.#word(i, keyword)) continue;
      let j = this.#spaces(i + keyword.length);
      if (this.#at(j) === 58) j = this.#spaces(j + 1); // :
      if ((j = this.#numbers(j, 2, false)) < 0) continue;
      // PX is greedy, but when the text after "px" fails the check, the regex gave it back.
      const withPx = this.#px(j);
      if (withPx !== j && this.#endsBare(withPx)) return withPx;
      if (this.#endsBare(j)) return j;
    }
    return -1;
  }
}

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
