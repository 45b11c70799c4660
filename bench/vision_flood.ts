// What a hostile vision server costs phone-eye: peak RSS, time to the error, and the bytes the
// server still manages to send after phone-eye has answered, for each route and kind of flood.
//
//   deno run -P=test --no-prompt bench/vision_flood.ts [--case direct-1g,...] [--after-ms 5000]
//
// Each case runs in its own process (peak RSS is per process: getrusage's ru_maxrss), with the
// fixture server in that process too; the flood is generated as sent, so the server holds none of it.

import process from "node:process";
import { parseArgs } from "node:util";
import type { VisionConfig } from "../lib/config/config.ts";
import { createVision } from "../lib/vision/vision.ts";
import { startMcpVisionServer } from "../tests/fixtures/mcp_vision_server.ts";
import { type FloodSpec, startOpenAiServer } from "../tests/fixtures/openai_server.ts";
import { png } from "../tests/fixtures/vision_images.ts";

const GiB = 2 ** 30;
const MiB = 2 ** 20;

interface Case {
  route: "direct" | "mcp";
  flood: FloodSpec;
  timeoutMs: number;
  what: string;
}

const CASES: Record<string, Case> = {
  "direct-1g": {
    route: "direct",
    what: "direct: a 200 whose JSON body is 1 GiB (one endless string)",
    timeoutMs: 120_000,
    flood: { prefix: '{"choices":[{"message":{"content":"', limitBytes: GiB },
  },
  "mcp-sse-1g": {
    route: "mcp",
    what: "mcp: tools/call answered by a 1 GiB SSE event (one endless data line)",
    timeoutMs: 120_000,
    flood: { prefix: "event: message\ndata: ", limitBytes: GiB },
  },
  "mcp-sse-endless": {
    route: "mcp",
    what: "mcp: tools/call answered by an endless full-speed SSE comment stream, 1 s timeout",
    timeoutMs: 1_000,
    flood: { filler: ": keep-alive\n", limitBytes: 64 * GiB },
  },
  "mcp-sse-trickle": {
    route: "mcp",
    what: "mcp: an endless SSE comment trickle (16 KiB / 10 ms) under the cap, 500 ms timeout",
    timeoutMs: 500,
    flood: { filler: ": keep-alive\n", limitBytes: 64 * GiB, paceMs: 10, chunkBytes: 16 * 1024 },
  },
};

interface Result {
  case: string;
  code: string;
  message: string;
  describeMs: number;
  peakRssMiB: number;
  sentAtErrorMiB: number;
  /** Bytes sent between the error and the server's body being cancelled (or --after-ms). */
  sentAfterErrorMiB: number;
  endedHow: string;
  /** Bytes sent in the second after vision.close(). */
  sentAfterCloseMiB: number;
  nextCall: string;
}

function peakRssMiB(): number {
  return Math.round(process.resourceUsage().maxRSS / 1024);
}

function within<T>(ms: number, p: Promise<T>): Promise<T | "still running"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    p,
    new Promise<"still running">((r) => timer = setTimeout(() => r("still running"), ms)),
  ]).finally(() => clearTimeout(timer));
}

async function runCase(name: string, afterMs: number): Promise<Result> {
  const c = CASES[name];
  if (!c) throw new Error(`no case ${name}`);
  const direct = c.route === "direct" ? startOpenAiServer({ flood: c.flood }) : undefined;
  const mcp = c.route === "mcp" ? startMcpVisionServer({ flood: c.flood }) : undefined;
  const config: VisionConfig = direct
    ? {
      route: "direct",
      baseUrl: direct.url,
      apiKey: undefined,
      model: "m",
      timeoutMs: c.timeoutMs,
    }
    : { route: "mcp", url: mcp!.url, tool: "describe_image", timeoutMs: c.timeoutMs };
  const vision = createVision(config, { fetch });
  const floods = direct?.floods ?? mcp!.floods;
  const started = performance.now();
  let code = "OK";
  let message = "";
  try {
    message = (await vision.describe(png(8, 8), "q")).slice(0, 120);
  } catch (err) {
    code = (err as { code?: string }).code ?? (err as Error).name;
    message = String((err as Error).message).slice(0, 200);
  }
  const describeMs = Math.round(performance.now() - started);
  const flood = floods[0];
  const sentAtError = flood?.sent ?? 0;
  const endedHow = flood ? await within(afterMs, flood.ended) : "no flood";
  const sentAfterError = (flood?.sent ?? 0) - sentAtError;
  const beforeClose = flood?.sent ?? 0;
  await vision.close();
  if (flood) await within(1_000, flood.ended);
  const sentAfterClose = (flood?.sent ?? 0) - beforeClose;
  // The next look, against a server that now answers normally.
  direct?.set({ flood: undefined });
  mcp?.set({ flood: undefined });
  const again = createVision(config, { fetch });
  let nextCall: string;
  try {
    nextCall = `ok (${(await again.describe(png(8, 8), "q")).length} chars)`;
  } catch (err) {
    nextCall = `failed: ${(err as { code?: string }).code}`;
  }
  await again.close();
  const peak = peakRssMiB();
  await (direct ?? mcp)!.close();
  return {
    case: name,
    code,
    message,
    describeMs,
    peakRssMiB: peak,
    sentAtErrorMiB: Math.round(sentAtError / MiB),
    sentAfterErrorMiB: Math.round(sentAfterError / MiB * 10) / 10,
    endedHow: String(endedHow),
    sentAfterCloseMiB: Math.round(sentAfterClose / MiB * 10) / 10,
    nextCall,
  };
}

const args = parseArgs({
  args: Deno.args,
  options: {
    case: { type: "string" },
    "after-ms": { type: "string", default: "5000" },
    child: { type: "boolean", default: false },
  },
});
const afterMs = Number(args.values["after-ms"]);
const names = args.values.case?.split(",") ?? Object.keys(CASES);

if (args.values.child) {
  const result = await runCase(names[0]!, afterMs);
  await Deno.stdout.write(new TextEncoder().encode(JSON.stringify(result)));
  // The old code can leave a stream being read after close(); exit rather than wait for it.
  Deno.exit(0);
}

for (const name of names) {
  const child = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-P=test",
      "--no-prompt",
      import.meta.filename!,
      "--child",
      "--case",
      name,
      "--after-ms",
      String(afterMs),
    ],
    stderr: "inherit",
  }).output();
  const out = new TextDecoder().decode(child.stdout);
  const log = (line: string) => Deno.stderr.writeSync(new TextEncoder().encode(line + "\n"));
  log(`## ${name}: ${CASES[name]?.what}`);
  log(child.success ? JSON.stringify(JSON.parse(out), null, 1) : `failed (exit ${child.code})`);
}
