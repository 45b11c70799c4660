// End-to-end bench of the hand: start-up to tools/list, and each verb's median latency through
// phone-eye against the same adb command run directly, both against the simulated phone.
//
//   deno task bench:hand [--runs 15] [--against DIR]
//
// --against DIR also starts another checkout of phone-eye (say `git worktree add DIR HEAD~1`), taking
// turns with this one, to compare spawn → tools/list before and after a change in one run; it
// prints the main thread's time on a CPU beside the wall time, which a busy machine disturbs less.
//
// Prints medians and ratios measured in the same run; no thresholds (never a timed assertion).

// deno-lint-ignore-file no-console
import { parseArgs } from "node:util";
import { shellScript, syntax } from "../lib/adb/commands.ts";
import { withExitMarker } from "../lib/adb/exit_marker.ts";
import { startAdbHarness } from "../tests/helpers/adb_harness.ts";
import {
  denoDir,
  type PhoneEyeOptions,
  startFlags,
  startPhoneEye,
  testPermissionFlags,
} from "../tests/helpers/phone_eye.ts";
import { startSimPhone } from "../sim/sim_phone.ts";
import { median, time } from "./stats.ts";
import { startStdioServer, type StdioServerCommand } from "./stdio_server.ts";

const ms = (n: number) => `${n.toFixed(1)} ms`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { runs: { type: "string", default: "15" }, against: { type: "string" } },
  });
  const RUNS = Number(values.runs);
  if (values.against !== undefined) return await compareStartUp(values.against, RUNS);
  const sim = await startSimPhone();
  const adb = await startAdbHarness();
  await adb.connect(sim.serial);
  const env = { ...adb.env, ANDROID_SERIAL: sim.serial };

  try {
    // Start-up: spawn → initialize → tools/list, against Deno's own start-up as the baseline,
    // with deno.json's start flags (production), with them and no V8 code cache (a first run),
    // without the V8 ones (V8's default heap), and with none at all (the SDK's default AJV
    // validator too).
    // Each variant runs as a block after one unmeasured run: V8's code cache is tied to the V8
    // flags it was made under, so alternating variants would measure a cold cache every time.
    const flags = await testPermissionFlags();
    const start = await startFlags();
    const empty = await Deno.makeTempFile({ suffix: ".ts" });
    await Deno.writeTextFile(empty, "");
    const variants: Array<[string, string[]]> = [
      [`start flags (${start.join(" ")})`, start],
      ["start flags, --no-code-cache", [...start, "--no-code-cache"]],
      ["start flags but the V8 ones", start.filter((f) => !f.startsWith("--v8-flags"))],
      ["no runtime flags", []],
    ];
    const starts = Math.min(RUNS, 10);
    const denoStart: number[] = [];
    for (let i = -1; i < starts; i++) {
      const took = await time(() =>
        new Deno.Command(Deno.execPath(), { args: ["run", "--no-prompt", empty], stdin: "null" })
          .output()
      );
      if (i >= 0) denoStart.push(took);
    }
    const toList = variants.map(() => [] as number[]);
    // The same stack with nothing of phone-eye's own: the SDK, zod and the stdio wire, one tool.
    const stackOnly: number[] = [];
    const blocks: Array<{ into: number[]; options: PhoneEyeOptions }> = [
      ...variants.map(([, runtimeFlags], v) => ({
        into: toList[v]!,
        options: { env, flags, runtimeFlags },
      })),
      {
        into: stackOnly,
        options: { env, flags, runtimeFlags: start, entry: "bench/sdk_floor_server.ts" },
      },
    ];
    for (const { into, options } of blocks) {
      for (let i = -1; i < starts; i++) {
        const t0 = performance.now();
        const eye = await startPhoneEye(options);
        await eye.client.listTools();
        if (i >= 0) into.push(performance.now() - t0);
        await eye.close();
      }
    }
    await Deno.remove(empty);
    const imports: Record<string, number[]> = {};
    for (let i = 0; i < Math.min(RUNS, 10); i++) {
      const { stdout } = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--no-prompt",
          ...start,
          new URL("./import_cost.ts", import.meta.url).pathname,
        ],
        stdin: "null",
        stderr: "null",
      }).output();
      const sample: Record<string, number> = JSON.parse(new TextDecoder().decode(stdout));
      for (const [name, t] of Object.entries(sample)) (imports[name] ??= []).push(t);
    }
    console.log(
      `start-up, spawn → initialize → tools/list answered (median of ${denoStart.length}):`,
    );
    console.log(`  deno running an empty file (the baseline): ${ms(median(denoStart))}`);
    for (const [v, [name]] of variants.entries()) {
      console.log(`  phone-eye, ${name}: ${ms(median(toList[v]!))}`);
    }
    console.log(
      `  the stack alone (SDK, zod, the stdio wire, one tool: bench/sdk_floor_server.ts), start flags: ${
        ms(median(stackOnly))
      }`,
    );
    console.log(
      `  phone-eye's own share with the start flags: ${
        ms(median(toList[0]!) - median(stackOnly))
      } over the stack alone, ${ms(median(toList[0]!) - median(denoStart))} over an empty file`,
    );
    console.log(`  imports, in one process with the start flags (median, in load order):`);
    for (const [name, t] of Object.entries(imports)) {
      console.log(`    ${name.padEnd(52)} ${ms(median(t)).padStart(9)}`);
    }

    const eye = await startPhoneEye({ env });
    await eye.client.callTool({ name: "phone_key", arguments: { key: "home" } }); // warm: wm size
    const verbs: Array<[string, Record<string, unknown>, string]> = [
      ["phone_tap", { x: 540, y: 300 }, "input tap 540 300"],
      ["phone_swipe", { x1: 540, y1: 1800, x2: 540, y2: 900 }, "input swipe 540 1800 540 900 300"],
      ["phone_type", { text: "hello" }, "input text 'hello'"],
      ["phone_key", { key: "home" }, "input keyevent 3"],
      [
        "phone_intent",
        { package: "com.android.settings" },
        "monkey -p 'com.android.settings' -c android.intent.category.LAUNCHER 1",
      ],
    ];
    console.log(
      `\nverb latency, median of ${RUNS} (phone-eye vs the same command via adb directly):`,
    );
    for (const [name, args, command] of verbs) {
      const viaEye: number[] = [];
      const direct: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        viaEye.push(await time(() => eye.client.callTool({ name, arguments: args })));
        direct.push(await time(() => adb.adb("-s", sim.serial, "shell", command)));
      }
      const marked: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        marked.push(
          await time(() =>
            adb.adb("-s", sim.serial, "shell", withExitMarker(shellScript([syntax(command)])))
          ),
        );
      }
      console.log(
        `  ${name.padEnd(13)} ${ms(median(viaEye)).padStart(9)}  adb direct ${
          ms(median(direct)).padStart(9)
        }  (with exit marker ${ms(median(marked))})  ratio ${
          (median(viaEye) / median(direct)).toFixed(2)
        }`,
      );
    }
    await eye.close();
  } finally {
    await adb.close();
    await sim.close();
  }
}

/** The main thread's time on a CPU so far, from /proc (schedstat's first field, in ns). */
async function mainThreadCpuMs(pid: number): Promise<number> {
  const { stdout } = await new Deno.Command("cat", {
    args: [`/proc/${pid}/task/${pid}/schedstat`],
    stdin: "null",
  }).output();
  return Number(new TextDecoder().decode(stdout).split(" ")[0]) / 1e6;
}

/** spawn → tools/list of this checkout and of `other`, in turns, with the start flags. */
async function compareStartUp(other: string, runs: number): Promise<void> {
  const here = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  const flags = [...await startFlags(), ...await testPermissionFlags()];
  const cache = await denoDir();
  const command = (dir: string): StdioServerCommand => ({
    command: Deno.execPath(),
    args: ["run", "--no-prompt", ...flags, `${dir}/main.ts`],
    env: { DENO_DIR: cache, NO_COLOR: "1" },
    cwd: dir,
  });
  const parties = [{ label: "this checkout", dir: here }, { label: other, dir: other }].map((
    p,
  ) => ({ ...p, wall: [] as number[], cpu: [] as number[] }));
  for (let i = -1; i < runs; i++) {
    // Alternating which goes first, so neither always follows the other's exit.
    for (const party of i % 2 === 0 ? parties : [...parties].reverse()) {
      const t0 = performance.now();
      const server = await startStdioServer(command(party.dir));
      try {
        await server.client.listTools();
        const wall = performance.now() - t0;
        const cpu = await mainThreadCpuMs(server.pid);
        if (i < 0) continue;
        party.wall.push(wall);
        party.cpu.push(cpu);
      } finally {
        await server.close();
      }
    }
  }
  console.log(`spawn → initialize → tools/list answered, start flags (median of ${runs}):`);
  for (const { label, wall, cpu } of parties) {
    console.log(
      `  ${label}: ${ms(median(wall))} wall, main thread on a CPU ${ms(median(cpu))}`,
    );
  }
}

// A script, not a `deno bench` file: `deno task bench` loads it and must not run it.
if (import.meta.main) await main();
