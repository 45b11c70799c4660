// One line of `phone-eye --doctor`'s checklist (the Check) and the exit gates a failing check
// answers to, with docs/security.md's sentence about the exit status built from them.

import { AgentError, errorText, failureWords } from "../core/errors.ts";

export interface Check {
  ok: boolean;
  title: string;
  detail: string[];
  /** Information only, shown as [info]: it is always ok and never sets the exit status. */
  info?: true;
  /** Which of EXIT_GATES this check is (every check but the information ones has one). */
  gate?: ExitGate;
}

/**
 * What the doctor's exit status depends on, in docs/security.md's words: it exits 1 when one of these
 * checks fails. The ADB Keyboard line is information (typing still works, ASCII only).
 */
export const EXIT_GATES = [
  "adb",
  "the phone",
  "the vision route (when one is configured)",
  "the permissions",
  "the screenshot folder (when PHONE_EYE_SHOTS is set)",
] as const;

export type ExitGate = typeof EXIT_GATES[number];

/** docs/security.md's sentence about the exit status, built from EXIT_GATES (tests/app/doctor_test.ts). */
export function exitStatusSentence(): string {
  const gates = `${EXIT_GATES.slice(0, -1).join(", ")} and ${EXIT_GATES.at(-1)}`;
  return `It exits 0 when ${gates} check out, and 1 otherwise; the ADB Keyboard line is information and never fails it.`;
}

/**
 * What a failed check shows as its detail: an AgentError worded as a verb would word it, `action`
 * being what the check was doing ("reach the phone"); any other error, its own text.
 */
export function failureReason(error: unknown, action?: string): string {
  if (error instanceof AgentError && action !== undefined) return failureWords(action, error);
  return errorText(error);
}
