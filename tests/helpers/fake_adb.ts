// A fake adb runner for tier-1/2 tests: answers by rule, and like a real phone it prints the
// exit-status marker after text commands, so tests read and write plain device commands.

import { EXIT_MARKER, withExitMarker } from "../../lib/adb/exit_marker.ts";
import type { AdbOutcome, RunAdb } from "../../lib/adb/runner.ts";

const enc = new TextEncoder();
const MARKER_SUFFIX = withExitMarker({ service: "shell", shell: "" });

/** An answer: adb's outcome, plus the device command's exit status or a reply cut short. */
export type FakeAnswer = AdbOutcome & { status?: number; cutShort?: boolean };

export const exited = (
  code: number,
  stdout = "",
  stderr = "",
  extra: { status?: number; cutShort?: boolean } = {},
): FakeAnswer => ({ kind: "exited", code, stdout: enc.encode(stdout), stderr, ...extra });

/**
 * Answers each call from the first rule whose pattern matches the argv joined with spaces (the
 * device command without its marker). A list answers in turn, repeating its last entry.
 */
export interface FakeAdb {
  run: RunAdb;
  /** argv of each call, joined, with the marker stripped. */
  calls: string[];
  /** The device commands alone (the last argument of shell/exec-out calls). */
  sent: string[];
}

export function fakeAdb(rules: Array<[RegExp, FakeAnswer | FakeAnswer[]]> = []): FakeAdb {
  const calls: string[] = [];
  const sent: string[] = [];
  const run: RunAdb = (args) => {
    const last = args.at(-1) ?? "";
    const isText = last.endsWith(MARKER_SUFFIX);
    const command = isText ? last.slice(0, -MARKER_SUFFIX.length) : last;
    const line = [...args.slice(0, -1), command].join(" ");
    calls.push(line);
    if (args.includes("shell") || args.includes("exec-out")) sent.push(command);
    const rule = rules.find(([pattern]) => pattern.test(line));
    const answer = rule === undefined
      ? exited(0, /^wm size$/.test(command) ? "Physical size: 1080x2400\n" : "")
      : Array.isArray(rule[1])
      ? (rule[1].length > 1 ? rule[1].shift()! : rule[1][0]!)
      : rule[1];
    if (answer.kind !== "exited" || answer.code !== 0 || !isText || answer.cutShort) {
      return Promise.resolve(answer);
    }
    const marker = enc.encode(`${EXIT_MARKER}${answer.status ?? 0}\n`);
    const stdout = new Uint8Array(answer.stdout.length + marker.length);
    stdout.set(answer.stdout);
    stdout.set(marker, answer.stdout.length);
    return Promise.resolve({ ...answer, stdout });
  };
  return { run, calls, sent };
}
