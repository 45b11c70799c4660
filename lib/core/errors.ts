// AgentError: the base of every error meant for the agent, carrying the facts as data (what failed,
// what to do, whether it may have happened); and failureWords, the one sentence a verb makes of them.

/**
 * What a failure is, without the verb that met it: each verb words it once (failureWords), so a
 * lower layer never needs to know which verb it is working for, and one adb run shared by two
 * calls serves both.
 */
export interface FailureFacts {
  /** What failed and the state, with no verb: "no Android device reachable at 192.0.2.9:5555". */
  what: string;
  /** What to do about it; undefined when `what` already says all there is. */
  fix?: string | undefined;
  /**
   * The action may have reached the phone (a tap sent before the link broke, an `input` still
   * running after adb was killed): its outcome is unknown, so it must not be repeated blindly.
   */
  uncertain?: boolean | undefined;
  /**
   * The step that failed, named for the agent in place of the verb's own action, when the verb ran
   * a step of its own ("find "Sign in" on screen" before a tap). Set by the verb's layer.
   */
  step?: string | undefined;
}

/**
 * An error meant for the agent. Tests assert `code` and the facts; agents read the sentence the verb
 * makes of them (failureWords). `message` is for logs only: a plain join, read back by no code.
 * `cause` (ES2022) keeps the lower-level error for logs without putting it in the words.
 *
 * A string instead of facts is a sentence already worded where the error was raised, shown as it
 * is (`said`): a refusal the verb wrote, a vision or image failure that names its own act.
 * Abstract: every such error belongs to a layer (AdbError, ToolInputError, VisionError, ImageError).
 */
export abstract class AgentError<Code extends string = string> extends Error {
  override name = "AgentError";
  readonly what: string;
  readonly fix: string | undefined;
  readonly uncertain: boolean;
  readonly step: string | undefined;
  /** The finished sentence, for an error raised with one; undefined for an error of facts. */
  readonly said: string | undefined;
  constructor(readonly code: Code, facts: FailureFacts | string, options?: ErrorOptions) {
    super(typeof facts === "string" ? facts : joinFacts(facts), options);
    if (typeof facts === "string") {
      this.what = facts;
      this.fix = undefined;
      this.uncertain = false;
      this.step = undefined;
      this.said = facts;
    } else {
      this.what = facts.what;
      this.fix = facts.fix;
      this.uncertain = facts.uncertain ?? false;
      this.step = facts.step;
      this.said = undefined;
    }
  }

  /** The facts, to build a copy that adds to them (a device error naming what adb sees). */
  get facts(): FailureFacts {
    return { what: this.what, fix: this.fix, uncertain: this.uncertain, step: this.step };
  }
}

/** "what; fix": the facts as one clause, for a log line or a sentence that names the step itself. */
export function joinFacts(facts: Pick<FailureFacts, "what" | "fix">): string {
  return facts.fix === undefined ? facts.what : `${facts.what}; ${facts.fix}`;
}

/**
 * The sentence the agent reads, made once at the top by whoever knows the verb: "Cannot tap: what;
 * fix", or for an action whose outcome is unknown, words that say it may have happened so the agent
 * looks before repeating it (calling the tool again blindly could tap twice). `action` is the verb
 * phrase ("tap", "take a screenshot"); the error's own step, when it has one, is named instead.
 */
export function failureWords(action: string, error: AgentError): string {
  if (error.said !== undefined) return error.said;
  const did = error.step ?? action;
  if (!error.uncertain) return `Cannot ${did}: ${joinFacts(error)}`;
  return `Cannot tell whether the phone did ${did}: ${error.what}. It may have happened: look at the screen (phone_look or phone_shot) before repeating it${
    error.fix === undefined ? "" : `; ${error.fix}`
  }`;
}

/**
 * A refusal of the arguments themselves (not a device failure). Here, not with the tools, because
 * a lower layer refuses too: an element name that matches nothing (lib/screen/) is the agent's
 * argument at fault, not the phone.
 */
export class ToolInputError extends AgentError<"INVALID_INPUT"> {
  override name = "ToolInputError";
  constructor(facts: FailureFacts | string, options?: ErrorOptions) {
    super("INVALID_INPUT", facts, options);
  }
}

/** The text of anything thrown: an Error's message, or the value itself as a string. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
