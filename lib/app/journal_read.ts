// Reads a journal back (lib/mcp/journal.ts writes it) as the steps a replay runs and a Maestro flow
// holds: the actions that were done, in order, and the waits that came true. Pure.

import type { JournalEntry } from "../mcp/journal.ts";
import type { Size } from "../core/geometry.ts";

/** The verbs that act on the phone: what a replay repeats. */
export const ACTIONS: readonly string[] = [
  "phone_tap",
  "phone_type",
  "phone_swipe",
  "phone_key",
  "phone_intent",
];

/** How many of what an action's [changed] said appeared the next step waits for. */
const EXPECTED_MAX = 3;

/** One line of the journal, with its number in the file (from 1). */
export interface Numbered {
  line: number;
  entry: JournalEntry;
}

export type Step =
  | {
    kind: "act";
    line: number;
    verb: string;
    args: Record<string, unknown>;
    /** What must be on screen before it runs: its element, else what the last action brought. */
    expect: string[];
    /** The screen its coordinates were meant for, when it has coordinates and one is known. */
    screen: Size | undefined;
    /** Its text was left out of the journal (a password field): it cannot be typed back. */
    redacted: boolean;
    /** What its [changed] said appeared (a Maestro flow asserts them). */
    appeared: string[];
  }
  | { kind: "wait"; line: number; name: string; gone: boolean; timeoutMs: number };

/** A journal read back: its entries, and whether its last line was cut (a writer killed). */
export interface ReadJournal {
  entries: Numbered[];
  cut: boolean;
}

function isEntry(value: unknown): value is JournalEntry {
  if (value === null || typeof value !== "object") return false;
  const v = value as Record<string, unknown>;
  return typeof v.verb === "string" && typeof v.outcome === "string" &&
    v.args !== null && typeof v.args === "object";
}

/**
 * The journal's whole lines. A last line with no newline was cut as it was written and is left
 * out; any other line that is not an entry makes the file unreadable (a problem, not steps).
 */
export function readJournal(text: string): ReadJournal | { problem: string } {
  const lines = text.split("\n");
  const last = lines.pop() ?? "";
  const entries: Numbered[] = [];
  for (const [index, line] of lines.entries()) {
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      value = undefined;
    }
    if (!isEntry(value)) {
      return { problem: `line ${index + 1} is not a journal entry (one JSON object per line)` };
    }
    entries.push({ line: index + 1, entry: value });
  }
  return { entries, cut: last.trim() !== "" };
}

/** The wait a look made, when it came true (one that did not is no step to repeat). */
function waitOf({ line, entry }: Numbered): Step | undefined {
  const waited = entry.observed?.waited;
  if (entry.verb !== "phone_look" || waited === undefined || !waited.met) return undefined;
  const timeout = entry.args.timeout_ms;
  return {
    kind: "wait",
    line,
    name: waited.name,
    gone: waited.gone,
    timeoutMs: typeof timeout === "number" && timeout > 0 ? timeout : 10_000,
  };
}

/**
 * The steps to replay: each action that was done, and each wait that came true, in order. Calls
 * that were refused or failed did nothing to repeat; other looks only observed.
 */
export function replaySteps(entries: readonly Numbered[]): Step[] {
  const steps: Step[] = [];
  let appeared: string[] = [];
  let screen: Size | undefined;
  for (const numbered of entries) {
    const { line, entry } = numbered;
    screen = entry.screen ?? entry.observed?.screen ?? screen;
    if (entry.outcome !== "done") continue;
    const wait = waitOf(numbered);
    if (wait !== undefined) {
      steps.push(wait);
      continue;
    }
    if (!ACTIONS.includes(entry.verb)) continue;
    const { device: _device, ...args } = entry.args;
    const element = typeof args.element === "string" ? args.element : undefined;
    const pointed = "x" in args || "x1" in args;
    steps.push({
      kind: "act",
      line,
      verb: entry.verb,
      args,
      expect: element !== undefined ? [element] : appeared.slice(0, EXPECTED_MAX),
      screen: pointed ? entry.screen ?? screen : undefined,
      redacted: entry.redacted?.text !== undefined,
      appeared: entry.changed?.appeared ?? [],
    });
    appeared = entry.changed?.appeared ?? [];
  }
  return steps;
}

/** How a step reads in progress lines and reports: `phone_tap "Save"`, `phone_key back`. */
export function describeStep(step: Step): string {
  if (step.kind === "wait") return `wait ${step.gone ? "until gone" : "for"} "${step.name}"`;
  const { args } = step;
  const what = typeof args.element === "string"
    ? `"${args.element}"`
    : "x1" in args
    ? `(${args.x1}, ${args.y1}) → (${args.x2}, ${args.y2})`
    : "x" in args
    ? `(${args.x}, ${args.y})`
    : "key" in args
    ? String(args.key)
    : step.verb === "phone_intent"
    ? String(args.package ?? args.data ?? args.component ?? args.action ?? "")
    : "";
  return what === "" ? step.verb : `${step.verb} ${what}`;
}
