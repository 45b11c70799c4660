// Connects the SDK's real Client to createServer(deps) over the SDK's in-memory transport pair:
// tier-2 tests exercise schemas, annotations and isError mapping without a process or a phone.

import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import type { Device } from "../../lib/adb/device.ts";
import { realClock } from "../../lib/core/clock.ts";
import { createPhones, type Phones } from "../../lib/adb/phones.ts";
import { createLink } from "../../lib/adb/link.ts";
import { DEFAULT_LOOK_BUDGET_MS } from "../../lib/config/config.ts";
import { createGarbageCollector } from "../../lib/core/memory.ts";
import { createServer, type ServerDeps } from "../../lib/mcp/server.ts";
import { createScreens } from "../../lib/screen/phone_screen.ts";
import { createVision } from "../../lib/vision/vision.ts";

/**
 * A server that drives just `device` as adb's default phone (no ANDROID_SERIAL or
 * PHONE_EYE_DEVICES): what most in-process tests need. Anything that asks adb itself (a `device`
 * argument, phone_devices) fails loudly: such a test passes `phones` made with a real runner.
 */
export function onePhone(device: Device): Phones {
  return createPhones({
    set: { kind: "default" },
    link: createLink({
      run: () => Promise.reject(new Error("this in-process server has no adb: pass phones")),
      timeoutMs: 1000,
    }),
    makeDevice: () => device,
  });
}

export interface InProcess {
  client: Client;
  logged: string[];
  close(): Promise<void>;
}

/**
 * A server's resources over `phones`: vision unconfigured, no shots, the production look budget,
 * clock and collector (which does nothing without --expose-gc), errors to `logError`.
 */
export function serverDeps(phones: Phones, logError: (message: string) => void): ServerDeps {
  return {
    phones,
    screens: createScreens(),
    vision: createVision({ route: "none" }),
    saveShot: undefined,
    lookBudgetMs: DEFAULT_LOOK_BUDGET_MS,
    clock: realClock,
    memory: createGarbageCollector(),
    logError,
  };
}

/**
 * Connects a client to a server built from `deps`; vision defaults to unconfigured, no shots, the
 * production look budget, and the production clock and collector (which does nothing without --expose-gc).
 */
export async function connectInProcess(
  deps:
    & ({ device: Device } | Pick<ServerDeps, "phones">)
    & Partial<Omit<ServerDeps, "logError" | "phones">>,
): Promise<InProcess> {
  const logged: string[] = [];
  const phones = "phones" in deps ? deps.phones : onePhone(deps.device);
  const server = createServer({
    ...serverDeps(phones, (m) => logged.push(m)),
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

/** One section of phone_look's text ("[vision]", "[ui-tree]", …), without its header. */
export function lookSection(text: string, name: string): string {
  const start = text.indexOf(`[${name}]\n`);
  if (start < 0) throw new Error(`no [${name}] in:\n${text}`);
  const rest = text.slice(start + name.length + 3);
  const end = rest.search(/\n\n\[[a-z-]+\]\n/);
  return end < 0 ? rest : rest.slice(0, end);
}
