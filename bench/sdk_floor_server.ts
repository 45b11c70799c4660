// The least an MCP server on phone-eye's stack can be: the same SDK and zod, the same stdio wire,
// one tool with an empty schema. bench/hand_bench.ts starts it as phone-eye starts, to show how
// much of phone-eye's start-up is the stack itself and how much is phone-eye's own.

import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";
import { StdioWire } from "../lib/mcp/stdio_wire.ts";

serveStdio(() => {
  const server = new McpServer({ name: "sdk-floor", version: "0" });
  server.registerTool(
    "noop",
    { description: "Does nothing.", inputSchema: z.object({}) },
    () => ({ content: [] }),
  );
  return server;
}, { transport: new StdioWire(Deno.stdin, Deno.stdout) });
