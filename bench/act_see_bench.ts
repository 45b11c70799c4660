// Acting and seeing the result, on a simulated phone that waits as Android's does (every UI dump
// first waits for 1 s of quiet: REALISTIC_MOTION's dumpIdle), side by side in one run:
//   floor       the same adb commands by hand: `input tap X Y`, then one `uiautomator dump`;
//   phone-eye   one settled phone_tap (its [changed] section is the seeing);
//   mobile-mcp  its tap, then its list of elements (the peer, pinned at 1.0.4).
// Two taps: one on an empty spot of the home screen (a calm screen: nothing changes), and one on
// the Notes icon, which opens the app (an app switch drawing for --launch ms). Between samples
// the phone goes home and settles, untimed. Prints medians and ratios; no thresholds.
//
//   deno task bench:act [--runs 9] [--launch 800] [--peer-dir DIR] [--no-peer]

// deno-lint-ignore-file no-console -- a bench script: the terminal is its only output

import { parseArgs } from "node:util";
import { startAdbHarness } from "../tests/helpers/adb_harness.ts";
import { denoDir, startFlags, testPermissionFlags } from "../tests/helpers/phone_eye.ts";
import { REALISTIC_MOTION, startSimPhone } from "../sim/sim_phone.ts";
import { defaultPeerDir, preparePeer } from "./peer_bench.ts";
import { median } from "./stats.ts";
import { startStdioServer, type StdioServer, type StdioServerCommand } from "./stdio_server.ts";

const MAIN_TS = new URL("../main.ts", import.meta.url).pathname;

interface ToolResult {
  content: Array<{ type: string; text?: string }>;
  isError?: boolean;
}

async function call(server: StdioServer, name: string, args: Record<string, unknown>) {
  const result = await server.client.callTool({ name, arguments: args }) as ToolResult;
  const text = result.content.map((c) => c.text ?? "").join("\n");
  if (result.isError) throw new Error(`${name} failed: ${text.split("\n")[0]}`);
  return text;
}

/** One way of acting and seeing, timed as a whole. */
interface Way {
  label: string;
  act(x: number, y: number): Promise<unknown>;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: "string", default: "9" },
      launch: { type: "string", default: "800" },
      "peer-dir": { type: "string", default: defaultPeerDir() },
      "no-peer": { type: "boolean", default: false },
    },
  });
  const runs = Number(values.runs);
  const launch = Number(values.launch);
  const sim = await startSimPhone({ motion: { ...REALISTIC_MOTION, launch } });
  const adb = await startAdbHarness();
  const servers: StdioServer[] = [];
  try {
    await adb.connect(sim.serial);
    const serial = sim.serial;
    const shell = async (...args: string[]) => {
      const r = await adb.adbBytes("-s", serial, ...args);
      if (r.code !== 0) throw new Error(`adb ${args.join(" ")} failed: ${r.stderr.trim()}`);
      return new TextDecoder().decode(r.stdout);
    };
    const eye = await startStdioServer(
      {
        command: Deno.execPath(),
        args: [
          "run",
          "--no-prompt",
          ...await startFlags(),
          ...await testPermissionFlags(),
          MAIN_TS,
        ],
        env: { ...adb.env, DENO_DIR: await denoDir(), NO_COLOR: "1", ANDROID_SERIAL: serial },
      } satisfies StdioServerCommand,
    );
    servers.push(eye);
    const ways: Way[] = [
      {
        label: "floor (input tap + one uiautomator dump)",
        act: async (x, y) => {
          await shell("shell", `input tap ${x} ${y}`);
          await shell("exec-out", "uiautomator dump /dev/tty");
        },
      },
      { label: "phone-eye phone_tap (settled)", act: (x, y) => call(eye, "phone_tap", { x, y }) },
    ];
    const prepared = values["no-peer"]
      ? { reason: "skipped (--no-peer)" }
      : await preparePeer(values["peer-dir"], adb.env);
    let peerNote = "reason" in prepared ? `mobile-mcp not measured: ${prepared.reason}` : "";
    if ("command" in prepared) {
      try {
        const peer = await startStdioServer(prepared.command);
        servers.push(peer);
        await call(peer, "mobile_list_available_devices", {});
        ways.push({
          label: "mobile-mcp tap + list elements",
          act: async (x, y) => {
            await call(peer, "mobile_click_on_screen_at_coordinates", { device: serial, x, y });
            await call(peer, "mobile_list_elements_on_screen", { device: serial });
          },
        });
      } catch (error) {
        peerNote = `mobile-mcp not measured: ${(error as Error).message.split("\n")[0]}`;
      }
    }

    // Home, and quiet: the dump itself waits for the screen to settle (untimed).
    const reset = async () => {
      await shell("shell", "input keyevent 3");
      await shell("exec-out", "uiautomator dump /dev/tty");
    };
    await reset();
    const home = await shell("exec-out", "uiautomator dump /dev/tty");
    const notes = /text="Notes"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"/.exec(home);
    if (notes === null) throw new Error("no Notes icon on the home screen");
    const [x1, y1, x2, y2] = notes.slice(1).map(Number) as [number, number, number, number];
    const taps = [
      { what: "calm screen (a tap on an empty spot)", x: 540, y: 1000 },
      {
        what: `opening Notes (an app switch of ${launch} ms)`,
        x: (x1 + x2) >> 1,
        y: (y1 + y2) >> 1,
      },
    ];

    const lines = [
      `acting and seeing on the simulated phone with REALISTIC_MOTION (each dump waits for ${REALISTIC_MOTION.dumpIdle?.quietMs} ms of quiet), median of ${runs} runs, ways taken in turn`,
      "",
      "| tap | way | median | × floor | × mobile-mcp |",
      "| --- | --- | ---: | ---: | ---: |",
    ];
    for (const tap of taps) {
      const samples = new Map<string, number[]>(ways.map((w) => [w.label, []]));
      for (let run = -1; run < runs; run++) {
        for (const way of ways) {
          await reset();
          const t0 = performance.now();
          await way.act(tap.x, tap.y);
          const ms = performance.now() - t0;
          if (run >= 0) samples.get(way.label)!.push(ms);
        }
      }
      const med = new Map([...samples].map(([label, xs]) => [label, median(xs)]));
      const floor = med.get(ways[0]!.label)!;
      const peer = med.get("mobile-mcp tap + list elements");
      for (const way of ways) {
        const m = med.get(way.label)!;
        lines.push(
          `| ${tap.what} | ${way.label} | ${Math.round(m)} ms | ${(m / floor).toFixed(2)}× | ${
            peer === undefined ? "–" : `${(m / peer).toFixed(2)}×`
          } |`,
        );
      }
    }
    console.log(lines.join("\n"));
    if (peerNote) console.log(`\n${peerNote}`);
  } finally {
    for (const server of servers) await server.close();
    await adb.close();
    await sim.close();
  }
}

if (import.meta.main) await main();
