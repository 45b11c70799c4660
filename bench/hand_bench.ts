// End-to-end bench of the hand: start-up to tools/list, and each verb's median latency through
// phone-eye against the same adb command run directly, both against the simulated phone.
//
//   deno task bench:hand [--runs 15]
//
// Prints medians and ratios measured in the same run; no thresholds (never a timed assertion).

// deno-lint-ignore-file no-console
import { parseArgs } from "node:util";
import { withExitMarker } from "../lib/adb/exit_marker.ts";
import { startAdbHarness } from "../tests/helpers/adb_harness.ts";
import { startPhoneEye, testPermissionFlags } from "../tests/helpers/phone_eye.ts";
import { startSimPhone } from "../tests/sim/sim_phone.ts";
import { median, time } from "./stats.ts";

const ms = (n: number) => `${n.toFixed(1)} ms`;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { runs: { type: "string", default: "15" } } });
  const RUNS = Number(values.runs);
  const sim = await startSimPhone();
  const adb = await startAdbHarness();
  await adb.connect(sim.serial);
  const env = { ...adb.env, ANDROID_SERIAL: sim.serial };

  try {
    // Start-up: spawn → initialize → tools/list, against Deno's own start-up as the baseline.
    const flags = await testPermissionFlags();
    const empty = await Deno.makeTempFile({ suffix: ".ts" });
    await Deno.writeTextFile(empty, "");
    const denoStart: number[] = [];
    const toList: number[] = [];
    for (let i = 0; i < Math.min(RUNS, 10); i++) {
      denoStart.push(
        await time(() =>
          new Deno.Command(Deno.execPath(), { args: ["run", "--no-prompt", empty], stdin: "null" })
            .output()
        ),
      );
      const t0 = performance.now();
      const eye = await startPhoneEye({ env, flags });
      await eye.client.listTools();
      toList.push(performance.now() - t0);
      await eye.close();
    }
    await Deno.remove(empty);
    const imports: Record<string, number[]> = {};
    for (let i = 0; i < Math.min(RUNS, 10); i++) {
      const { stdout } = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--no-prompt", new URL("./import_cost.ts", import.meta.url).pathname],
        stdin: "null",
        stderr: "null",
      }).output();
      const sample: Record<string, number> = JSON.parse(new TextDecoder().decode(stdout));
      for (const [name, t] of Object.entries(sample)) (imports[name] ??= []).push(t);
    }
    console.log(`start-up to tools/list: median ${ms(median(toList))}`);
    console.log(
      `  baseline, deno running an empty file: ${ms(median(denoStart))}; phone-eye's own share: ${
        ms(median(toList) - median(denoStart))
      }`,
    );
    console.log(
      `  of which imports: ${
        Object.entries(imports).map(([name, t]) => `${name} ${ms(median(t))}`).join(", ")
      }`,
    );

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
            adb.adb("-s", sim.serial, "shell", withExitMarker({ service: "shell", shell: command }))
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

// A script, not a `deno bench` file: `deno task bench` loads it and must not run it.
if (import.meta.main) await main();
