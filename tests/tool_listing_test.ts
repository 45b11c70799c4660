// tools/list comes from lib/tools/listing.json so start-up builds no zod schema; the definitions in
// lib/tools/ stay the source. These tests keep the two in lockstep and check that the listing
// changes nothing an agent sees: the same tools/list, the same refusals, the same calls.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport, McpServer } from "@modelcontextprotocol/server";
import { createDevice } from "../lib/adb/device.ts";
import { TOOLS } from "../lib/tools/index.ts";
import listing from "../lib/tools/listing.json" with { type: "json" };
import { callSchema } from "../lib/tools/tool.ts";
import { renderListing } from "../scripts/tool_listing.ts";
import { fakeAdb } from "./helpers/fake_adb.ts";
import { connectInProcess, textOf } from "./helpers/in_process.ts";

Deno.test({
  name: "lib/tools/listing.json is what the definitions give (run `deno task listing` if not)",
  permissions: "none",
  fn() {
    assert.deepEqual(
      listing,
      renderListing(),
      "lib/tools/listing.json is stale: run `deno task listing`",
    );
  },
});

/** tools/list from a server that registers the zod definitions themselves, as the SDK lists them. */
async function listedFromDefinitions() {
  const server = new McpServer({ name: "definitions", version: "0" });
  for (const tool of TOOLS) {
    server.registerTool(tool.name, {
      title: tool.title,
      description: tool.description,
      inputSchema: callSchema(tool),
      annotations: { title: tool.title, ...tool.annotations },
    }, () => ({ content: [] }));
  }
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test", version: "0" });
  await client.connect(clientSide);
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
    await server.close();
  }
}

/** phone-eye's server, in process, on a phone made of data that records each device command. */
async function servedOnFakePhone() {
  const adb = fakeAdb();
  const device = createDevice({ run: adb.run, serial: "127.0.0.1:5555", timeoutMs: 1000 });
  return { adb, mcp: await connectInProcess({ device }) };
}

Deno.test({
  name: "tools/list answers exactly what registering the zod definitions would",
  permissions: "none",
  async fn() {
    const { mcp } = await servedOnFakePhone();
    try {
      assert.deepEqual((await mcp.client.listTools()).tools, await listedFromDefinitions());
    } finally {
      await mcp.close();
    }
  },
});

Deno.test({
  name: "a call is checked by the definition's strict zod schema, loaded with the first call",
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
