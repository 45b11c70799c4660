// Bench of the adb runner's bounds, against real `sh` scripts standing in for adb: a flood of
// output (peak RSS and time, against the largest real screenshot) and a timeout whose adb forked a
// child that holds the pipes (wall time, against an adb that hangs on its own).
//
//   deno task bench:adb [--runs 5]
//
// Each run is a fresh process, so its peak RSS (VmHWM) is its own. Prints medians and ratios
// measured in the same run; no thresholds (never a timed assertion).

// deno-lint-ignore-file no-console
import { parseArgs } from "node:util";
import { screencapPngCommand } from "../lib/adb/screen_commands.ts";
import { createDevice } from "../lib/adb/device.ts";
import { createAdbRunner } from "../lib/adb/runner.ts";

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** The stand-in adbs. `$1` is the folder the forking one writes its child's pid to. */
const SCRIPTS: Record<string, string> = {
  // The raw RGBA frame of a 3840×2400 tablet, the largest real screenshot.
  frame: `exec head -c ${3840 * 2400 * 4 + 16} /dev/zero`,
  flood: "exec head -c 1200000000 /dev/zero",
  hang: "exec sleep 30",
  fork: `sleep 30 &\necho $! > "$PHONE_EYE_BENCH_DIR/child.pid"\nwait`,
};

interface Sample {
  ms: number;
  peakMiB: number;
  said: string;
}

/** Child mode: one run through the device layer, as phone_shot makes it; prints one Sample. */
async function child(script: string, timeoutMs: number): Promise<void> {
  const dir = script.slice(0, script.lastIndexOf("/"));
  const device = createDevice({
    run: createAdbRunner({
      binary: script,
      env: { PATH: "/usr/bin:/bin", PHONE_EYE_BENCH_DIR: dir },
    }),
    serial: undefined,
    timeoutMs,
  });
  const t0 = performance.now();
  let said: string;
  try {
    said = `${(await device.run(screencapPngCommand())).stdout.length} bytes`;
  } catch (error) {
    said = `${(error as Error).name}: ${(error as Error).message.slice(0, 90)}…`;
  }
  const ms = performance.now() - t0;
  const hwm = /VmHWM:\s+(\d+) kB/.exec(await Deno.readTextFile("/proc/self/status"))?.[1];
  console.log(JSON.stringify({ ms, peakMiB: Number(hwm) / 1024, said }));
}

async function sample(dir: string, name: string, timeoutMs: number): Promise<Sample> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    // -A for the measured child alone: Deno lets only --allow-all read /proc/self/status.
    args: ["run", "-A", import.meta.filename!, "--child", `${dir}/${name}`, String(timeoutMs)],
    stdin: "null",
  }).output();
  if (code !== 0) throw new Error(new TextDecoder().decode(stderr));
  return JSON.parse(new TextDecoder().decode(stdout));
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { runs: { type: "string", default: "5" }, child: { type: "string" } },
    allowPositionals: true,
    args: Deno.args,
  });
  if (values.child !== undefined) return await child(values.child, Number(Deno.args.at(-1)));
  const runs = Number(values.runs);
  const dir = await Deno.makeTempDir({ prefix: "phone_eye_bench_adb_" });
  try {
    for (const [name, body] of Object.entries(SCRIPTS)) {
      await Deno.writeTextFile(`${dir}/${name}`, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    }
    const cases: Array<[string, string, number]> = [
      ["a 35 MiB raw 4K frame (baseline)", "frame", 20_000],
      ["a 1.2 GB flood", "flood", 20_000],
      ["an adb that hangs, 500 ms timeout (baseline)", "hang", 500],
      ["a forked child holds the pipes, 500 ms timeout", "fork", 500],
    ];
    const results: Record<string, { ms: number; peakMiB: number; said: string }> = {};
    for (const [label, name, timeoutMs] of cases) {
      const samples: Sample[] = [];
      for (let i = 0; i < runs; i++) {
        samples.push(await sample(dir, name, timeoutMs));
        if (name === "fork") {
          // The forked sleep outlives the run by design: end it before the next.
          const pid = Number(await Deno.readTextFile(`${dir}/child.pid`));
          try {
            Deno.kill(pid, "SIGKILL");
          } catch {
            // Already gone.
          }
        }
      }
      results[name] = {
        ms: median(samples.map((s) => s.ms)),
        peakMiB: median(samples.map((s) => s.peakMiB)),
        said: samples[0]!.said,
      };
      const r = results[name]!;
      console.log(
        `${label.padEnd(48)} median ${r.ms.toFixed(0).padStart(6)} ms, peak RSS ${
          r.peakMiB.toFixed(0).padStart(5)
        } MiB  (${r.said})`,
      );
    }
    const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
    console.log(
      `flood vs frame: time ${ratio(results.flood!.ms, results.frame!.ms)}, peak RSS ${
        ratio(results.flood!.peakMiB, results.frame!.peakMiB)
      }`,
    );
    console.log(`forked child vs hang: time ${ratio(results.fork!.ms, results.hang!.ms)}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

await main();
