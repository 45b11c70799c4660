// Turns `uiautomator dump` output into UI elements and the short summary phone_look shows.
// Pure: a hand-written scanner over the tags (no XML dependency), linear in the dump size.

import type { Bounds, Size } from "../core/geometry.ts";
import { truncate } from "../core/text.ts";

// The tree's modules and their readers name the geometry through here too; it lives in core.
export type { Bounds, Size } from "../core/geometry.ts";

export interface UiElement {
  /** text, else content-desc, else the resource-id's short name; one line, at most ~80 chars. */
  label: string;
  /** Always "" for password fields, so their contents never leave the server. */
  text: string;
  contentDesc: string;
  resourceId: string;
  className: string;
  packageName: string;
  /** Device pixels, x2/y2 exclusive; all zero when the dump's bounds were missing or malformed. */
  bounds: Bounds;
  center: { x: number; y: number };
  clickable: boolean;
  longClickable: boolean;
  scrollable: boolean;
  focusable: boolean;
  focused: boolean;
  checkable: boolean;
  checked: boolean;
  enabled: boolean;
  selected: boolean;
  password: boolean;
  /** Nesting level among <node> elements; a window's root node is 0. */
  depth: number;
}

export type DumpResult =
  | { ok: true; xml: string }
  | {
    ok: false;
    /** The ERROR line uiautomator printed, or why no usable XML was found. */
    reason: string;
    /** True for "could not get idle state" (an animated screen), which is worth a retry. */
    idleState: boolean;
  };

export const SUMMARY_MAX = 40;
export const LABEL_MAX = 80;

/**
 * Finds the XML in the output of `uiautomator dump <path> && cat <path>` (or a dump to
 * /dev/tty), around the "UI hierchary dumped to: …" line (AOSP's spelling) that may come before
 * or after it. uiautomator exits 0 even when it fails, so failure is read from its ERROR line:
 * "ERROR: could not get idle state." or "ERROR: null root node returned by
 * UiTestAutomationBridge." (DumpCommand.run,
 * https://github.com/aosp-mirror/platform_frameworks_base/blob/4fecab570da64a1956352aedf1b3245d3ba26030/cmds/uiautomator/cmds/uiautomator/src/com/android/commands/uiautomator/DumpCommand.java).
 */
export function extractDump(output: string): DumpResult {
  const text = output.charCodeAt(0) === 0xfeff ? output.slice(1) : output;
  let start = text.indexOf("<?xml");
  const open = text.indexOf("<hierarchy");
  if (start < 0 || (open >= 0 && open < start)) start = open;
  if (start >= 0 && open >= 0) {
    const close = text.lastIndexOf("</hierarchy>");
    if (close > open) return { ok: true, xml: text.slice(start, close + "</hierarchy>".length) };
    const selfClosed = /^<hierarchy\b[^>]*\/>/.exec(text.slice(open));
    if (selfClosed) return { ok: true, xml: text.slice(start, open + selfClosed[0].length) };
  }
  // The dump goes to a fresh path, so complete XML is always the current screen; an ERROR
  // line only matters when there is none. Search outside the XML so on-screen text that
  // happens to read "ERROR:" is not mistaken for uiautomator's own message.
  const outside = start >= 0 ? text.slice(0, start) : text;
  const error = /^[ \t]*(ERROR:[^\r\n]*)/m.exec(outside)?.[1]?.trim();
  if (error) {
    return { ok: false, reason: error, idleState: /could not get idle state/i.test(error) };
  }
  if (start >= 0) {
    return {
      ok: false,
      reason: "the XML dump is cut short (no closing </hierarchy>); the adb link may have " +
        "dropped mid-transfer",
      idleState: false,
    };
  }
  const excerpt = truncate(collapse(text), 200, "");
  return {
    ok: false,
    reason: excerpt === "" ? "no XML in output" : `no XML in output (got: ${excerpt})`,
    idleState: false,
  };
}

/** Every <node> of a uiautomator dump, in document order. Never throws on malformed input. */
export function parseUiTree(xml: string): UiElement[] {
  const elements: UiElement[] = [];
  const n = xml.length;
  let depth = 0;
  let pos = 0;
  while (pos < n) {
    const lt = xml.indexOf("<", pos);
    if (lt < 0) break;
    const next = xml.charCodeAt(lt + 1);
    if (next === 0x3f /* ? */) {
      pos = skipPast(xml, "?>", lt + 2);
      continue;
    }
    if (next === 0x21 /* ! */) {
      if (xml.startsWith("<!--", lt)) pos = skipPast(xml, "-->", lt + 4);
      else if (xml.startsWith("<![CDATA[", lt)) pos = skipPast(xml, "]]>", lt + 9);
      else pos = skipPast(xml, ">", lt + 2);
      continue;
    }
    if (next === 0x2f /* / */) {
      const gt = xml.indexOf(">", lt + 2);
      if (gt < 0) break;
      if (xml.slice(lt + 2, gt).trim() === "node" && depth > 0) depth--;
      pos = gt + 1;
      continue;
    }
    const tag = scanStartTag(xml, lt);
    pos = tag.end;
    if (tag.name !== "node") continue;
    elements.push(toElement(tag.attributes, depth));
    if (!tag.selfClosing) depth++;
  }
  return elements;
}

/** One summary line: `<label> @ [x1,y1][x2,y2]`. */
export function formatElementLine(e: UiElement): string {
  const b = e.bounds;
  return `${e.label} @ [${b.x1},${b.y1}][${b.x2},${b.y2}]`;
}

/**
 * The elements worth an agent's attention, uncapped and in document order: labelled
 * (text or content-desc) or interactive, with on-screen area. Bounds are clipped to the
 * screen so each center is tappable. A non-scrollable interactive container with no text or
 * content-desc of its own, whose only labelled content is one non-interactive descendant
 * (and which holds no other control), takes that descendant's label and replaces it: the
 * container is what receives the tap. Unlabelled interactive
 * elements are labelled with their class's short name.
 * @param screen device size; when omitted, the extent of the dump's root nodes.
 */
export function usefulElements(elements: UiElement[], screen?: Size): UiElement[] {
  return rankUseful(elements, screen).map((r) => r.element);
}

/**
 * The `[ui-tree]` section: at most `max` useful elements, interactive and labelled first,
 * then labelled, then unlabelled interactive; screen order (top-to-bottom, left-to-right)
 * within each group.
 */
export function summarizeUiTree(
  elements: UiElement[],
  max: number = SUMMARY_MAX,
  screen?: Size,
): { lines: string[]; elements: UiElement[] } {
  const groups: UiElement[][] = [[], [], []];
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

/** 0: interactive and labelled, 1: labelled only, 2: interactive but unlabelled. */
type Group = 0 | 1 | 2;

function rankUseful(
  elements: UiElement[],
  screen: Size | undefined,
): { element: UiElement; group: Group }[] {
  const area = screen ?? rootExtent(elements);
  const count = elements.length;
  const interactive = elements.map(isInteractive);
  const named = elements.map((e, i) => hasOwnName(e, interactive[i] === true));
  const spoken = elements.map((e) => e.text.trim() !== "" || e.contentDesc.trim() !== "");
  const shown = elements.map((e) => clip(e.bounds, area));
  // owner[i]: the nearest interactive element among i and its ancestors (-1: none).
  const owner = new Int32Array(count).fill(-1);
  const labelledContent = new Int32Array(count);
  const soleLabel = new Int32Array(count).fill(-1);
  const ownsInteractive = new Uint8Array(count);
  const stack: number[] = [];
  for (let i = 0; i < count; i++) {
    const depth = elements[i]?.depth ?? 0;
    while (stack.length > 0 && (elements[stack[stack.length - 1] ?? 0]?.depth ?? 0) >= depth) {
      stack.pop();
    }
    const parent = stack.length > 0 ? stack[stack.length - 1] ?? -1 : -1;
    const inherited = parent >= 0 ? owner[parent] ?? -1 : -1;
    owner[i] = interactive[i] ? i : inherited;
    if (interactive[i] && inherited >= 0) ownsInteractive[inherited] = 1;
    if (named[i] && !interactive[i] && inherited >= 0 && shown[i]) {
      labelledContent[inherited] = (labelledContent[inherited] ?? 0) + 1;
      soleLabel[inherited] = i;
    }
    stack.push(i);
  }

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
  }

  const out: { element: UiElement; group: Group }[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < count; i++) {
    const e = elements[i];
    const bounds = shown[i];
    if (!e || !bounds || absorbed[i] || !(interactive[i] || named[i])) continue;
    const source = elements[labelFrom[i] ?? -1];
    const label = source?.label ??
      (named[i] ? e.label : shortName(e.className) || "element");
    const group: Group = interactive[i] ? (named[i] || source ? 0 : 2) : 1;
    const element = { ...e, label, bounds, center: centerOf(bounds) };
    const key = `${label}\u0000${boundsKey(element)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ element, group });
  }
  // A bare clickable wrapper with exactly the bounds of a labelled element adds nothing.
  const labelledAt = new Set(out.filter((r) => r.group !== 2).map((r) => boundsKey(r.element)));
  return out.filter((r) => r.group !== 2 || !labelledAt.has(boundsKey(r.element)));
}

function boundsKey(e: UiElement): string {
  const b = e.bounds;
  return `${b.x1},${b.y1},${b.x2},${b.y2}`;
}

/** Whether an agent can act on the element: tap, long-press, toggle, scroll or type into it. */
export function isInteractive(e: UiElement): boolean {
  return isTappable(e) || e.scrollable;
}

/**
 * isInteractive without scrolling: a tap, long-press, toggle or typing acts on the element itself.
 * A list is something to swipe, its children are the taps (fusion.ts snaps to these first).
 */
export function isTappable(e: UiElement): boolean {
  return e.clickable || e.longClickable || e.checkable || e.className.endsWith("EditText");
}

/** `com.app:id/send_button` → `send_button`; `android.widget.ImageButton` → `ImageButton`. */
export function shortName(qualified: string): string {
  const slash = qualified.lastIndexOf("/");
  if (slash >= 0) return qualified.slice(slash + 1);
  const dot = qualified.lastIndexOf(".");
  return dot >= 0 ? qualified.slice(dot + 1) : qualified;
}

// A resource-id names layout plumbing ("content", "action_bar_root") as often as controls,
// so it only counts as a name on something the agent can act on.
function hasOwnName(e: UiElement, interactive: boolean): boolean {
  if (e.text.trim() !== "" || e.contentDesc.trim() !== "") return true;
  return interactive && e.label !== "";
}

function rootExtent(elements: UiElement[]): Size | undefined {
  let width = 0;
  let height = 0;
  for (const e of elements) {
    if (e.depth !== 0) continue;
    width = Math.max(width, e.bounds.x2);
    height = Math.max(height, e.bounds.y2);
  }
  return width > 0 && height > 0 ? { width, height } : undefined;
}

function clip(b: Bounds, area: Size | undefined): Bounds | undefined {
  const x1 = Math.max(b.x1, 0);
  const y1 = Math.max(b.y1, 0);
  const x2 = area ? Math.min(b.x2, area.width) : b.x2;
  const y2 = area ? Math.min(b.y2, area.height) : b.y2;
  if (x2 <= x1 || y2 <= y1) return undefined;
  return { x1, y1, x2, y2 };
}

function centerOf(b: Bounds): { x: number; y: number } {
  return { x: Math.floor((b.x1 + b.x2) / 2), y: Math.floor((b.y1 + b.y2) / 2) };
}

function skipPast(xml: string, marker: string, from: number): number {
  const at = xml.indexOf(marker, from);
  return at < 0 ? xml.length : at + marker.length;
}

interface StartTag {
  name: string;
  attributes: Map<string, string>;
  selfClosing: boolean;
  end: number;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

// Reads `<name a="…" b='…' …>` starting at `lt`. Quoted values may hold `>`; a tag cut off
// by the end of the input yields what was read so far.
function scanStartTag(xml: string, lt: number): StartTag {
  const n = xml.length;
  let i = lt + 1;
  while (i < n) {
    const c = xml.charCodeAt(i);
    if (isSpace(c) || c === 0x2f || c === 0x3e) break;
    i++;
  }
  const name = xml.slice(lt + 1, i);
  const attributes = new Map<string, string>();
  while (i < n) {
    let c = xml.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (c === 0x3e /* > */) return { name, attributes, selfClosing: false, end: i + 1 };
    if (c === 0x2f /* / */ && xml.charCodeAt(i + 1) === 0x3e) {
      return { name, attributes, selfClosing: true, end: i + 2 };
    }
    if (c === 0x3c /* < */) return { name, attributes, selfClosing: true, end: i };
    const nameStart = i;
    while (i < n) {
      c = xml.charCodeAt(i);
      if (c === 0x3d || isSpace(c) || c === 0x3e || c === 0x2f || c === 0x3c) break;
      i++;
    }
    const attr = xml.slice(nameStart, i);
    while (i < n && isSpace(xml.charCodeAt(i))) i++;
    if (xml.charCodeAt(i) !== 0x3d /* = */) {
      if (i === nameStart) i++; // a stray "/" or similar: step over it
      continue;
    }
    i++;
    while (i < n && isSpace(xml.charCodeAt(i))) i++;
    const quote = xml.charCodeAt(i);
    if (quote === 0x22 || quote === 0x27) {
      const close = xml.indexOf(quote === 0x22 ? '"' : "'", i + 1);
      if (close < 0) return { name, attributes, selfClosing: true, end: n };
      attributes.set(attr, decodeEntities(xml.slice(i + 1, close)));
      i = close + 1;
    } else {
      const valueStart = i;
      while (i < n && !isSpace(xml.charCodeAt(i)) && xml.charCodeAt(i) !== 0x3e) i++;
      attributes.set(attr, decodeEntities(xml.slice(valueStart, i)));
    }
  }
  return { name, attributes, selfClosing: true, end: n };
}

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
};

// Surrogate halves are accepted one by one: some serializers write an emoji as two
// numeric references (&#55357;&#56832;), which join back into one character. Android's own
// KXmlSerializer does so for every UTF-16 unit above 126 when its output is not a UTF encoding:
// https://github.com/CyanogenMod/android_libcore/blob/ccedfac1d04b7f9c4df4a144f80283f7af69a9d6/xml/src/main/java/org/kxml2/io/KXmlSerializer.java
function decodeEntities(value: string): string {
  if (!value.includes("&")) return value;
  return value.replace(/&(#[xX][0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, body: string) => {
    if (body.charCodeAt(0) !== 0x23 /* # */) return NAMED_ENTITIES[body] ?? whole;
    const hex = body[1] === "x" || body[1] === "X";
    const code = Number.parseInt(body.slice(hex ? 2 : 1), hex ? 16 : 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

// `[x1,y1][x2,y2]`: Rect.toShortString of the node's visible bounds, clipped to the screen
// (AccessibilityNodeInfoDumper.dumpNodeRec,
// https://github.com/aosp-mirror/platform_frameworks_base/blob/4fecab570da64a1956352aedf1b3245d3ba26030/cmds/uiautomator/library/core-src/com/android/uiautomator/core/AccessibilityNodeInfoDumper.java).
const BOUNDS = /^\s*\[\s*(-?\d+)\s*,\s*(-?\d+)\s*\]\s*\[\s*(-?\d+)\s*,\s*(-?\d+)\s*\]\s*$/;

function parseBounds(value: string | undefined): Bounds {
  const m = value === undefined ? null : BOUNDS.exec(value);
  if (!m) return { x1: 0, y1: 0, x2: 0, y2: 0 };
  return { x1: Number(m[1]), y1: Number(m[2]), x2: Number(m[3]), y2: Number(m[4]) };
}

function toElement(a: Map<string, string>, depth: number): UiElement {
  const flag = (name: string) => a.get(name) === "true";
  const password = flag("password");
  const text = password ? "" : a.get("text") ?? "";
  const contentDesc = a.get("content-desc") ?? "";
  const resourceId = a.get("resource-id") ?? "";
  const bounds = parseBounds(a.get("bounds"));
  return {
    label: makeLabel(text, contentDesc, resourceId, password),
    text,
    contentDesc,
    resourceId,
    className: a.get("class") ?? "",
    packageName: a.get("package") ?? "",
    bounds,
    center: centerOf(bounds),
    clickable: flag("clickable"),
    longClickable: flag("long-clickable"),
    scrollable: flag("scrollable"),
    focusable: flag("focusable"),
    focused: flag("focused"),
    checkable: flag("checkable"),
    checked: flag("checked"),
    enabled: flag("enabled"),
    selected: flag("selected"),
    password,
    depth,
  };
}

function makeLabel(text: string, desc: string, resourceId: string, password: boolean): string {
  const id = shortName(resourceId);
  if (password) {
    const name = collapse(desc) || id;
    return cutLabel(name ? `${name} (password field)` : "password field");
  }
  return cutLabel(collapse(text) || collapse(desc) || id);
}

// Control characters become spaces too: a label must stay on its one summary line.
function collapse(s: string): string {
  if (s === "") return s;
  // deno-lint-ignore no-control-regex
  return s.replace(/[\s\u0000-\u001f\u007f]+/g, " ").trim();
}

// LABEL_MAX counts graphemes, not UTF-16 units as text.ts's truncate does: a label of emoji or
// accented letters keeps as many characters as a plain one. Cut on grapheme boundaries so an emoji
// sequence or a flag is never split in half.
function cutLabel(s: string): string {
  if (s.length <= LABEL_MAX) return s;
  const graphemes: string[] = [];
  for (const { segment } of new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(s)) {
    graphemes.push(segment);
    if (graphemes.length > LABEL_MAX) break;
  }
  if (graphemes.length <= LABEL_MAX) return s;
  return `${graphemes.slice(0, LABEL_MAX - 1).join("").trimEnd()}…`;
}
