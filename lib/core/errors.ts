// AgentError: the base of every error written for the agent (what failed, the state, what to do).
// Each layer's error extends it with its own codes; the server shows only these messages as-is.

/**
 * An error whose message is meant for the agent. Tests assert `code`; agents read `message`;
 * `cause` (ES2022) keeps the lower-level error for logs without putting it in the message.
 * Abstract: every such error belongs to a layer (AdbError, ToolInputError, VisionError, ImageError).
 */
export abstract class AgentError<Code extends string = string> extends Error {
  override name = "AgentError";
  constructor(readonly code: Code, message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/**
 * A refusal of the arguments themselves (not a device failure): shown to the agent as-is. Here, not
 * with the tools, because a lower layer refuses too: an element name that matches nothing
 * (lib/screen/) is the agent's argument at fault, not the phone.
 */
export class ToolInputError extends AgentError<"INVALID_INPUT"> {
  override name = "ToolInputError";
  constructor(message: string, options?: ErrorOptions) {
    super("INVALID_INPUT", message, options);
  }
}

/**
 * The message of an error written for the agent (what failed, the state, what to do), or
 * undefined for an unexpected one, which the caller reports as such.
 */
export function agentMessage(error: unknown): string | undefined {
  return error instanceof AgentError ? error.message : undefined;
}
