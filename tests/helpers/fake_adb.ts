// A fake adb runner for tier-1/2 tests: answers by rule, and like a real phone it prints the
// exit-status marker after text commands, so tests read and write plain device commands.

import assert from "node:assert/strict";
import { AdbError } from "../../lib/adb/errors.ts";
import { joinFacts } from "../../lib/core/errors.ts";
import { shellScript } from "../../lib/adb/commands.ts";
import { EXIT_MARKER, withExitMarker } from "../../lib/adb/exit_marker.ts";
import type { AdbOutcome, AdbRunLimits, RunAdb } from "../../lib/adb/runner.ts";

const enc = new TextEncoder();
const MARKER_SUFFIX = withExitMarker(shellScript([]));

/** An answer: adb's outcome, plus the device command's exit status or a reply cut short. */
export type FakeAnswer = AdbOutcome & { status?: number; cutShort?: boolean };

export const exited = (
  code: number,
  stdout = "",
  stderr = "",
  extra: { status?: number; cutShort?: boolean } = {},
): FakeAnswer => ({ kind: "exited", code, stdout: enc.encode(stdout), stderr, ...extra });

export const timedOut = (timeoutMs = 1000): FakeAnswer => ({
  kind: "timeout",
  timeoutMs,
  stdout: new Uint8Array(),
  stderr: "",
});

/**
 * A rule's answer: one answer; a list answered in turn, repeating its last entry; or a function
 * of the call's line, whose promise the test can hold and release to stagger answers by events.
 */
export type FakeRule = FakeAnswer | FakeAnswer[] | ((line: string) => Promise<FakeAnswer>);

/**
 * Answers each call from the first rule whose pattern matches the argv joined with spaces (the
 * device command without its marker).
 */
export interface FakeAdb {
  run: RunAdb;
  /** argv of each call, joined, with the marker stripped. */
  calls: string[];
  /** The device commands alone (the last argument of shell/exec-out calls). */
  sent: string[];
  /** The limits each call was given, in call order. */
  limits: AdbRunLimits[];
}

export function fakeAdb(rules: Array<[RegExp, FakeRule]> = []): FakeAdb {
  const calls: string[] = [];
  const sent: string[] = [];
  const limits: AdbRunLimits[] = [];
  const run: RunAdb = async (args, given) => {
    const last = args.at(-1) ?? "";
    const isText = last.endsWith(MARKER_SUFFIX);
    const command = isText ? last.slice(0, -MARKER_SUFFIX.length) : last;
    const line = [...args.slice(0, -1), command].join(" ");
    calls.push(line);
    limits.push(given);
    if (args.includes("shell") || args.includes("exec-out")) sent.push(command);
    const rule = rules.find(([pattern]) => pattern.test(line))?.[1];
    const answer = rule === undefined
      ? exited(0, /^wm size$/.test(command) ? "Physical size: 1080x2400\n" : "")
      : typeof rule === "function"
      ? await rule(line)
      : Array.isArray(rule)
      ? (rule.length > 1 ? rule.shift()! : rule[0]!)
      : rule;
    if (answer.kind !== "exited" || answer.code !== 0 || !isText || answer.cutShort) return answer;
    const marker = enc.encode(`${EXIT_MARKER}${answer.status ?? 0}\n`);
    const stdout = new Uint8Array(answer.stdout.length + marker.length);
    stdout.set(answer.stdout);
    stdout.set(marker, answer.stdout.length);
    return { ...answer, stdout };
  };
  return { run, calls, sent, limits };
}

/**
 * Asserts `promise` rejects with an AdbError of `code`. `facts`, when given, is matched against
 * what the error states ("what; fix", with no verb: the verb words it), and `flags.uncertain`
 * against whether it says the action may have happened. Returns the error for further checks.
 */
export async function rejectsWith(
  promise: Promise<unknown>,
  code: string,
  facts?: RegExp,
  flags?: { uncertain: boolean },
): Promise<AdbError> {
  let caught: AdbError | undefined;
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof AdbError, String(error));
    assert.equal(error.code, code, error.message);
    if (facts) assert.match(joinFacts(error), facts);
    if (flags) assert.equal(error.uncertain, flags.uncertain, error.message);
    caught = error;
    return true;
  });
  return caught!;
}
