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
