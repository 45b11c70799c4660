// The UI tree: what an element of a `uiautomator dump` is, finding the dump's XML in adb's output,
// and its <node>s as elements. Pure. Scanning is in ui_tree_xml.ts, labels in ui_tree_labels.ts.

import type { Bounds, Size } from "../core/geometry.ts";
import { oneLine, truncate } from "../core/text.ts";
import { makeLabel } from "./ui_tree_labels.ts";
import { forEachNode } from "./ui_tree_xml.ts";

// The tree's modules and their readers name the geometry through here too; it lives in core.
export type { Bounds, Size } from "../core/geometry.ts";

export interface UiElement {
  /** text, else content-desc, else the resource-id's short name; one line, at most 80 graphemes. */
  label: string;
  /**
   * Set where an element with no name is labelled with its class's short name (usefulElements,
   * matchElements): shown as `(ImageButton)`, never as if the app had named it so.
   */
  classOnly?: boolean;
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
  const excerpt = truncate(oneLine(text), 200, "");
  return {
    ok: false,
    reason: excerpt === "" ? "no XML in output" : `no XML in output (got: ${excerpt})`,
    idleState: false,
  };
}

/** Every <node> of a uiautomator dump, in document order. Never throws on malformed input. */
export function parseUiTree(xml: string): UiElement[] {
  const elements: UiElement[] = [];
  forEachNode(xml, (attributes, depth) => elements.push(toElement(attributes, depth)));
  return elements;
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

/** The middle of `b`, rounded down to a whole pixel: where a tap on the element lands. */
export function centerOf(b: Bounds): { x: number; y: number } {
  return { x: Math.floor((b.x1 + b.x2) / 2), y: Math.floor((b.y1 + b.y2) / 2) };
}

/**
 * The part of `b` inside `area` (from the origin; unbounded on the right and below when `area` is
 * undefined), or undefined when none of it is: where an element can be seen and tapped. `b`
 * itself when all of it is.
 */
export function visibleBounds(b: Bounds, area: Size | undefined): Bounds | undefined {
  // Most elements lie wholly on screen: they keep their own bounds, with nothing allocated.
  const inside = b.x1 >= 0 && b.y1 >= 0 && (!area || (b.x2 <= area.width && b.y2 <= area.height));
  if (inside) return b.x2 > b.x1 && b.y2 > b.y1 ? b : undefined;
  const x1 = Math.max(b.x1, 0);
  const y1 = Math.max(b.y1, 0);
  const x2 = area ? Math.min(b.x2, area.width) : b.x2;
  const y2 = area ? Math.min(b.y2, area.height) : b.y2;
  if (x2 <= x1 || y2 <= y1) return undefined;
  return { x1, y1, x2, y2 };
}

/** The extent of a dump's window roots (depth 0): the screen, when nothing better is known. */
export function rootExtent(elements: readonly UiElement[]): Size | undefined {
  let width = 0;
  let height = 0;
  for (const e of elements) {
    if (e.depth !== 0) continue;
    width = Math.max(width, e.bounds.x2);
    height = Math.max(height, e.bounds.y2);
  }
  return width > 0 && height > 0 ? { width, height } : undefined;
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
    label: makeLabel({ text, contentDesc, resourceId, password }),
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
