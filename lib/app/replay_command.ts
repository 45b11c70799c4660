// `phone-eye --replay FILE [--device SERIAL]` wired to the world: reads the journal, serves the verbs
// in process (an MCP server and the SDK's client over a memory pair) and waits on the phone's tree.

import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import type { Config } from "../config/config.ts";
import { AgentError } from "../core/errors.ts";
import { pollFor } from "../look/look_wait.ts";
import { createServer } from "../mcp/server.ts";
import { usefulElements } from "../screen/ui_tree_summary.ts";
import { readJournalFile } from "./journal_file.ts";
import { readJournal, replaySteps } from "./journal_read.ts";
import { writeErr, writeOut } from "./print.ts";
import { serverDeps } from "./real_deps.ts";
import { replay, type ReplayDeps, unreplayable } from "./replay.ts";

/** Exit 0 when every step matched, 1 when one diverged (or the phone failed), 2 on bad input. */
export async function replayCommand(
  config: Config,
  options: { file: string; device: string | undefined },
): Promise<number> {
  const text = await readJournalFile(options.file);
  const read = typeof text === "string" ? readJournal(text) : text;
  if ("problem" in read) return writeErr(`phone-eye: ${read.problem}`), 2;
  if (read.cut) {
    writeErr(
      `phone-eye: the last line of ${options.file} was cut short (its writer stopped mid-line); replaying the whole lines before it`,
    );
  }
  const steps = replaySteps(read.entries);
  const refusal = unreplayable(steps);
  if (refusal !== undefined) {
    return writeErr(`phone-eye: cannot replay ${options.file}: ${refusal}`), 2;
  }
  // --device names the one phone to replay on, as --serial names the one to serve.
  const phones = options.device === undefined
    ? config.phones
    : { kind: "listed" as const, serials: [options.device] as [string], from: "--serial" as const };
  const { deps } = serverDeps({ ...config, phones });
  const server = createServer(deps, { client: { via: "replay" } });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "phone-eye-replay", version: "1" });
  await client.connect(clientSide);
  try {
    const device = await deps.phones.resolve(undefined);
    const screen = deps.screens.of(device);
    const signal = new AbortController().signal;
    const real: ReplayDeps = {
      async call(verb, args) {
        const result = await client.callTool({ name: verb, arguments: args });
        const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
        const words = content.find((c) => c.type === "text")?.text ?? "";
        return { ok: result.isError !== true, words: words.split("\n", 1)[0] ?? "" };
      },
      async waitFor(name, how) {
        const { clock } = deps;
        const started = clock.now();
        const deadline = started + how.timeoutMs;
        const polled = await pollFor(screen, name, { ...how, started, deadline, clock, signal });
        const last = polled.last ?? [];
        return {
          met: polled.met !== undefined,
          screen: {
            app: last.find((e) => e.depth === 0 && e.packageName !== "")?.packageName,
            labels: [...new Set(usefulElements(last).map((e) => e.label))],
          },
        };
      },
      screenSize: () => device.screenSize(),
      progress: writeErr,
    };
    const outcome = await replay(steps, real);
    writeOut(outcome.report);
    return outcome.code;
  } catch (error) {
    if (!(error instanceof AgentError)) throw error;
    writeOut(`Replay stopped: the phone failed: ${error.message}`);
    return 1;
  } finally {
    await client.close();
    await server.close();
  }
}
