// The gap between the two taps of a double tap, as the simulated phone's `input` records them:
// phone_tap with count 2 (one device command) against two phone_tap calls back to back (the
// fastest a script could do before; an agent's two calls are a model turn apart), both through
// phone-eye, the real adb and the sim, on a fast link and on one 100 ms slower per command.
//
//   deno task bench:tap [--runs 21]
//
// Android counts a double tap when the second tap comes down 40–300 ms after the first came up
// (ViewConfiguration DOUBLE_TAP_MIN_TIME / DOUBLE_TAP_TIMEOUT). The sim's `input` is a shell
// script that starts in a few ms; a phone adds its own `input` start-up to each gap (see the
// phone_tap description). Prints medians and ratios; no thresholds.

// deno-lint-ignore-file no-console
import { parseArgs } from "node:util";
import { startAdbHarness } from "../tests/helpers/adb_harness.ts";
import { startPhoneEye } from "../tests/helpers/phone_eye.ts";
import { startSimPhone } from "../sim/sim_phone.ts";

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const ms = (n: number) => `${n.toFixed(1)} ms`;
const range = (xs: number[]) => `${ms(Math.min(...xs))}–${ms(Math.max(...xs))}`;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { runs: { type: "string", default: "21" } } });
  const RUNS = Number(values.runs);
  const sim = await startSimPhone();
  const adb = await startAdbHarness();
  await adb.connect(sim.serial);
  const eye = await startPhoneEye({ env: { ...adb.env, ANDROID_SERIAL: sim.serial } });
  // A point on the home screen's empty wallpaper: taps there change nothing.
  const point = { x: 540, y: 1500 };
  try {
    await eye.client.callTool({ name: "phone_tap", arguments: point }); // warm: wm size
    const gap = async (tap: () => Promise<unknown>) => {
      await tap();
      const [a, b] = (await sim.tapTimes()).slice(-2) as [number, number];
      return b - a;
    };
    const inWindow = (xs: number[]) => xs.filter((g) => g >= 40 && g <= 300).length;
    const row = (label: string, xs: number[]) =>
      `  ${label.padEnd(34)} ${ms(median(xs)).padStart(9)}  range ${range(xs)}  in 40–300 ms: ${
        inWindow(xs)
      }/${RUNS}`;
    console.log(`gap between the two taps of a double tap, median of ${RUNS} (simulated phone):`);
    // The sim's latency fault delays each device command before it runs, as a slower link does.
    for (const latency of [0, 100]) {
      sim.faults.latency(latency);
      const oneCommand: number[] = [];
      const twoCalls: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        oneCommand.push(
          await gap(() =>
            eye.client.callTool({ name: "phone_tap", arguments: { ...point, count: 2 } })
          ),
        );
        twoCalls.push(
          await gap(async () => {
            await eye.client.callTool({ name: "phone_tap", arguments: point });
            await eye.client.callTool({ name: "phone_tap", arguments: point });
          }),
        );
      }
      console.log(`link latency ${latency} ms per command:`);
      console.log(row("phone_tap count 2 (one command)", oneCommand));
      console.log(row("two phone_tap calls back to back", twoCalls));
      console.log(
        `  ratio two calls / one command: ${(median(twoCalls) / median(oneCommand)).toFixed(2)}`,
      );
    }
    sim.faults.latency(0);
  } finally {
    await eye.close();
    await adb.close();
    await sim.close();
  }
}

// A script, not a `deno bench` file: `deno task bench` loads it and must not run it.
if (import.meta.main) await main();
