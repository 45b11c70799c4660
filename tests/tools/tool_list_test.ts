// What a client reads before the first call tells one loop: act, read [changed], look only when it
// is not enough, on the instructions' first line (Codex's model sees no other); and tools/list
// stays small, saying what every verb shares once, in the instructions, not in each tool.

import assert from "node:assert/strict";
import { createDevice } from "../../lib/adb/device.ts";
import { INSTRUCTIONS } from "../../lib/mcp/server.ts";
import { TOOLS } from "../../lib/tools/index.ts";
import { fakeAdb } from "../helpers/fake_adb.ts";
import { connectInProcess } from "../helpers/in_process.ts";

/** What tools/list may weigh, serialized: what a client puts before its model on every turn. */
const TOOL_LIST_MAX_CHARS = 10_000;

/** The verbs that act on the phone and answer with [changed]. */
const ACTING = ["phone_tap", "phone_type", "phone_swipe", "phone_key", "phone_intent"];

Deno.test({
  name: "tools/list, serialized as the SDK client receives it, stays under 10,000 characters",
  permissions: "none",
  async fn() {
    const adb = fakeAdb();
    const device = createDevice({ run: adb.run, serial: undefined, timeoutMs: 1000 });
    const mcp = await connectInProcess({ device });
    try {
      const listed = await mcp.client.listTools();
      assert.equal(listed.tools.length, TOOLS.length);
      const size = JSON.stringify(listed).length;
      assert.ok(size < TOOL_LIST_MAX_CHARS, `tools/list is ${size} characters`);
      // What every verb shares is said once, in the instructions: no tool repeats it.
      for (const tool of listed.tools) {
        const properties = Object.values(tool.inputSchema.properties ?? {}) as Array<
          { description?: string }
        >;
        const text = [tool.description, ...properties.map((p) => p.description)].join("\n");
        assert.doesNotMatch(text, /settle|up to \d+ s|appeared \(\+\)|omit when/i, tool.name);
        // No benchmark figures or simulator details.
        assert.doesNotMatch(text, /simulat|bench|mobile-mcp|\d+(\.\d+)?×/i, tool.name);
      }
    } finally {
      await mcp.close();
    }
  },
});

Deno.test({
  name: "the instructions' first line names the loop: act, read [changed], look only when needed",
  permissions: "none",
  fn() {
    const [first, ...rest] = INSTRUCTIONS.split("\n");
    assert.ok(first !== undefined && rest.length > 0);
    assert.match(first, /act → read \[changed\] → look only when needed/);
    assert.match(first, /call phone_look only when \[changed\] is not enough/);
    for (const verb of ACTING) assert.ok(first.includes(verb), `the first line names ${verb}`);
    assert.match(first, /element/);
    assert.match(first, /coordinates are device pixels/);
    // Said once below it: settle, device, how element matches.
    assert.match(INSTRUCTIONS, /\nsettle: false|settle: false answers at once/);
    assert.match(INSTRUCTIONS, /\ndevice: .*phone_devices/);
    assert.match(INSTRUCTIONS, /\nelement: matched on a fresh UI tree/);
  },
});
