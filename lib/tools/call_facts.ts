// The journal's facts made from screens: the element a verb resolved, what its action changed, what
// a look saw. Pure; loaded on first use (call_record.ts, loadFacts), as the tree's modules are.

import type { Located } from "../screen/element_target.ts";
import { foreground } from "../screen/changes.ts";
import type { ScreenReading } from "../screen/phone_screen.ts";
import type { Settled } from "../screen/settle.ts";
import type { Size, UiElement } from "../screen/ui_tree.ts";
import { shortName } from "../screen/ui_tree_labels.ts";
import { formatElementLine, usefulElements } from "../screen/ui_tree_summary.ts";
import type { Observation, RecordedChange, RecordedTarget } from "./call_record.ts";

/** The element found by name, and the point the action used. */
export function targetOf(name: string, found: Located): RecordedTarget {
  const { label, bounds, center, password } = found.element;
  return {
    name,
    label,
    bounds,
    point: { ...center },
    password,
    by: matchedName(name, found.element),
  };
}

/** The element's name that `name` matched: exact (ignoring case) first, then containing it. */
function matchedName(name: string, e: UiElement): RecordedTarget["by"] {
  const want = name.trim().toLowerCase();
  const fields = [
    ["text", e.text],
    ["content-desc", e.contentDesc],
    ["resource-id", e.resourceId],
  ] as const;
  const names = (value: string) =>
    [value, value.includes("/") ? shortName(value) : ""].map((n) => n.trim().toLowerCase());
  const exact = fields.find(([, value]) => value !== "" && names(value).includes(want));
  const within = fields.find(([, value]) =>
    value !== "" && names(value).some((n) => n.includes(want))
  );
  const [field, value] = exact ?? within ?? ["text", e.text];
  return { field, value };
}

/** Whether the field typed into is a password field: the named one, else the focused one. */
export function passwordOf(
  target: RecordedTarget | undefined,
  before: ScreenReading | undefined,
): boolean | "unknown" {
  if (target !== undefined) return target.password;
  const focused = before?.elements.find((e) => e.focused && e.className.endsWith("EditText"));
  return focused === undefined ? "unknown" : focused.password;
}

/**
 * An element named by what the screen shows (its text or content-desc, whole): what a replay can
 * wait for and a Maestro text selector can find. One known only by its id or class is left out.
 */
function named(e: UiElement): boolean {
  return (e.text !== "" || e.contentDesc !== "") && !e.label.endsWith("…");
}

/** The [changed] facts of an action whose screen before was `before`, from the wait to settle. */
export function changeOf(before: ScreenReading | undefined, result: Settled): RecordedChange {
  const after = result.reading;
  const then = before === undefined ? [] : usefulElements([...before.elements]);
  const now = after === undefined ? [] : usefulElements([...after.elements]);
  const thenKeys = new Set(then.map(formatElementLine));
  const nowKeys = new Set(now.map(formatElementLine));
  const labels = (list: UiElement[]) => [...new Set(list.filter(named).map((e) => e.label))];
  // Interactive first, as the section lists them: what a replay is likeliest to act on next.
  const rank = (e: UiElement) => (e.clickable || e.className.endsWith("EditText") ? 0 : 1);
  const appeared = now.filter((e) => !thenKeys.has(formatElementLine(e)))
    .sort((a, b) => rank(a) - rank(b));
  return {
    settled: result.end === "settled",
    app: {
      before: before === undefined ? undefined : foreground(before),
      after: after === undefined ? undefined : foreground(after),
    },
    appeared: labels(appeared),
    gone: labels(then.filter((e) => !nowKeys.has(formatElementLine(e)))),
  };
}

/** The extent of a dump's root nodes: the screen, as the tree sees it. */
export function treeSize(elements: readonly UiElement[]): Size | undefined {
  const roots = elements.filter((e) => e.depth === 0);
  if (roots.length === 0) return undefined;
  return {
    width: Math.max(...roots.map((e) => e.bounds.x2)),
    height: Math.max(...roots.map((e) => e.bounds.y2)),
  };
}

/** What a look saw: from the screenshot's size when there was one, else the tree's extent. */
export function observationOf(
  tree: readonly UiElement[] | undefined,
  screen: Size | undefined,
): Observation {
  const app = tree?.find((e) => e.depth === 0 && e.packageName !== "")?.packageName;
  return {
    screen: screen ?? (tree === undefined ? undefined : treeSize(tree)),
    app,
    elements: tree === undefined ? undefined : usefulElements([...tree]).length,
  };
}
