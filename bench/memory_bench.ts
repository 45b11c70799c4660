// Resident memory of phone-eye (main.ts over stdio, as `deno task start` runs it) across a session:
// idle after tools/list, then 200 mixed calls on the simulated phone (50 phone_shot, 50 phone_look
// with vision through the local OpenAI-compatible fixture, 100 hand verbs), VmRSS every 20 calls.
//
//   deno task bench:memory [--calls 200] [--every 20] [--latency 0]
//
// Prints the RSS curve, the peak (VmHWM) and the growth between call 100 and the last: memory is
// measured, never asserted (a shared machine's numbers are for reading, not for failing CI).

// deno-lint-ignore-file no-console -- a bench script: the terminal is its only output
import { parseArgs } from "node:util";
import { closing, startRig } from "../tests/helpers/rig.ts";
import { startOpenAiServer } from "../tests/fixtures/openai_server.ts";
import { startFlags } from "../tests/helpers/phone_eye.ts";

/** VmRSS and VmHWM of a process in MiB, read through `cat` (Deno grants /proc/<pid> to no less
 * than --allow-all, which a bench has no business asking for). */
async function memory(
  pid: number,
): Promise<{ rss: number; peak: number; anon: number; file: number }> {
  const out = await new Deno.Command("cat", { args: [`/proc/${pid}/status`], stdin: "null" })
    .output();
  const status = new TextDecoder().decode(out.stdout);
  const kib = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status)?.[1]);
  return {
    rss: kib("VmRSS") / 1024,
    peak: kib("VmHWM") / 1024,
    // Anonymous memory (heaps, buffers) against mapped files (the deno binary's own code).
    anon: kib("RssAnon") / 1024,
    file: kib("RssFile") / 1024,
  };
}

/** One cycle of eight calls: two screenshots, two looks with vision, four hand verbs. */
const CYCLE: Array<[string, Record<string, unknown>]> = [
  ["phone_shot", {}],
  ["phone_tap", { x: 540, y: 1500 }],
  ["phone_look", { question: "Where is the Notes icon?" }],
  ["phone_key", { key: "home" }],
  ["phone_shot", {}],
  ["phone_swipe", { x1: 540, y1: 1800, x2: 540, y2: 900 }],
  ["phone_look", {}],
  ["phone_type", { text: "hello" }],
];

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      calls: { type: "string", default: "200" },
      every: { type: "string", default: "20" },
      latency: { type: "string", default: "0" },
    },
  });
  const calls = Number(values.calls);
  const every = Number(values.every);
  await using vision = closing(startOpenAiServer({
    answer: "A home screen. The Notes icon is at (270, 640); Settings at (810, 640).",
  }));
  await using rig = await startRig({
    env: { PHONE_EYE_VISION_BASE_URL: vision.url, PHONE_EYE_VISION_MODEL: "bench" },
  });
  rig.sim.faults.latency(Number(values.latency));
  const pid = rig.eye.pid;
  await rig.client.listTools();
  // Idle: a second after tools/list, the wait before an agent's first call.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const idle = await memory(pid);
  const curve: Array<{ calls: number; rss: number }> = [{ calls: 0, rss: idle.rss }];
  const counts: Record<string, number> = {};
  const started = performance.now();
  for (let i = 1; i <= calls; i++) {
    const [name, args] = CYCLE[(i - 1) % CYCLE.length]!;
    const result = await rig.call(name, args);
    if (result.isError) {
      throw new Error(`${name} failed: ${JSON.stringify(result.content).slice(0, 400)}`);
    }
    counts[name] = (counts[name] ?? 0) + 1;
    // The rig keeps every result for its own sweeps; a long bench need not.
    rig.outputs.length = 0;
    if (i % every === 0) curve.push({ calls: i, rss: (await memory(pid)).rss });
  }
  const end = await memory(pid);
  const at = (n: number) => curve.find((p) => p.calls === n)?.rss;
  const mid = at(Math.floor(calls / 2 / every) * every);
  console.log(
    `phone-eye RSS over ${calls} calls (${
      Object.entries(counts).map(([n, c]) => `${c} ${n}`).join(", ")
    }), sim latency ${values.latency} ms, vision: local OpenAI-compatible fixture`,
  );
  console.log(`runtime flags: ${(await startFlags()).join(" ") || "(none)"}`);
  const split = (m: { anon: number; file: number }) =>
    `anonymous ${m.anon.toFixed(1)}, mapped files ${m.file.toFixed(1)}`;
  console.log(`idle (1 s after tools/list): ${idle.rss.toFixed(1)} MiB (${split(idle)})`);
  console.log("calls  VmRSS MiB");
  for (const p of curve) {
    console.log(`${String(p.calls).padStart(5)}  ${p.rss.toFixed(1).padStart(8)}`);
  }
  console.log(
    `peak (VmHWM): ${end.peak.toFixed(1)} MiB; after ${calls} calls: ${end.rss.toFixed(1)} MiB (${
      split(end)
    })`,
  );
  if (mid !== undefined) {
    console.log(
      `growth from call ${Math.floor(calls / 2 / every) * every} to ${calls}: ${
        (end.rss - mid).toFixed(1)
      } MiB`,
    );
  }
  console.log(`${calls} calls in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  console.log(rig.stderr().split("\n").filter((l) => l.startsWith("MEM")).join("\n"));
}

if (import.meta.main) await main(Deno.args);
