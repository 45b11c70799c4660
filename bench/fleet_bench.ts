// One HTTP server, many phones: 1, 2, 4 and 8 simulated phones behind one `phone-eye --http`
// (PHONE_EYE_DEVICES lists them), each driven by its own SDK client with `device` on every call.
//
//   deno task bench:fleet [--phones 1,2,4,8] [--actions 40] [--latency 300] [--shots]
//
// Each simulated phone answers every device command `--latency` ms late, as a phone whose
// `input` and `screencap` start a fresh Android runtime does, so the phones, not the CPU, are the
// limit. Each client runs hand verbs back to back on its phone (with --shots, a screenshot after
// every four: the simulated phones draw and encode in this process, so that measures the CPU). Prints
// actions per second (all phones, and per phone beside N× the single phone's rate) and the
// server's RSS (after the run, and its peak): measured, never asserted.

// deno-lint-ignore-file no-console -- a bench script: the terminal is its only output
import { parseArgs } from "node:util";
import type { Client } from "@modelcontextprotocol/client";
import { ENV_VARS } from "../lib/config/env_vars.ts";
import { startHttpEye } from "../tests/helpers/http_eye.ts";
import { startRig } from "../tests/helpers/rig.ts";

const TOKEN = "fleet-bench-token-0123456789abcdef0123";

/** The hand verbs an agent sends between looks, in turn. */
const HAND: Array<[string, Record<string, unknown>]> = [
  ["phone_tap", { x: 540, y: 1500 }],
  ["phone_swipe", { x1: 540, y1: 1800, x2: 540, y2: 900, duration_ms: 100 }],
  ["phone_key", { key: "home" }],
  ["phone_tap", { x: 270, y: 640 }],
];

/** With --shots, a screenshot after every hand cycle: the image work lands on the CPU. */
const WITH_SHOT: Array<[string, Record<string, unknown>]> = [...HAND, ["phone_shot", {}]];

let CYCLE = HAND;

/** VmRSS and VmHWM of a process in MiB, read through `cat` (see bench/memory_bench.ts). */
async function memory(pid: number): Promise<{ rss: number; peak: number }> {
  const out = await new Deno.Command("cat", { args: [`/proc/${pid}/status`], stdin: "null" })
    .output();
  const status = new TextDecoder().decode(out.stdout);
  const kib = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status)?.[1]);
  return { rss: kib("VmRSS") / 1024, peak: kib("VmHWM") / 1024 };
}

interface Run {
  phones: number;
  actions: number;
  seconds: number;
  rss: number;
  peak: number;
}

/** Whether this checkout's phone-eye takes a `device` on every verb (multi-phone support). */
const MULTI_PHONE = (ENV_VARS as readonly string[]).includes("PHONE_EYE_DEVICES");

async function drive(client: Client, serial: string, actions: number): Promise<void> {
  for (let i = 0; i < actions; i++) {
    const [name, args] = CYCLE[i % CYCLE.length]!;
    const result = await client.callTool({
      name,
      arguments: MULTI_PHONE ? { ...args, device: serial } : args,
    });
    if (result.isError) {
      throw new Error(
        `${name} on ${serial} failed: ${JSON.stringify(result.content).slice(0, 300)}`,
      );
    }
  }
}

async function run(phones: number, actions: number, latency: number): Promise<Run> {
  if (phones > 1 && !MULTI_PHONE) {
    throw new Error(
      "this checkout's phone-eye drives one phone per process (no PHONE_EYE_DEVICES): merge the multi-phone branch first",
    );
  }
  await using rig = await startRig({
    phones: Array.from({ length: phones }, () => ({})),
    phoneEye: false,
    ...(MULTI_PHONE ? { serial: null } : {}),
  });
  for (const sim of rig.sims) sim.faults.latency(latency);
  const serials = rig.sims.map((sim) => sim.serial);
  await using eye = await startHttpEye({
    env: {
      ...rig.env,
      PHONE_EYE_HTTP_TOKEN: TOKEN,
      ...(MULTI_PHONE ? { PHONE_EYE_DEVICES: serials.join(",") } : {}),
    },
    args: ["--http", "127.0.0.1:0"],
  });
  const clients: Client[] = [];
  for (let i = 0; i < phones; i++) {
    const client = await eye.connect({ token: TOKEN, protocol: "2026-07-28" });
    await client.listTools();
    clients.push(client);
  }
  // One warm-up cycle per phone: the eyes load and each phone's screen size is read once.
  await Promise.all(clients.map((client, i) => drive(client, serials[i]!, CYCLE.length)));
  const started = performance.now();
  await Promise.all(clients.map((client, i) => drive(client, serials[i]!, actions)));
  const seconds = (performance.now() - started) / 1000;
  const { rss, peak } = await memory(eye.pid);
  return { phones, actions: actions * phones, seconds, rss, peak };
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      phones: { type: "string", default: "1,2,4,8" },
      actions: { type: "string", default: "40" },
      latency: { type: "string", default: "300" },
      shots: { type: "boolean", default: false },
    },
  });
  if (values.shots) CYCLE = WITH_SHOT;
  const counts = values.phones.split(",").map(Number);
  const actions = Number(values.actions);
  const latency = Number(values.latency);
  console.log(
    `phone-eye --http, one server; ${actions} actions per phone (${
      CYCLE.map(([n]) => n).join(", ")
    } in turn), each device command ${latency} ms late; ${navigator.hardwareConcurrency} cores`,
  );
  console.log("phones  actions/s  per phone  vs N×1 phone  RSS MiB  peak MiB");
  let single: number | undefined;
  const runs: Run[] = [];
  for (const phones of counts) {
    const r = await run(phones, actions, latency);
    runs.push(r);
    const rate = r.actions / r.seconds;
    if (phones === 1) single = rate;
    const ratio = single === undefined ? "" : `${(rate / (single * phones)).toFixed(2)}×`;
    console.log(
      `${String(phones).padStart(6)}  ${rate.toFixed(1).padStart(9)}  ${
        (rate / phones).toFixed(1).padStart(9)
      }  ${ratio.padStart(12)}  ${r.rss.toFixed(1).padStart(7)}  ${r.peak.toFixed(1).padStart(8)}`,
    );
  }
  const base = runs.find((r) => r.phones === 1);
  if (base !== undefined) {
    for (const r of runs.filter((r) => r.phones > 1)) {
      const budget = 96 + 16 * (r.phones - 1);
      console.log(
        `${r.phones} phones: peak ${
          r.peak.toFixed(1)
        } MiB against the goal of ${budget} MiB (96 + 16 per extra phone)`,
      );
    }
  }
}

if (import.meta.main) await main(Deno.args);
