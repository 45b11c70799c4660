// Each tool has one schema, its zod definition: the SDK lists it as JSON Schema and checks calls
// with it. These tests check that tools/list shows exactly that schema, strict, and that a call
// is refused by it before anything reaches the phone.

import assert from "node:assert/strict";
import { createDevice } from "../../lib/adb/device.ts";
import { TOOLS } from "../../lib/tools/index.ts";
import { fakeAdb } from "../helpers/fake_adb.ts";
import { connectInProcess, textOf } from "../helpers/in_process.ts";

/** phone-eye's server, in process, on a phone made of data that records each device command. */
async function servedOnFakePhone() {
  const adb = fakeAdb();
  const device = createDevice({ run: adb.run, serial: "127.0.0.1:5555", timeoutMs: 1000 });
  return { adb, mcp: await connectInProcess({ device }) };
}

Deno.test({
  name: "tools/list shows each definition's own zod schema, strict, with its title in annotations",
  permissions: "none",
  async fn() {
    const { mcp } = await servedOnFakePhone();
    try {
      const listed = (await mcp.client.listTools()).tools;
      assert.deepEqual(listed.map((t) => t.name), TOOLS.map((t) => t.name));
      for (const tool of TOOLS) {
        const shown = listed.find((t) => t.name === tool.name)!;
        // The conversion the SDK asks of a Standard JSON Schema for tools/list.
        const own = tool.inputSchema["~standard"].jsonSchema.input({ target: "draft-2020-12" });
        assert.deepEqual(shown.inputSchema, own, tool.name);
        assert.equal(shown.inputSchema.additionalProperties, false, `${tool.name} is strict`);
        assert.equal(shown.title, tool.title);
        assert.equal(shown.description, tool.description);
        assert.deepEqual(shown.annotations, { title: tool.title, ...tool.annotations });
      }
    } finally {
      await mcp.close();
    }
  },
});

Deno.test({
  name: "a call is checked by the definition's strict zod schema: unknown or bad arguments refused",
  permissions: "none",
  async fn() {
    const { adb, mcp } = await servedOnFakePhone();
    try {
      const misspelt = await mcp.client.callTool({
        name: "phone_swipe",
        arguments: { x1: 1, y1: 2, x2: 3, y2: 4, duration: 900 },
      });
      assert.equal(misspelt.isError, true);
      assert.match(textOf(misspelt), /duration/);
      for (const tool of TOOLS) {
        const stray = await mcp.client.callTool({ name: tool.name, arguments: { zz_stray: 1 } });
        assert.equal(stray.isError, true, tool.name);
        assert.match(textOf(stray), /zz_stray/, tool.name);
      }
      const outOfRange = await mcp.client.callTool({
        name: "phone_tap",
        arguments: { x: -1, y: 5 },
      });
      assert.equal(outOfRange.isError, true);
      assert.match(textOf(outOfRange), /x/);
      assert.equal(adb.sent.length, 0, "a refused call reaches no phone");
      const tap = await mcp.client.callTool({ name: "phone_tap", arguments: { x: 10, y: 20 } });
      assert.equal(tap.isError, undefined, textOf(tap));
      assert.ok(adb.sent.includes("input tap 10 20"), adb.sent.join(" | "));
    } finally {
      await mcp.close();
    }
  },
});
