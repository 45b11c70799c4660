// What the acting verbs share: the `settle` and `element` arguments, and the [changed] section added
// once the screen settled. Cheap at start-up: the work (lib/screen/settle.ts) loads on first use.

import type { CallToolResult } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { Located } from "../screen/element_target.ts";
import type { ActionTurn, ScreenReading } from "../screen/phone_screen.ts";
import type { UiElement } from "../screen/ui_tree.ts";
import { AdbError } from "../adb/errors.ts";
import { scanCharacters } from "../core/characters.ts";
import { AgentError, failureWords } from "../core/errors.ts";
import { type PhoneDeps, textResult, type ToolCall } from "./call.ts";

/** SETTLE_BUDGET_MS in settle.ts, repeated here so the descriptions need not load it (a test checks). */
export const SETTLE_BUDGET_S = 15;

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
 * refusal ("Cannot tap: …"); a failure to read the screen names the step that met it. `signal`
 * (the call's cancel) stops the read.
 */
export async function locate(
  deps: PhoneDeps,
  target: { name: string; prefer?: (e: UiElement) => boolean; signal: AbortSignal },
): Promise<Located> {
  const { locateElement } = await loadElementTarget();
  return await asStep(
    `find "${target.name}" on screen`,
    () => locateElement(deps.screens.of(deps.device), { clock: deps.clock, ...target }),
  );
}

/** What settling and [changed] are is said once, in the server's instructions (lib/mcp/server.ts). */
export const settleField = z.boolean().default(true).describe(
  "false: answer at once, with no [changed]",
);

/**
 * The sentence each acting verb's description ends with. Short: the server's instructions say
 * what [changed] holds, once for every verb, and tools/list stays small (tests/tools/tool_list_test.ts).
 */
export const SETTLE_SENTENCE = "The reply ends with [changed]: what the action did on screen.";

/**
 * A name to find on screen: text, content-desc or resource-id. A control character has no place
 * in one and is refused by the schema, before anything reaches the phone, as in every tool.
 */
export const elementName = (): z.ZodString => {
  // Named before it is returned: with the return type as its context, tsc infers refine's
  // conditional result against all of ZodString (about 1 s of every `deno check`).
  const name = z.string().min(1).max(200).refine(
    (name) => scanCharacters(name).control === undefined,
    "the name contains a control character; give it as the screen shows it",
  );
  return name;
};

/** An `element` argument; how a name is matched is said once, in the server's instructions. */
export const elementField = (what: string): z.ZodOptional<z.ZodString> =>
  elementName().optional().describe(what);

/** An action about to be sent, as the verb hands it to actionResult. */
export interface Acting extends ActionTurn {
  /** Whether to read the screen afterwards and add [changed] (the verb's `settle`). */
  settle: boolean;
}

/**
 * Begins the action on the phone's screen record (PhoneScreen.beginAction): call it right before
 * the verb's first command that acts, once nothing can refuse the call any more, so a refused call
 * leaves the remembered screen for the next one. Costs no adb call. `found` is the element the
 * call named: its tree is the "before" when no later screen was remembered.
 */
export function beginAction(
  deps: PhoneDeps,
  options: { settle: boolean; found?: Located | undefined },
): Acting {
  const { settle, found } = options;
  // Loading starts now, so the read after the action does not wait for it (once per process).
  if (settle) void loadSettle();
  const turn = deps.screens.of(deps.device).beginAction(deps.clock.now());
  return { ...turn, before: turn.before ?? found?.before, settle };
}

/** What the [changed] section names when the screen cannot be read once the action is done. */
const READ_AFTER = "read the screen after acting";

/**
 * The verb's reply, followed by the [changed] section when settling. A failure to read the screen
 * then is said in the section: the action itself has happened. A reply that depends on what the
 * screen shows afterwards (phone_type: whether a field had focus) is a function of the last
 * reading, undefined when there is none.
 */
export async function actionResult(
  deps: PhoneDeps,
  call: ToolCall,
  acting: Acting,
  reply: string | ((after: ScreenReading | undefined) => string),
): Promise<CallToolResult> {
  const words = (after: ScreenReading | undefined) =>
    typeof reply === "string" ? reply : reply(after);
  if (!acting.settle) return textResult(words(undefined));
  const { settleScreen, changedSection, unreadSection } = await loadSettle();
  let section: string;
  let after: ScreenReading | undefined;
  try {
    const settled = await settleScreen(deps.screens.of(deps.device), {
      clock: deps.clock,
      signal: call.signal,
    });
    section = changedSection(acting, settled);
    after = settled.reading;
    call.record.changed = (await loadFacts()).changeOf(acting.before, settled);
  } catch (error) {
    if (!(error instanceof AgentError)) throw error;
    section = unreadSection(failureWords(READ_AFTER, error));
  }
  return textResult(`${words(after)}\n\n${section}`);
}
