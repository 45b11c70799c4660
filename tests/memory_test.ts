// lib/memory.ts: a screenshot's garbage is collected after the next message goes out, once.

import assert from "node:assert/strict";
import { createGarbageCollector } from "../lib/memory.ts";

Deno.test({
  name: "a requested collection runs after the next send, once: young, then full when memory stays",
  permissions: "none",
  fn() {
    const calls: unknown[] = [];
    let external = 1 << 20;
    const collector = createGarbageCollector((options) => void calls.push(options), () => external);
    collector.afterSend();
    assert.deepEqual(calls, [], "nothing was requested");
    collector.request();
    collector.request();
    assert.deepEqual(calls, [], "not while the answer is still being made");
    collector.afterSend();
    collector.afterSend();
    assert.deepEqual(calls, [{ type: "minor" }], "a scavenge left little: no full collection");
    external = 64 << 20;
    collector.request();
    collector.afterSend();
    assert.deepEqual(calls.slice(1), [{ type: "minor" }, { type: "major", flavor: "last-resort" }]);
  },
});

Deno.test({
  name: "without V8's gc (a plain deno run) collection requests do nothing",
  permissions: "none",
  fn() {
    let asked = 0;
    const collector = createGarbageCollector(undefined, () => (asked++, 1 << 30));
    collector.request();
    collector.afterSend();
    assert.equal(asked, 0);
  },
});
