// lib/memory.ts: a screenshot's garbage is collected after the next message goes out, once.

import assert from "node:assert/strict";
import { createGarbageCollector } from "../lib/memory.ts";

Deno.test({
  name: "a requested collection runs after the next send, once, and only when V8 exposes gc",
  permissions: "none",
  fn() {
    const calls: unknown[] = [];
    const collector = createGarbageCollector((options) => void calls.push(options));
    collector.afterSend();
    assert.deepEqual(calls, [], "nothing was requested");
    collector.request();
    collector.request();
    assert.deepEqual(calls, [], "not while the answer is still being made");
    collector.afterSend();
    collector.afterSend();
    assert.deepEqual(calls, [{ type: "major", flavor: "last-resort" }]);
    // A plain `deno run main.ts` has no gc: requests are no-ops.
    const without = createGarbageCollector(undefined);
    without.request();
    without.afterSend();
  },
});
