// What a call leaves on record for the journal: facts only its verb knows (the element it resolved,
// what its [changed] section saw, what a look observed), as data the server hands to the journal.

import type { Bounds, Size } from "../core/geometry.ts";

/** The element an action named, as it was found: the name given, its label, bounds and the point. */
export interface RecordedTarget {
  name: string;
  label: string;
  bounds: Bounds;
  point: { x: number; y: number };
  /** The tree marks it a password field: text typed into it is never written. */
  password: boolean;
  /** Which of its names the name matched, and that name whole (what a Maestro selector needs). */
  by: { field: "text" | "content-desc" | "resource-id"; value: string };
}

/** The [changed] section as facts: the app before → after and the elements that came and went. */
export interface RecordedChange {
  /** False when the screen did not settle within the budget (what it showed last is described). */
  settled: boolean;
  app: { before: string | undefined; after: string | undefined };
  /** Labels of the named elements that appeared, in the section's order (interactive first). */
  appeared: string[];
  gone: string[];
}

/** What a look saw, without the picture: the screen's size, the app in front, how many elements. */
export interface Observation {
  screen: Size | undefined;
  app: string | undefined;
  elements: number | undefined;
  /** A look's wait (wait_for / wait_gone): the name, which way, and whether it came true. */
  waited?: { name: string; gone: boolean; met: boolean };
}

/**
 * Filled by the verb while it runs, read by the server once the call ends (lib/mcp/journal.ts).
 * Every field is optional: a verb that learns nothing leaves it empty.
 */
export interface CallRecord {
  target?: RecordedTarget;
  changed?: RecordedChange;
  observed?: Observation;
  /**
   * Set by phone_type: whether the text went into a password field ("unknown" when no screen read
   * said which field had focus). The journal writes typed text only when this is false.
   */
  password?: boolean | "unknown";
  /** The screen size coordinates were checked against (taps and swipes by x and y). */
  screen?: Size;
}

export function createCallRecord(): CallRecord {
  return {};
}
