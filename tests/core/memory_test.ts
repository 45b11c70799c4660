// lib/core/memory.ts: a screenshot's garbage is collected after the next message goes out, once,
// and fully when memory has grown past the allowance since the last full collection.

import assert from "node:assert/strict";
import { createGarbageCollector } from "../../lib/core/memory.ts";

Deno.test({
  name:
    "a collection asked for runs after the next send, once: young, then full past 4 MiB of growth",
  permissions: "none",
  fn() {
    const calls: unknown[] = [];
    const MiB = 1 << 20;
    let used = 30 * MiB;
    const collector = createGarbageCollector((options) => {
      calls.push(options);
      if (options?.type === "major") used = 31 * MiB; // what the full collection left
    }, () => used);
    collector.afterSend();
    assert.deepEqual(calls, [], "nothing was requested");
    collector.collectAfterAnswer();
    collector.collectAfterAnswer();
    assert.deepEqual(calls, [], "not while the answer is still being made");
    collector.afterSend();
    collector.afterSend();
    assert.deepEqual(calls, [{ type: "minor" }], "the first one sets the baseline: young only");
    used = 34 * MiB;
    collector.collectAfterAnswer();
    collector.afterSend();
    assert.deepEqual(calls.slice(1), [{ type: "minor" }], "4 MiB of growth is allowed");
    used = 35 * MiB;
    collector.collectAfterAnswer();
    collector.afterSend();
    assert.deepEqual(calls.slice(2), [{ type: "minor" }, { type: "major", flavor: "last-resort" }]);
    used = 34 * MiB; // within 4 MiB of the 31 the full collection left: no second one
    collector.collectAfterAnswer();
    collector.afterSend();
    assert.deepEqual(calls.slice(4), [{ type: "minor" }]);
  },
});

Deno.test({
  name: "without V8's gc (a plain deno run) collection requests do nothing",
  permissions: "none",
  fn() {
    let asked = 0;
    const collector = createGarbageCollector(undefined, () => (asked++, 1 << 30));
    collector.collectAfterAnswer();
    collector.afterSend();
    assert.equal(asked, 0);
  },
});
