// End-to-end timing of the eyes: phone_shot, the UI tree, the vision channel and phone_look, through
// main.ts, the real adb and the simulated phone, against the same adb commands run bare (the floor),
// "fast" (the sim as it is) and "realistic" (--latency ms before every adb command, Wi-Fi-like).
//
//   deno task bench:look [--runs 15] [--latency 80] [--vision-delay 400]
//
// The floors: `exec-out screencap -p` for phone_shot; `exec-out uiautomator dump /dev/tty`, one
// device process, for the tree; raw `screencap` and the dump+cat+rm of a file for comparison. The
// host-side rows time each step of a screenshot in this process, on the sim's own frame.
//
// A script, not `deno bench`: each sample is a whole tool call across three processes, and what it
// shows is a ratio (phone_look against its slower channel), not nanoseconds. Prints medians.

import { parseArgs } from "node:util";
import { startAdbHarness } from "../tests/helpers/adb_harness.ts";
import { type PhoneEyeProcess, startPhoneEye } from "../tests/helpers/phone_eye.ts";
import { startOpenAiServer } from "../tests/fixtures/openai_server.ts";
import { startSimPhone } from "../sim/sim_phone.ts";
import { encodeFrame, toBase64 } from "../lib/image/encode.ts";
import { readPngStream } from "../lib/image/png_decode.ts";
import { readRawScreencap } from "../lib/image/raw_screencap.ts";
import { agentSizing, fitFor } from "../lib/image/sizing.ts";
import { decodePng, prepareForVision } from "../tests/fixtures/images/pipeline.ts";
import { createVision } from "../lib/vision/vision.ts";
import { median } from "./stats.ts";
import { minorFaults } from "./stdio_server.ts";

interface Sample {
  ms: number;
  bytes?: number;
  /** Minor page faults the server took during the call. */
  faults?: number;
}

async function measure(
  runs: number,
  fn: () => Promise<number | void> | number | void,
): Promise<Sample[]> {
  for (let i = 0; i < 2; i++) await fn(); // warm up: JIT, adb connection, vision session
  const samples: Sample[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    const bytes = await fn();
    samples.push({ ms: performance.now() - start, ...(bytes === undefined ? {} : { bytes }) });
  }
  return samples;
}

interface ToolResult {
  content: Array<{ type: string; text?: string; data?: string }>;
  isError?: boolean;
}

async function call(eye: PhoneEyeProcess, name: string, expect: RegExp): Promise<ToolResult> {
  const result = await eye.client.callTool({ name, arguments: {} }) as ToolResult;
  const text = result.content.map((c) => c.text ?? `<${c.type}>`).join("\n");
  if (result.isError || !expect.test(text)) {
    throw new Error(`${name} did not answer as the bench expects (${expect}):\n${text}`);
  }
  return result;
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: "string", default: "15" },
      latency: { type: "string", default: "80" },
      "vision-delay": { type: "string", default: "400" },
    },
  });
  const runs = Number(values.runs);
  const latency = Number(values.latency);
  const visionDelay = Number(values["vision-delay"]);

  const sim = await startSimPhone();
  const adb = await startAdbHarness();
  const server = startOpenAiServer({ delayMs: visionDelay });
  const eyes: PhoneEyeProcess[] = [];
  const lines: string[] = [];
  const row = (name: string, samples: Sample[]) => {
    const ms = median(samples.map((s) => s.ms));
    const bytes = samples[0]?.bytes === undefined
      ? ""
      : `  ${Math.round(median(samples.map((s) => s.bytes ?? 0)) / 1024)} KB`;
    lines.push(`${name.padEnd(58)} ${ms.toFixed(0).padStart(6)} ms${bytes}`);
    return ms;
  };
  try {
    await adb.connect(sim.serial);
    const base = { ...adb.env, ANDROID_SERIAL: sim.serial };
    const seeing = await startPhoneEye({
      env: { ...base, PHONE_EYE_VISION_BASE_URL: server.url, PHONE_EYE_VISION_MODEL: "bench" },
    });
    eyes.push(seeing);
    const blind = await startPhoneEye({ env: base });
    eyes.push(blind);
    const bare = (...args: string[]) => adb.adbBytes("-s", sim.serial, ...args);
    const dumpPath = "/data/local/tmp/bench.xml";

    lines.push(
      `phone-eye eyes, ${runs} runs each (median), 1080×2400 screen; fast: the sim as it is, ` +
        `realistic: ${latency} ms per adb command; fake vision model ${visionDelay} ms per answer`,
    );
    // Each run takes every row in turn, so load from anything else on the machine falls on all.
    for (const [setting, ms] of [["fast", 0], ["realistic", latency]] as const) {
      sim.faults.latency(ms);
      const take = {
        shotFloor: [] as Sample[],
        raw: [] as Sample[],
        shot: [] as Sample[],
        dumpFloor: [] as Sample[],
        fileDump: [] as Sample[],
        tree: [] as Sample[],
      };
      const sample = async (into: Sample[], fn: () => Promise<number | void>, warm: boolean) => {
        const start = performance.now();
        const bytes = await fn();
        const took = performance.now() - start;
        if (!warm) into.push({ ms: took, ...(bytes === undefined ? {} : { bytes }) });
      };
      for (let i = -2; i < runs; i++) {
        const warm = i < 0;
        await sample(take.shotFloor, async () => {
          return (await bare("exec-out", "screencap -p")).stdout.length;
        }, warm);
        const faultsBefore = await minorFaults(blind.pid);
        await sample(take.shot, async () => {
          const shot = await call(blind, "phone_shot", /multiply image x,y/);
          return Uint8Array.fromBase64(shot.content[0]?.data ?? "").length;
        }, warm);
        const faultsAfter = await minorFaults(blind.pid);
        const last = take.shot.at(-1);
        if (!warm && last && faultsBefore !== null && faultsAfter !== null) {
          last.faults = faultsAfter - faultsBefore;
        }
        await sample(
          take.raw,
          async () => (await bare("exec-out", "screencap")).stdout.length,
          warm,
        );
        await sample(take.dumpFloor, async () => {
          return (await bare("exec-out", "uiautomator dump /dev/tty")).stdout.length;
        }, warm);
        await sample(take.tree, () => call(blind, "phone_look", /^Notes @ /m).then(() => {}), warm);
        await sample(take.fileDump, async () => {
          await bare("shell", `uiautomator dump ${dumpPath} && cat ${dumpPath}; rm -f ${dumpPath}`);
        }, warm);
      }
      lines.push("", `${setting}${ms > 0 ? ` (${ms} ms per adb command)` : ""}:`);
      const shotFloor = row("  floor: adb exec-out screencap -p", take.shotFloor);
      const shot = row("  phone_shot (image bytes as sent)", take.shot);
      const faults = take.shot.flatMap((s) => s.faults === undefined ? [] : [s.faults]);
      if (faults.length > 0) {
        lines.push(
          `    page faults in the server per phone_shot: ${median(faults).toFixed(0)} (median)`,
        );
      }
      row("  adb exec-out screencap (raw RGBA, no PNG)", take.raw);
      const dumpFloor = row("  floor: adb exec-out uiautomator dump /dev/tty", take.dumpFloor);
      const tree = row("  tree-only look: phone_look, vision unconfigured", take.tree);
      row("  adb shell uiautomator dump FILE && cat FILE; rm -f FILE", take.fileDump);
      lines.push(
        `  phone_shot / floor = ${(shot / shotFloor).toFixed(2)}; ` +
          `tree-only look / single-process dump floor = ${(tree / dumpFloor).toFixed(2)}`,
      );
    }

    // Host side of one screenshot, in this process, on the sim's frame (PNG and raw alike).
    sim.faults.latency(0);
    const simPng = (await bare("exec-out", "screencap -p")).stdout;
    const simRaw = (await bare("exec-out", "screencap")).stdout;
    const sizing = agentSizing();
    const frame = await readPngStream(simPng, fitFor(sizing));
    const encoded = encodeFrame(frame, sizing);
    lines.push("", "host side of phone_shot, in-process (1080×2400 → 540×1200):");
    row(
      `  readPngStream: inflate, unfilter, reduce (${Math.round(simPng.length / 1024)} KB PNG)`,
      await measure(runs, async () => void await readPngStream(simPng, fitFor(sizing))),
    );
    row(
      `  readRawScreencap: reduce (${Math.round(simRaw.length / 1024)} KB raw)`,
      await measure(runs, () => void readRawScreencap(simRaw, fitFor(sizing))),
    );
    row(
      `  encodeFrame → ${encoded.mimeType} ${Math.round(encoded.bytes.length / 1024)} KB`,
      await measure(runs, () => void encodeFrame(frame, sizing)),
    );
    row("  base64", await measure(runs, () => void toBase64(encoded.bytes)));

    sim.faults.latency(latency);
    lines.push("", `phone_look with vision, realistic (${latency} ms per adb command):`);
    const png = (await bare("exec-out", "screencap -p")).stdout;
    const image = prepareForVision(await decodePng(png));
    const vision = createVision({
      route: "direct",
      baseUrl: server.url,
      apiKey: undefined,
      model: "bench",
      timeoutMs: 30_000,
    });
    row(
      `  vision call alone (${image.width}×${image.height} ${image.mimeType}, in-process)`,
      await measure(runs, async () => void await vision.describe(image, "Describe the screen.")),
    );

    // The three looks take turns within each run, so load from anything else on the machine
    // falls on all of them alike. A dump that fails at once (not an idle-state error, so no
    // retry) leaves a look as long as its vision channel: screenshot, scaling, the model's answer.
    const failFast = () =>
      sim.faults.idleStateErrors(1_000_000, {
        evenCompressed: true,
        message: "ERROR: null root node returned by UiTestAutomationBridge.",
      });
    const looks = {
      tree: [] as Sample[],
      vision: [] as Sample[],
      both: [] as Sample[],
    };
    const timed = async (into: Sample[], fn: () => Promise<unknown>, warm: boolean) => {
      const start = performance.now();
      await fn();
      if (!warm) into.push({ ms: performance.now() - start });
    };
    for (let i = -2; i < runs; i++) {
      await timed(looks.tree, () => call(blind, "phone_look", /^Notes @ /m), i < 0);
      failFast();
      await timed(looks.vision, () => call(seeing, "phone_look", /UI tree unavailable/), i < 0);
      sim.faults.idleStateErrors(0);
      await timed(looks.both, () => call(seeing, "phone_look", /^\(\d+,\d+\) → /m), i < 0);
    }
    const tree = row("  tree alone: phone_look, vision unconfigured", looks.tree);
    const seen = row("  vision alone: phone_look, tree failing at once", looks.vision);
    const look = row("  phone_look, both channels", looks.both);
    lines.push(
      "",
      `phone_look / max(tree, vision) = ${(look / Math.max(tree, seen)).toFixed(2)}` +
        "  (1.00 = the channels overlap fully)",
      `phone_look / (tree + vision)   = ${(look / (tree + seen)).toFixed(2)}` +
        "  (1.00 = one after the other)",
    );
    await vision.close();
  } finally {
    for (const eye of eyes) await eye.close();
    await adb.close();
    await sim.close();
    await server.close();
  }
  // deno-lint-ignore no-console
  console.log(lines.join("\n"));
}

if (import.meta.main) await main(Deno.args);
