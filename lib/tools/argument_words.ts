// The words for arguments a verb's schema refused: each zod issue said as the rule the argument
// breaks ("y2 is required", "x must be a whole number from 0 to 20000, not -1"), from the schema.

import type { StandardSchemaV1 } from "@modelcontextprotocol/server";

/** One argument's JSON Schema, as the zod schema lists it in tools/list. */
export interface ArgumentRule {
  type?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  enum?: readonly unknown[];
  const?: unknown;
  anyOf?: readonly ArgumentRule[];
}

/** What a call gave and what its verb takes: the arguments, and each one's rule by name. */
export interface ArgumentsSeen {
  args: unknown;
  rules: Readonly<Record<string, ArgumentRule>>;
}

/** A zod issue as the standard schema hands it on: its code and facts beside message and path. */
type Issue = StandardSchemaV1.Issue & {
  code?: string;
  expected?: string;
  keys?: readonly string[];
};

/** zod's int() carries the safe-integer range as bounds; they say nothing to an agent. */
const SAFE = Number.MAX_SAFE_INTEGER;
/** How much of a value the agent sent is repeated back: enough to recognize, never a flood. */
const SHOWN_CHARS = 40;
/** How many unknown names are listed one by one. */
const SHOWN_KEYS = 8;

/**
 * The problems with a call's arguments, one plain sentence per zod issue, in zod's order. A
 * message a schema wrote itself (device's, an element name's) is kept: it is already words.
 */
export function argumentProblems(
  tool: string,
  issues: readonly StandardSchemaV1.Issue[],
  seen: ArgumentsSeen,
): string[] {
  return issues.map((raw) => {
    const issue = raw as Issue;
    const path = (issue.path ?? []).map((p) => String(typeof p === "object" ? p.key : p));
    if (path.length === 0) return wholeProblem(tool, issue, seen);
    const field = path.join(".");
    const given = valueAt(seen.args, path);
    const rule = path.length === 1 ? seen.rules[path[0]!] : undefined;
    if (issue.code === "invalid_type" && given === undefined) {
      return rule === undefined ? `${field} is required` : `${field} is required (${says(rule)})`;
    }
    if (issue.code === "custom" || (issue.code === "invalid_format" && ownWords(issue.message))) {
      return issue.message.startsWith(`${field} `) ? issue.message : `${field}: ${issue.message}`;
    }
    if (rule === undefined) return `${field}: ${issue.message}`;
    return `${field} must be ${says(rule)}, not ${shown(given)}`;
  });
}

/** A problem with the arguments as a whole: names the verb does not take, or not an object. */
function wholeProblem(tool: string, issue: Issue, seen: ArgumentsSeen): string {
  const takes = Object.keys(seen.rules);
  const its = takes.length === 0
    ? `${tool} takes no arguments`
    : `its arguments are ${takes.join(", ")}`;
  if (issue.code === "unrecognized_keys" && issue.keys !== undefined) {
    const names = issue.keys.slice(0, SHOWN_KEYS).map((key) => cut(key));
    const more = issue.keys.length - names.length;
    const list = more > 0 ? `${names.join(", ")} and ${more} more` : joinAnd(names);
    const one = issue.keys.length === 1;
    return `${list} ${one ? "is not an argument" : "are not arguments"} of ${tool}; ${its}`;
  }
  if (issue.code === "invalid_type") {
    return `the arguments must be an object of named values, not ${shown(seen.args)}; ${its}`;
  }
  return issue.message;
}

/** The rule an argument must meet, in words: "a whole number from 0 to 20000". */
function says(rule: ArgumentRule): string {
  if (rule.anyOf !== undefined) return rule.anyOf.map(says).join(" or ");
  if (rule.enum !== undefined) {
    return `one of ${rule.enum.map((v) => JSON.stringify(v)).join(", ")}`;
  }
  if (rule.const !== undefined) return JSON.stringify(rule.const);
  switch (rule.type) {
    case "integer":
      return `a whole number${bounds(rule.minimum, rule.maximum, "")}`;
    case "number":
      return `a number${bounds(rule.minimum, rule.maximum, "")}`;
    case "string":
      return `a string${lengths(rule.minLength, rule.maxLength)}`;
    case "boolean":
      return "true or false";
    default:
      return rule.type === undefined ? "a value" : `a ${rule.type}`;
  }
}

function bounds(min: number | undefined, max: number | undefined, unit: string): string {
  const low = min !== undefined && min > -SAFE ? min : undefined;
  const high = max !== undefined && max < SAFE ? max : undefined;
  if (low !== undefined && high !== undefined) return ` from ${low} to ${high}${unit}`;
  if (low !== undefined) return ` ≥ ${low}${unit}`;
  if (high !== undefined) return ` ≤ ${high}${unit}`;
  return "";
}

function lengths(min: number | undefined, max: number | undefined): string {
  const chars = (n: number) => `${n} character${n === 1 ? "" : "s"}`;
  const low = min !== undefined && min > 0 ? min : undefined;
  if (low !== undefined && max !== undefined) return ` of ${low} to ${chars(max)}`;
  if (low !== undefined) return ` of at least ${chars(low)}`;
  if (max !== undefined) return ` of at most ${chars(max)}`;
  return "";
}

/** What the agent sent, said briefly: a number as written, a short string quoted, else its kind. */
function shown(value: unknown): string {
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (typeof value === "string") {
    return value.length > SHOWN_CHARS
      ? `a string of ${value.length} characters`
      : `the string ${JSON.stringify(value)}`;
  }
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : typeof value;
}

/** A name the agent sent, quoted with its control characters escaped, and cut. */
function cut(name: string): string {
  return name.length > SHOWN_CHARS
    ? `${JSON.stringify(name.slice(0, SHOWN_CHARS))}…`
    : JSON.stringify(name);
}

function joinAnd(items: readonly string[]): string {
  return items.length <= 1
    ? items.join("")
    : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/** zod's own messages start with a capital ("Invalid string: …"); a schema's own words do not. */
function ownWords(message: string): boolean {
  return !/^[A-Z]/.test(message);
}

function valueAt(args: unknown, path: readonly string[]): unknown {
  let value = args;
  for (const key of path) {
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, key)) {
      return undefined;
    }
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
