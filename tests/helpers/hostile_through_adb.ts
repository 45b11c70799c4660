// Hostile strings sent through phone-eye, the real adb and the simulated phone's real sh: the check
// e2e_hand_test.ts runs on a sample (one payload per metacharacter class) and
// tests/long/hostile_strings_test.ts on the whole corpus of tests/fixtures/hostile_strings.ts.
// Every free-form value goes through the one quoting function, whose every payload is also run
// against a local sh by tests/adb/commands_test.ts; this is the same promise kept end to end.

import assert from "node:assert/strict";
import { textOf } from "./in_process.ts";
import type { Rig } from "./rig.ts";
import { hostileStrings, MARKER } from "../fixtures/hostile_strings.ts";
import { inputTextProblem } from "../../lib/adb/input_commands.ts";
import { intentArgsProblem } from "../../lib/adb/intent_commands.ts";

/**
 * One payload per class of shell trick, as written in the corpus (MARKER stands for the path a
 * payload would create if it ran). Each is in the corpus, so the fast sample can only shrink what
 * the long run covers, never drift from it.
 */
export const HOSTILE_SAMPLE: readonly string[] = [
  `; touch ${MARKER}`, // control operators (; & | && ||)
  `\`touch ${MARKER}\``, // command substitution, old style
  `$((1+1))$(touch ${MARKER})`, // arithmetic expansion, then command substitution
  `> ${MARKER}`, // redirection
  `a\ntouch ${MARKER}`, // a line break: a control character, refused
  `\u0000; touch ${MARKER}`, // NUL, which no process argument can hold: refused
  `'; touch ${MARKER}; '`, // breaking out of single quotes
  `'\\''; touch ${MARKER}; echo '`, // the quoting function's own escape, replayed
  `"; touch ${MARKER}; "`, // breaking out of double quotes
  `\\'; touch ${MARKER}`, // a backslash before a quote
  `/*/*`, // pathname globs
  `~`, // tilde expansion (and a URI path am starts)
  `%s%s%s`, // input's "%s" is a space: typed in pieces
  `\${IFS}touch\${IFS}${MARKER}`, // parameter expansion
  `{touch,${MARKER}}`, // brace expansion
  `!!`, // history expansion (and a URI path am starts)
  `#; touch ${MARKER}`, // a comment
  `-n`, // an argument that looks like an option
  `a b  c   d`, // runs of spaces kept as they are
  `；touch ${MARKER}`, // a lookalike beyond ASCII (U+FF1B): refused by input text
  `x`.repeat(1500) + `; touch ${MARKER}`, // a long command line
  `'`.repeat(200), // many quotes, each escaped
];

/** HOSTILE_SAMPLE with the marker path in place; throws if a sample payload left the corpus. */
export function hostileSample(marker: string): string[] {
  const corpus = new Set(hostileStrings(marker));
  const sample = HOSTILE_SAMPLE.map((s) => s.replaceAll(MARKER, marker));
  const strays = sample.filter((s) => !corpus.has(s));
  assert.deepEqual(strays, [], "sample payloads that are not in tests/fixtures/hostile_strings.ts");
  return sample;
}

/** How many payloads phone_type typed and how many intents reached `am`. */
export interface HostileCounts {
  typed: number;
  started: number;
}

/**
 * Sends each payload as phone_type's text and as each phone_intent field, without settling (what
 * settling adds is tested in agent_loop_test.ts; here only the argv the phone saw counts), and
 * checks it arrived as one argument or was refused at the door. The caller checks the marker.
 */
export async function sendHostile(
  rig: Pick<Rig, "call" | "sim">,
  payloads: readonly string[],
): Promise<HostileCounts> {
  let typed = 0;
  let started = 0;
  for (const hostile of payloads) {
    const typeResult = await rig.call("phone_type", { text: hostile, settle: false });
    const typeText = textOf(typeResult);
    if (inputTextProblem(hostile) === null) {
      typed++;
      assert.notEqual(typeResult.isError, true, `${JSON.stringify(hostile)}: ${typeText}`);
      const pieces = rig.sim.toolCalls("input").filter((c) => c[0] === "text");
      const last = pieces.slice(-hostile.split(/(?<=%)(?=s)/).length);
      assert.ok(last.every((c) => c.length === 2), JSON.stringify(last));
      assert.equal(last.map((c) => c[1]).join(""), hostile);
    } else {
      assert.equal(typeResult.isError, true, `${JSON.stringify(hostile)}: ${typeText}`);
    }
    for (const field of ["action", "data", "component", "package"] as const) {
      const value = field === "data" ? `https://x.test/${hostile}` : hostile;
      const args = { action: "android.intent.action.VIEW", [field]: value };
      const result = await rig.call("phone_intent", { ...args, settle: false });
      if (intentArgsProblem(args) === null) {
        started++;
        assert.ok(
          rig.sim.toolCalls("am").at(-1)?.includes(value),
          `${field}=${JSON.stringify(value)}`,
        );
      } else {
        assert.equal(result.isError, true);
        assert.match(textOf(result), /^Cannot start the intent: Refused/);
      }
    }
  }
  return { typed, started };
}
