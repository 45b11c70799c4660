// `phone-eye --replay FILE`: runs a journal's steps on a phone through the same verbs, without a
// model, waiting before each for what the recording saw; stops at the first step that diverges.

import type { Size } from "../core/geometry.ts";
import { describeStep, type Step } from "./journal_read.ts";

/** How long a step waits for what it expects before it counts as diverged (wait_for's default). */
export const STEP_WAIT_MS = 10_000;

/** What a replay runs on (replay_command.ts gives the real ones; tests pass fakes). */
export interface ReplayDeps {
  /** Calls a verb; `ok` false when its result is an error, with its first line. */
  call(verb: string, args: Record<string, unknown>): Promise<{ ok: boolean; words: string }>;
  /** Waits (bounded) until `name` is on screen, or with `gone` until it is not. */
  waitFor(
    name: string,
    how: { gone: boolean; timeoutMs: number },
  ): Promise<{ met: boolean; screen: { app: string | undefined; labels: string[] } }>;
  /** The phone's screen size, to scale recorded coordinates. */
  screenSize(): Promise<Size>;
  /** One progress line (stderr). */
  progress(line: string): void;
}

/** How a replay ended: 0 every step matched, 1 one diverged (`report` says which and why). */
export interface ReplayOutcome {
  code: 0 | 1;
  report: string;
}

/** The most on-screen labels a divergence report lists. */
const LABELS_SHOWN = 15;

function onScreen(screen: { app: string | undefined; labels: string[] }): string {
  const labels = screen.labels.slice(0, LABELS_SHOWN).map((l) => JSON.stringify(l)).join(", ");
  const more = screen.labels.length > LABELS_SHOWN
    ? ` and ${screen.labels.length - LABELS_SHOWN} more`
    : "";
  return `on screen${screen.app === undefined ? "" : ` (${screen.app})`}: ${
    labels === "" ? "no labelled element" : labels + more
  }`;
}

/** The step's coordinates scaled from the screen they were recorded on to this one. */
function scaled(args: Record<string, unknown>, from: Size | undefined, to: Size) {
  if (from === undefined || (from.width === to.width && from.height === to.height)) return args;
  const out = { ...args };
  for (const key of ["x", "x1", "x2"]) {
    if (typeof out[key] === "number") {
      out[key] = Math.min(to.width - 1, Math.round((out[key] as number) * to.width / from.width));
    }
  }
  for (const key of ["y", "y1", "y2"]) {
    if (typeof out[key] === "number") {
      out[key] = Math.min(
        to.height - 1,
        Math.round((out[key] as number) * to.height / from.height),
      );
    }
  }
  return out;
}

/**
 * Runs the steps in order. Before each action it waits for what the recording saw (its element by
 * name, or what the action before it brought); a wait step waits as the recorded look did. The
 * first that does not come, or an action the phone refuses, ends the replay with a report.
 */
export async function replay(steps: readonly Step[], deps: ReplayDeps): Promise<ReplayOutcome> {
  const total = steps.length;
  for (const [index, step] of steps.entries()) {
    const head = `step ${index + 1}/${total} (journal line ${step.line}) ${describeStep(step)}`;
    const diverged = (why: string): ReplayOutcome => {
      deps.progress(`${head}: diverged`);
      return {
        code: 1,
        report: `Replay diverged at step ${index + 1} of ${total} (journal line ${step.line}, ${
          describeStep(step)
        }): ${why}`,
      };
    };
    const waits = step.kind === "wait"
      ? [{ name: step.name, gone: step.gone, timeoutMs: step.timeoutMs }]
      : step.expect.map((name) => ({ name, gone: false, timeoutMs: STEP_WAIT_MS }));
    for (const wait of waits) {
      const seen = await deps.waitFor(wait.name, wait);
      if (!seen.met) {
        return diverged(
          `expected "${wait.name}" ${wait.gone ? "to be gone" : "on screen"} within ${
            wait.timeoutMs / 1000
          } s, as in the recording; ${onScreen(seen.screen)}`,
        );
      }
    }
    if (step.kind === "act") {
      const args = step.screen === undefined
        ? step.args
        : scaled(step.args, step.screen, await deps.screenSize());
      const done = await deps.call(step.verb, args);
      if (!done.ok) return diverged(`the phone did not do it this time: ${done.words}`);
    }
    deps.progress(`${head}: ok`);
  }
  return { code: 0, report: `Replayed ${total} step${total === 1 ? "" : "s"}: every one matched.` };
}

/**
 * Why a journal cannot be replayed before anything runs (no actions; text left out of it), or
 * undefined when it can.
 */
export function unreplayable(steps: readonly Step[]): string | undefined {
  if (!steps.some((s) => s.kind === "act")) {
    return "it holds no action that was done (taps, typing, swipes, keys, intents)";
  }
  const secret = steps.find((s) => s.kind === "act" && s.redacted);
  if (secret !== undefined) {
    return `journal line ${secret.line} typed into a password field (or one phone-eye could not tell was none), and the journal never keeps that text; export it with --maestro, which puts an \${ENV} placeholder there`;
  }
  return undefined;
}
