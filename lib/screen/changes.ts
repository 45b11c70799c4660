// What an action changed on screen, as the [changed] section reads: the foreground app before →
// after, the keyboard, elements that appeared (+) and disappeared (-). Pure; settle.ts reads the phone.

import type { ScreenReading } from "./phone_screen.ts";
import { isInteractive, type UiElement } from "./ui_tree.ts";
import { shortName } from "./ui_tree_labels.ts";
import { formatElementLine, summarizeUiTree, usefulElements } from "./ui_tree_summary.ts";

/** The most lines the section shows, the note of what was left out included. */
export const CHANGED_MAX_LINES = 15;

/** The focused window and app as `dumpsys window` and `dumpsys input_method` print them. */
export interface WindowState {
  /** mCurrentFocus's `package/activity`: the window that has focus (drawn). */
  focus: string | undefined;
  /** mFocusedApp's `package/activity`: the activity started, drawn or not. */
  focusedApp: string | undefined;
  keyboard: boolean | undefined;
}

/**
 * Reads the lines of screenStateCommand: `mCurrentFocus=Window{5f0e1d2 u0 pkg/pkg.Activity}`,
 * `mFocusedApp=ActivityRecord{3c2b1a0 u0 pkg/.Activity t12}` (AppWindowToken{… token=Token{… ActivityRecord{…}}} on
 * Android 9; the last `pkg/…` word is taken), `mInputShown=true`. The first of each counts: Android
 * 10+ prints one mCurrentFocus per display, the default display first. `mCurrentFocus=null` (no
 * window has focus, as during some switches) reads as undefined. The lines come after the dump, so
 * only the text outside its XML is read: on-screen text cannot pass for them.
 */
export function parseWindowState(text: string): WindowState {
  const outside = outsideXml(text);
  const component = (line: string | undefined) =>
    line === undefined
      ? undefined
      : [...line.matchAll(/\s([A-Za-z0-9_.]+\/[A-Za-z0-9_.$]+)/g)].at(-1)?.[1];
  const focusLine = /mCurrentFocus=(.*)/.exec(outside)?.[1];
  const appLine = /mFocusedApp=(.*)/.exec(outside)?.[1];
  const shown = /mInputShown=(true|false)/.exec(outside)?.[1];
  return {
    focus: component(focusLine),
    focusedApp: component(appLine),
    keyboard: shown === undefined ? undefined : shown === "true",
  };
}

/**
 * `text` without the dump's XML: from its `<?xml` or `<hierarchy` to its `</hierarchy>`, or to the
 * end when it was cut short. XML escapes `<` in attribute values, so no screen text can close it.
 */
function outsideXml(text: string): string {
  const starts = [text.indexOf("<?xml"), text.indexOf("<hierarchy")].filter((i) => i >= 0);
  if (starts.length === 0) return text;
  const start = Math.min(...starts);
  const close = text.lastIndexOf("</hierarchy>");
  const end = close > start ? close + "</hierarchy>".length : text.length;
  return text.slice(0, start) + text.slice(end);
}

/** `pkg/.Activity` as `pkg/pkg.Activity`, the form a window's title uses. */
function fullComponent(component: string): string {
  const [pkg = "", activity = ""] = component.split("/", 2);
  return activity.startsWith(".") ? `${pkg}/${pkg}${activity}` : component;
}

/**
 * The focused window is not the activity started last: an activity started and its window not yet
 * drawn (mFocusedApp moved on, mCurrentFocus still on the old window). A window without a
 * component (null, a popup, the notification shade) says nothing either way.
 */
export function windowChanging(state: Pick<WindowState, "focus" | "focusedApp">): boolean {
  const { focus, focusedApp } = state;
  if (focus === undefined || focusedApp === undefined) return false;
  return fullComponent(focus) !== fullComponent(focusedApp);
}

/**
 * The focused window's app has no node in the tree: the dump was read before that window drew
 * (a ROM whose dump answers at once with the old screen), and the focus lines, read right after
 * the dump, already name the new one. A focus without a component (a popup, the shade) says
 * nothing here.
 */
export function treeBehindFocus(
  read: { focus: string | undefined; elements: readonly UiElement[] },
): boolean {
  const { focus, elements } = read;
  if (focus === undefined || !focus.includes("/") || elements.length <= 1) return false;
  const app = packageOf(focus);
  return !elements.some((e) => e.packageName === app);
}

/** The package a tree belongs to: its first root node's (the app window's). */
function treePackage(elements: readonly UiElement[]): string | undefined {
  return elements.find((e) => e.depth === 0 && e.packageName !== "")?.packageName ??
    elements.find((e) => e.packageName !== "")?.packageName;
}

/** What a reading says is in front: the focused window's component, else the tree's package. */
export function foreground(reading: ScreenReading): string | undefined {
  return reading.focus ?? treePackage(reading.elements);
}

const packageOf = (app: string) => app.split("/", 1)[0] ?? app;

/** What sameScreen compares of a reading. */
type Shown = Pick<ScreenReading, "elements" | "focus" | "keyboard">;

/** Two readings show the same screen: same focus, keyboard and element list. */
export function sameScreen<A extends Shown, B extends Shown>(a: A, b: B): boolean {
  if (a.focus !== b.focus || a.keyboard !== b.keyboard) return false;
  if (a.elements.length !== b.elements.length) return false;
  return a.elements.every((e, i) => elementKey(e) === elementKey(b.elements[i]!));
}

function elementKey(e: UiElement): string {
  const b = e.bounds;
  return [
    e.depth,
    e.className,
    e.resourceId,
    e.text,
    e.contentDesc,
    b.x1,
    b.y1,
    b.x2,
    b.y2,
    e.checked,
    e.selected,
    e.focused,
    e.enabled,
  ].join("\u0000");
}

/** The app line: `app: before → after` when it changed, `app: after` when nothing came before. */
function appLine(before: ScreenReading | undefined, after: ScreenReading): string | undefined {
  const now = foreground(after);
  if (now === undefined) return undefined;
  if (before === undefined) return `app: ${now}`;
  const then = foreground(before);
  if (then === undefined) return `app: ${now}`;
  // A tree-only reading knows the package, not the activity: compare what both know.
  const changed = before.focus !== undefined && after.focus !== undefined
    ? then !== now
    : packageOf(then) !== packageOf(now);
  return changed ? `app: ${then} → ${now}` : undefined;
}

function keyboardLine(
  before: ScreenReading | undefined,
  after: ScreenReading,
): string | undefined {
  if (after.keyboard === undefined) return undefined;
  // Nothing to compare with: the keyboard as it is now, among what the screen shows.
  if (before === undefined) return after.keyboard ? "keyboard: shown" : undefined;
  // A "before" from a look or an element lookup did not ask: no change can be told.
  if (before.keyboard === undefined || before.keyboard === after.keyboard) return undefined;
  return after.keyboard ? "keyboard: shown" : "keyboard: hidden";
}

function placed(e: UiElement): string {
  return formatElementLine(e);
}

/** Elements in `after` and not `before` (+) and the other way (-), interactive first. */
function elementChanges(before: readonly UiElement[], after: readonly UiElement[]): string[] {
  const then = usefulElements([...before]);
  const now = usefulElements([...after]);
  const thenKeys = new Set(then.map(placed));
  const nowKeys = new Set(now.map(placed));
  const changes = [
    ...now.filter((e) => !thenKeys.has(placed(e))).map((e) => ({ e, sign: "+" })),
    ...then.filter((e) => !nowKeys.has(placed(e))).map((e) => ({ e, sign: "-" })),
  ];
  // As phone_look's [ui-tree] ranks them: interactive and named, named, then interactive
  // elements known only by their class (a row holding a title and a summary).
  const rank = (c: { e: UiElement; sign: string }) =>
    (isInteractive(c.e) ? (unnamed(c.e) ? 4 : 0) : 2) + (c.sign === "+" ? 0 : 1);
  // Array.prototype.sort is stable: screen order within each rank, as the tree lists them.
  changes.sort((a, b) => rank(a) - rank(b));
  return changes.map((c) => `${c.sign} ${placed(c.e)}`);
}

/** Labelled by usefulElements with its class's short name only: nothing an agent would call it. */
function unnamed(e: UiElement): boolean {
  return e.label === "element" || e.label === shortName(e.className);
}

/** At most `max` lines, the last saying how many were left out. */
function capped(lines: string[], max: number): string[] {
  if (lines.length <= max) return lines;
  const kept = lines.slice(0, max - 1);
  return [
    ...kept,
    `(${lines.length - kept.length} more changes not shown; phone_look lists the screen)`,
  ];
}

/**
 * The [changed] section's lines. With no `before` (none read recently), only what is there now:
 * the app, the keyboard if shown and the screen's elements as phone_look lists them.
 */
export function describeChanges(
  before: ScreenReading | undefined,
  after: ScreenReading,
): string[] {
  const head = [appLine(before, after), keyboardLine(before, after)].filter(
    (l): l is string => l !== undefined,
  );
  if (before === undefined) {
    const shown = summarizeUiTree(after.elements, CHANGED_MAX_LINES).lines;
    return capped(
      [...head, "(no earlier screen to compare with: what it shows now)", ...shown],
      CHANGED_MAX_LINES,
    );
  }
  const lines = [...head, ...elementChanges(before.elements, after.elements)];
  return lines.length === 0 ? ["no visible change"] : capped(lines, CHANGED_MAX_LINES);
}
