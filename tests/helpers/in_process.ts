// Connects the SDK's real Client to createServer(deps) over the SDK's in-memory transport pair:
// tier-2 tests exercise schemas, annotations and isError mapping without a process or a phone.

import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { realClock } from "../../lib/clock.ts";
import { DEFAULT_LOOK_BUDGET_MS } from "../../lib/config.ts";
import { createGarbageCollector } from "../../lib/memory.ts";
import { createServer, type ServerDeps } from "../../lib/server.ts";
import { createVision } from "../../lib/vision/vision.ts";

export interface InProcess {
  client: Client;
  logged: string[];
  close(): Promise<void>;
}

/**
 * Connects a client to a server built from `deps`; vision defaults to unconfigured, no shots, the
 * production look budget, and the production clock and collector (which does nothing without --expose-gc).
 */
export async function connectInProcess(
  deps: Pick<ServerDeps, "device"> & Partial<Omit<ServerDeps, "logError">>,
): Promise<InProcess> {
  const logged: string[] = [];
  const server = createServer({
    vision: createVision({ route: "none" }),
    saveShot: undefined,
    lookBudgetMs: DEFAULT_LOOK_BUDGET_MS,
    clock: realClock,
    memory: createGarbageCollector(),
    ...deps,
    logError: (m) => logged.push(m),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test", version: "0" });
  await client.connect(clientSide);
  return {
    client,
    logged,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

/** The text of a tool result's first text part. */
export function textOf(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
}
