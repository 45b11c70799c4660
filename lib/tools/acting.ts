// What the acting verbs share: the `settle` and `element` arguments, and the [changed] section added
// once the screen settled. Cheap at start-up: the work (lib/screen/settle.ts) loads on first use.

import type { CallToolResult } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { Located } from "../screen/element_target.ts";
import type { ScreenReading } from "../screen/phone_screen.ts";
import type { UiElement } from "../screen/ui_tree.ts";
import { AdbError } from "../adb/errors.ts";
import { scanCharacters } from "../core/characters.ts";
import { AgentError, failureWords } from "../core/errors.ts";
import { type PhoneDeps, textResult, type ToolCall } from "./call.ts";

/** SETTLE_BUDGET_MS in settle.ts, repeated here so the descriptions need not load it (a test checks). */
export const SETTLE_BUDGET_S = 3;

/** Waiting for the screen after an action; loaded on the first action that settles. */
export const loadSettle = (): Promise<typeof import("../screen/settle.ts")> =>
  import("../screen/settle.ts");

/** The journal's facts made of screens (call_facts.ts); loaded on first use, as settle.ts is. */
export const loadFacts = (): Promise<typeof import("./call_facts.ts")> => import("./call_facts.ts");

/** Finding an element by name on a fresh tree; loaded on the first action that names one. */
const loadElementTarget = (): Promise<typeof import("../screen/element_target.ts")> =>
  import("../screen/element_target.ts");

/**
 * Runs a step of the verb's own (tapping the field before typing, finding an element before
 * tapping it): a device failure in it names the step instead of the verb, so the agent hears
 * 'Cannot find "Sign in" on screen: …' rather than of a tap that was never tried.
 */
export async function asStep<T>(step: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof AdbError)) throw error;
    throw new AdbError(error.code, { ...error.facts, step }, {
      cause: error,
      trouble: error.trouble,
      attached: error.attached,
    });
  }
}

/**
 * The element an acting verb names (lib/screen/element_target.ts). A miss is the verb's own
 * refusal ("Cannot tap: …"); a failure to read the screen names the step that met it.
 */
export async function locate(
  deps: PhoneDeps,
  target: { name: string; prefer?: (e: UiElement) => boolean },
): Promise<Located> {
  const { locateElement } = await loadElementTarget();
  return await asStep(
    `find "${target.name}" on screen`,
    () => locateElement(deps.screens.of(deps.device), { clock: deps.clock, ...target }),
  );
}

export const settleField = z.boolean().default(true).describe(
  `true (default): after acting, wait up to ${SETTLE_BUDGET_S} s for the screen to settle and add a [changed] section (app before → after, keyboard, elements that appeared + or disappeared -); false: answer at once, with no extra adb call`,
);

/** The sentence each acting verb's description ends with. */
export const SETTLE_SENTENCE =
  `The reply ends with [changed]: what the action did once the screen settled (up to ${SETTLE_BUDGET_S} s): the app before → after, the keyboard, elements that appeared (+) or disappeared (-), or "no visible change"; so you rarely need to look again. settle: false skips that wait.`;

/**
 * A name to find on screen: text, content-desc or resource-id. A control character has no place
 * in one and is refused by the schema, before anything reaches the phone, as in every tool.
 */
export const elementName = (): z.ZodString =>
  z.string().min(1).max(200).refine(
    (name) => scanCharacters(name).control === undefined,
    "the name contains a control character; give it as the screen shows it",
  );

export const elementField = (what: string): z.ZodOptional<z.ZodString> =>
  elementName().optional().describe(
    `${what}: matched against text, content-desc and resource-id (exact, ignoring case, before substring) on a fresh UI tree`,
  );

/** The screen before the action, when settling; taking it costs no adb call. */
export async function screenBefore(
  deps: PhoneDeps,
  settle: boolean,
): Promise<ScreenReading | undefined> {
  // With settle false nothing is loaded or read; the remembered screen only stops being current.
  const screen = deps.screens.of(deps.device);
  if (!settle) {
    screen.forget();
    return undefined;
  }
  // Loaded before the action, not between it and the first read of what it changed.
  await loadSettle();
  return screen.takeBefore(deps.clock.now());
}

/** What the [changed] section names when the screen cannot be read once the action is done. */
const READ_AFTER = "read the screen after acting";

/**
 * The verb's reply, followed by the [changed] section when settling. A failure to read the screen
 * then is said in the section: the action itself has happened.
 */
export async function actionResult(
  deps: PhoneDeps,
  call: ToolCall,
  settle: boolean,
  before: ScreenReading | undefined,
  reply: string,
): Promise<CallToolResult> {
  if (!settle) return textResult(reply);
  const { settleScreen, changedSection, unreadSection } = await loadSettle();
  let section: string;
  try {
    const settled = await settleScreen(deps.screens.of(deps.device), {
      clock: deps.clock,
      signal: call.signal,
    });
    section = changedSection(before, settled);
    call.record.changed = (await loadFacts()).changeOf(before, settled);
  } catch (error) {
    if (!(error instanceof AgentError)) throw error;
    section = unreadSection(failureWords(READ_AFTER, error));
  }
  return textResult(`${reply}\n\n${section}`);
}
