// What the acting verbs share: the `settle` and `element` arguments, and the [changed] section added
// once the screen settled. Cheap at start-up: the work (lib/screen/settle.ts) loads on first use.

import type { CallToolResult } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { ScreenReading } from "../screen/phone_screen.ts";
import { scanCharacters } from "../core/characters.ts";
import { type PhoneDeps, textResult, type ToolCall } from "./call.ts";

/** SETTLE_BUDGET_MS in settle.ts, repeated here so the descriptions need not load it (a test checks). */
export const SETTLE_BUDGET_S = 3;

/** Waiting for the screen after an action; loaded on the first action that settles. */
export const loadSettle = (): Promise<typeof import("../screen/settle.ts")> =>
  import("../screen/settle.ts");

/** Finding an element by name on a fresh tree; loaded on the first action that names one. */
export const loadElementTarget = (): Promise<typeof import("../screen/element_target.ts")> =>
  import("../screen/element_target.ts");

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

/** The verb's reply, followed by the [changed] section when settling. */
export async function actionResult(
  deps: PhoneDeps,
  call: ToolCall,
  settle: boolean,
  before: ScreenReading | undefined,
  reply: string,
): Promise<CallToolResult> {
  if (!settle) return textResult(reply);
  const { changedSection } = await loadSettle();
  return textResult(
    `${reply}\n\n${await changedSection(deps.screens.of(deps.device), {
      clock: deps.clock,
      signal: call.signal,
      before,
    })}`,
  );
}
