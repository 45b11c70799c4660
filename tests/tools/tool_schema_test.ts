// Each tool has one schema, its zod definition: the SDK lists it as JSON Schema and checks calls
// with it. These tests check that tools/list shows exactly that schema, strict, and that a call
// is refused by it before anything reaches the phone.

import assert from "node:assert/strict";
import { z } from "zod";
import { createDevice } from "../../lib/adb/device.ts";
import { TOOLS } from "../../lib/tools/index.ts";
import { refusalOf } from "../../lib/tools/tool.ts";
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

Deno.test({
  name: "a refused call says in plain words which argument breaks which rule, from the schema",
  permissions: "none",
  async fn() {
    const { adb, mcp } = await servedOnFakePhone();
    const refusal = async (name: string, args: Record<string, unknown>) => {
      const result = await mcp.client.callTool({ name, arguments: args });
      assert.equal(result.isError, true, `${name} ${JSON.stringify(args)}`);
      return textOf(result);
    };
    try {
      const cases: Array<[string, Record<string, unknown>, string]> = [
        [
          "phone_swipe",
          { x1: 1, y1: 2, x2: 3 },
          "Refused: invalid arguments for phone_swipe: y2 is required (a whole number from 0 to 20000)",
        ],
        [
          "phone_tap",
          { x: -1, y: 5 },
          "Refused: invalid arguments for phone_tap: x must be a whole number from 0 to 20000, not -1",
        ],
        [
          "phone_tap",
          { x: 1.5, y: "5" },
          'Refused: invalid arguments for phone_tap: x must be a whole number from 0 to 20000, not 1.5; y must be a whole number from 0 to 20000, not the string "5"',
        ],
        [
          "phone_tap",
          { x: 1, y: 1, settle: "yes", count: 5 },
          'Refused: invalid arguments for phone_tap: count must be a whole number from 1 to 3, not 5; settle must be true or false, not the string "yes"',
        ],
        [
          "phone_type",
          { text: "x".repeat(3000) },
          "Refused: invalid arguments for phone_type: text must be a string of 1 to 2000 characters, not a string of 3000 characters",
        ],
        [
          "phone_key",
          { key: true },
          "Refused: invalid arguments for phone_key: key must be a string of 1 to 40 characters or a number, not true",
        ],
        [
          "phone_swipe",
          { x1: 0, y1: 0, x2: 0, y2: 9, duration: 900 },
          'Refused: invalid arguments for phone_swipe: "duration" is not an argument of phone_swipe; its arguments are device, x1, y1, x2, y2, duration_ms, settle',
        ],
        [
          "phone_devices",
          { zz: 1, "a\nb": 2 },
          'Refused: invalid arguments for phone_devices: "zz" and "a\\nb" are not arguments of phone_devices; phone_devices takes no arguments',
        ],
        [
          "phone_tap",
          { element: "Sign\u0007in" },
          "Refused: invalid arguments for phone_tap: element: the name contains a control character; give it as the screen shows it",
        ],
      ];
      for (const [name, args, words] of cases) assert.equal(await refusal(name, args), words);
      // The schema's own words for device stay as written; no zod wording is left anywhere.
      assert.match(
        await refusal("phone_tap", { x: 1, y: 1, device: "a;reboot" }),
        /: device must be an adb serial as phone_devices lists it/,
      );
      for (const [name, args] of cases) {
        assert.doesNotMatch(
          await refusal(name, args),
          /Invalid input|Too (big|small)|Unrecognized key|expected \w+, received/,
        );
      }
      assert.equal(adb.sent.length, 0, "a refused call reaches no phone");
    } finally {
      await mcp.close();
    }
  },
});

Deno.test({
  name: "refusalOf says choices, a value that is not an object, and cuts what the agent sent",
  permissions: "none",
  fn() {
    const schema = z.strictObject({
      mode: z.enum(["fast", "slow"]),
      name: z.string().max(100).optional(),
    });
    const words = (args: unknown) => {
      const result = schema["~standard"].validate(args);
      assert.ok(!(result instanceof Promise) && result.issues !== undefined);
      return refusalOf("phone_x", result.issues, { args, schema });
    };
    assert.equal(
      words({ mode: "medium" }),
      'Refused: invalid arguments for phone_x: mode must be one of "fast", "slow", not the string "medium"',
    );
    assert.equal(
      words("fast"),
      'Refused: invalid arguments for phone_x: the arguments must be an object of named values, not the string "fast"; its arguments are mode, name',
    );
    const long = words({ mode: "fast", name: "n".repeat(5000) });
    assert.match(long, /name must be a string of at most 100 characters, not a string of 5000/);
    const many = words({
      mode: "fast",
      ...Object.fromEntries([..."abcdefghijkl"].map((k) => [k, 1])),
    });
    assert.match(many, /"a", "b", .*"h" and 4 more are not arguments of phone_x/);
    const hostile = words({ mode: "fast", ["k".repeat(500)]: 1 });
    assert.ok(hostile.length < 300, hostile);
  },
});
