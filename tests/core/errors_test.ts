// An AgentError's facts and the one sentence a verb makes of them: the verb or the error's own
// step, the words for an outcome that may have happened, and a finished sentence kept as it is.

import assert from "node:assert/strict";
import { AgentError, failureWords, joinFacts, ToolInputError } from "../../lib/core/errors.ts";

/** An error of some layer, as lib/adb or lib/screen would throw it. */
class LayerError extends AgentError<"X"> {}

Deno.test({
  name: "a verb words an error's facts once: its own action, or the step the error names",
  permissions: "none",
  fn() {
    const plain = new LayerError("X", { what: "no phone at A", fix: "connect it" });
    assert.equal(failureWords("tap", plain), "Cannot tap: no phone at A; connect it");
    assert.equal(failureWords("swipe", plain), "Cannot swipe: no phone at A; connect it");
    assert.equal(plain.message, "no phone at A; connect it", "the log line has no verb");
    const bare = new LayerError("X", { what: "the phone said: no" });
    assert.equal(failureWords("press a key", bare), "Cannot press a key: the phone said: no");
    assert.equal(joinFacts(bare), "the phone said: no");
    const stepped = new LayerError("X", { ...plain.facts, step: 'find "OK" on screen' });
    assert.equal(
      failureWords("tap", stepped),
      'Cannot find "OK" on screen: no phone at A; connect it',
    );
  },
});

Deno.test({
  name: "an action whose outcome is unknown is worded so the agent looks before repeating it",
  permissions: "none",
  fn() {
    const unknown = new LayerError("X", {
      what: "the link dropped",
      fix: "check the cable",
      uncertain: true,
    });
    assert.equal(
      failureWords("tap", unknown),
      "Cannot tell whether the phone did tap: the link dropped. It may have happened: look at the screen (phone_look or phone_shot) before repeating it; check the cable",
    );
    assert.equal(unknown.uncertain, true);
  },
});

Deno.test({
  name: "a sentence worded where the error was raised is shown as it is, whatever the verb",
  permissions: "none",
  fn() {
    const refusal = new ToolInputError("Refused x: it holds a lone surrogate");
    assert.equal(failureWords("tap", refusal), "Refused x: it holds a lone surrogate");
    assert.equal(refusal.said, refusal.message);
    const facts = new ToolInputError({ what: "give x or element" });
    assert.equal(facts.said, undefined);
    assert.equal(failureWords("double-tap", facts), "Cannot double-tap: give x or element");
  },
});
