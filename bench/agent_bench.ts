// The agent's loop, scripted: a few tasks on the simulated phone with realistic motion (app
// switches that take 400 ms to draw, a "Saved" snackbar 300 ms after Save), done three ways:
//   look-act-look  phone-eye with settle: false, a look after every action (until it shows
//                  what the next step needs), coordinates read from the look's [ui-tree];
//   settle+names   phone-eye's acting verbs with settle, element names, and phone_look wait_for;
//   mobile-mcp     the peer's list_elements_on_screen after every action, as look-act-look.
// Prints tool calls, wall time (median over --runs), the wall time with a model turn of TURN_S
// before each call, each against mobile-mcp, and stale looks per task and way. A look is
// stale when its answer arrives while the sim is mid-transition (an app switch still drawing, or
// the snackbar due): the screen it reports is about to change.
//
//   deno task bench:agent [--runs 3] [--latency 0] [--peer-dir DIR] [--no-peer]

// deno-lint-ignore-file no-console -- a bench script: the terminal is its only output
import { parseArgs } from "node:util";
import { startAdbHarness } from "../tests/helpers/adb_harness.ts";
import { denoDir, startFlags, testPermissionFlags } from "../tests/helpers/phone_eye.ts";
import { REALISTIC_MOTION, type SimPhone, startSimPhone } from "../sim/sim_phone.ts";
import { defaultPeerDir, preparePeer } from "./peer_bench.ts";
import { median } from "./stats.ts";
import { startStdioServer, type StdioServer, type StdioServerCommand } from "./stdio_server.ts";

const MAIN_TS = new URL("../main.ts", import.meta.url).pathname;
/** What a model turn costs before each tool call, in the table's second wall-time column. */
const TURN_S = 3;
/** How many looks an agent takes before giving up on what it waits for. */
const MAX_LOOKS = 30;

interface ToolResult {
  content: Array<{ type: string; text?: string }>;
  isError?: boolean;
}

/** One way's session: counts its calls, and its stale looks from the sim's motion. */
class Session {
  calls = 0;
  stale = 0;
  failedLooks = 0;
  constructor(
    readonly server: StdioServer,
    readonly sim: SimPhone,
    readonly extra: Record<string, unknown> = {},
  ) {}

  /** Calls a tool; `looks` marks a call whose answer reports the screen. */
  async call(name: string, args: Record<string, unknown>, looks = false): Promise<string> {
    this.calls++;
    const result = await this.server.client.callTool({
      name,
      arguments: { ...this.extra, ...args },
    }) as ToolResult;
    if (looks && moving(this.sim)) this.stale++;
    const text = result.content.map((c) => c.text ?? "").join("\n");
    // A look that fails mid-transition (mobile-mcp cannot parse an idle-state error) is read by
    // the agent, who looks again; any other failure ends the task.
    if (result.isError && !looks) {
      throw new Error(`${name} ${JSON.stringify(args)} failed: ${text}`);
    }
    if (result.isError) this.failedLooks++;
    return text;
  }
}

const moving = (sim: SimPhone) =>
  sim.motion.launching() !== null || sim.motion.snackbarPhase() === "waiting";

// ---- reading a screen as an agent would ----

type Centre = [number, number];

/** The centre of `label`'s line in phone_look's [ui-tree] (`label @ [x1,y1][x2,y2]`). */
function eyeCentre(look: string, label: string): Centre | undefined {
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const m = new RegExp(`^${escaped} @ \\[(\\d+),(\\d+)\\]\\[(\\d+),(\\d+)\\]`, "m").exec(look);
  if (!m) return undefined;
  const [x1, y1, x2, y2] = m.slice(1).map(Number) as [number, number, number, number];
  return [Math.floor((x1 + x2) / 2), Math.floor((y1 + y2) / 2)];
}

/**
 * The centre of an element in mobile-mcp's list: one line each,
 * `Type text="…" label="…" id="pkg:id/name" at=x,y size=WxH` (1.0.4).
 */
function peerCentre(list: string, label: string): Centre | undefined {
  for (const line of list.split("\n")) {
    const names = [...line.matchAll(/\b(?:text|label|name|id)="([^"]*)"/g)].map((m) => m[1]!);
    if (!names.some((n) => n === label || n.endsWith(`/${label}`))) continue;
    const m = /\bat=(\d+),(\d+) size=(\d+)x(\d+)/.exec(line);
    if (!m) continue;
    const [x, y, w, h] = m.slice(1).map(Number) as [number, number, number, number];
    return [Math.floor(x + w / 2), Math.floor(y + h / 2)];
  }
  return undefined;
}

/** A look-act-look agent: its look, how it finds a label, and its acting verbs. */
interface Hands {
  look(): Promise<string>;
  centre(look: string, label: string): Centre | undefined;
  tap(at: Centre): Promise<unknown>;
  type(text: string): Promise<unknown>;
  back(): Promise<unknown>;
  open(pkg: string): Promise<unknown>;
}

/** Looks until `label` is on screen (each look a call), then gives its centre. */
async function lookFor(hands: Hands, label: string): Promise<Centre> {
  for (let i = 0; i < MAX_LOOKS; i++) {
    const at = hands.centre(await hands.look(), label);
    if (at) return at;
  }
  throw new Error(`"${label}" never showed in ${MAX_LOOKS} looks`);
}

function eyeHands(s: Session): Hands {
  return {
    look: () => s.call("phone_look", {}, true),
    centre: eyeCentre,
    tap: ([x, y]) => s.call("phone_tap", { x, y, settle: false }),
    type: (text) => s.call("phone_type", { text, settle: false }),
    back: () => s.call("phone_key", { key: "back", settle: false }),
    open: (pkg) => s.call("phone_intent", { package: pkg, settle: false }),
  };
}

function peerHands(s: Session): Hands {
  return {
    look: () => s.call("mobile_list_elements_on_screen", {}, true),
    centre: peerCentre,
    tap: ([x, y]) => s.call("mobile_click_on_screen_at_coordinates", { x, y }),
    type: (text) => s.call("mobile_type_keys", { text, submit: false }),
    back: () => s.call("mobile_press_button", { button: "BACK" }),
    open: (pkg) => s.call("mobile_launch_app", { packageName: pkg }),
  };
}

// ---- the tasks ----

interface Task {
  name: string;
  lookActLook(hands: Hands): Promise<void>;
  settled(s: Session): Promise<void>;
  done(sim: SimPhone): boolean;
}

const TASKS: Task[] = [
  {
    name: 'Notes: open, clear, type, save, wait for "Saved", back',
    async lookActLook(h) {
      await h.tap(await lookFor(h, "Notes"));
      await h.tap(await lookFor(h, "Clear"));
      await h.tap(await lookFor(h, "note_text"));
      await h.type("milk");
      await h.tap(await lookFor(h, "Save"));
      await lookFor(h, "Saved");
      await h.back();
      await lookFor(h, "Settings");
    },
    async settled(s) {
      await s.call("phone_tap", { element: "Notes" }, true);
      await s.call("phone_tap", { element: "Clear" }, true);
      await s.call("phone_type", { element: "note_text", text: "milk" }, true);
      await s.call("phone_tap", { element: "Save", settle: false });
      await s.call("phone_look", { wait_for: "Saved" }, true);
      await s.call("phone_key", { key: "back" }, true);
    },
    done: (sim) => sim.screen().name === "home" && sim.screen().savedNote === "milk",
  },
  {
    name: "Settings: open, tap Battery by name",
    async lookActLook(h) {
      await h.open("com.android.settings");
      await h.tap(await lookFor(h, "Battery"));
      await h.look();
    },
    async settled(s) {
      await s.call("phone_intent", { package: "com.android.settings" }, true);
      await s.call("phone_tap", { element: "Battery" }, true);
    },
    done: (sim) => sim.screen().name === "settings",
  },
];

// ---- the run ----

interface Row {
  calls: number[];
  ms: number[];
  stale: number;
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: "string", default: "3" },
      latency: { type: "string", default: "0" },
      "peer-dir": { type: "string", default: defaultPeerDir() },
      "no-peer": { type: "boolean", default: false },
    },
  });
  const runs = Number(values.runs);
  const sim = await startSimPhone({ motion: REALISTIC_MOTION });
  const adb = await startAdbHarness();
  const servers: StdioServer[] = [];
  try {
    await adb.connect(sim.serial);
    const latency = Number(values.latency);
    if (latency > 0) sim.faults.latency(latency);
    const eyeCommand: StdioServerCommand = {
      command: Deno.execPath(),
      args: ["run", "--no-prompt", ...await startFlags(), ...await testPermissionFlags(), MAIN_TS],
      env: { ...adb.env, DENO_DIR: await denoDir(), NO_COLOR: "1", ANDROID_SERIAL: sim.serial },
    };
    const eye = await startStdioServer(eyeCommand);
    servers.push(eye);
    const prepared = values["no-peer"]
      ? { reason: "skipped (--no-peer)" }
      : await preparePeer(values["peer-dir"], adb.env);
    let peer: StdioServer | undefined;
    let peerReason = "reason" in prepared ? prepared.reason : undefined;
    if ("command" in prepared) {
      try {
        peer = await startStdioServer(prepared.command);
        servers.push(peer);
        await peer.client.callTool({ name: "mobile_list_available_devices", arguments: {} });
      } catch (error) {
        peer = undefined;
        peerReason = `mobile-mcp did not start: ${(error as Error).message.split("\n")[0]}`;
      }
    }

    const ways: Array<{ label: string; run(task: Task): Promise<Session> }> = [
      {
        label: "phone-eye look-act-look (settle: false)",
        run: async (task) => {
          const s = new Session(eye, sim);
          await task.lookActLook(eyeHands(s));
          return s;
        },
      },
      {
        label: "phone-eye settle + element + wait_for",
        run: async (task) => {
          const s = new Session(eye, sim);
          await task.settled(s);
          return s;
        },
      },
    ];
    if (peer !== undefined) {
      const server = peer;
      ways.push({
        label: `mobile-mcp look-act-look`,
        run: async (task) => {
          const s = new Session(server, sim, { device: sim.serial });
          await task.lookActLook(peerHands(s));
          return s;
        },
      });
    }

    const home = async () => {
      await adb.adb("-s", sim.serial, "shell", "input keyevent 3");
      // The switch home draws for 400 ms; the next task starts on a still launcher.
      while (moving(sim)) await new Promise((resolve) => setTimeout(resolve, 20));
    };

    const rows = new Map<string, Row>();
    for (let run = -1; run < runs; run++) {
      for (const task of TASKS) {
        for (const way of ways) {
          await home();
          const t0 = performance.now();
          const s = await way.run(task);
          const ms = performance.now() - t0;
          if (!task.done(sim)) throw new Error(`${way.label}: "${task.name}" did not get done`);
          if (run < 0) continue; // warm-up
          const key = `${task.name}\u0000${way.label}`;
          const row = rows.get(key) ?? { calls: [], ms: [], stale: 0 };
          row.calls.push(s.calls);
          row.ms.push(ms);
          row.stale += s.stale;
          rows.set(key, row);
        }
      }
    }

    console.log(
      `agent loop on the simulated phone (REALISTIC_MOTION: each UI dump waits for ${REALISTIC_MOTION.dumpIdle?.quietMs} ms of quiet, app switch 400 ms, "Saved" after 300 ms${
        latency > 0 ? `, ${latency} ms per adb command` : ""
      }), median of ${runs} runs; no vision route, so a look is its UI tree. An agent's model takes a turn before each tool call: "at ${TURN_S} s per turn" adds that many seconds per call to the measured wall time, and the ratios compare each way with mobile-mcp\n`,
    );
    console.log(
      `| task | way | tool calls | × peer | wall time (0 s per turn) | × peer | at ${TURN_S} s per turn | × peer | stale looks |`,
    );
    console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    const peerLabel = "mobile-mcp look-act-look";
    for (const task of TASKS) {
      const peerRow = rows.get(`${task.name}\u0000${peerLabel}`);
      const ratio = (mine: number, theirs: number | undefined) =>
        theirs === undefined ? "–" : `${(mine / theirs).toFixed(2)}×`;
      for (const way of ways) {
        const row = rows.get(`${task.name}\u0000${way.label}`);
        if (!row) continue;
        const calls = median(row.calls);
        const ms = median(row.ms);
        const withTurns = ms + calls * TURN_S * 1000;
        const peerCalls = peerRow && median(peerRow.calls);
        const peerMs = peerRow && median(peerRow.ms);
        const peerTurns = peerRow && peerMs! + peerCalls! * TURN_S * 1000;
        console.log(
          `| ${task.name} | ${way.label} | ${calls} | ${ratio(calls, peerCalls)} | ${
            Math.round(ms)
          } ms | ${ratio(ms, peerMs)} | ${(withTurns / 1000).toFixed(1)} s | ${
            ratio(withTurns, peerTurns)
          } | ${row.stale} in ${runs} runs |`,
        );
      }
    }
    if (peerReason !== undefined) console.log(`\nmobile-mcp not measured: ${peerReason}`);
  } finally {
    for (const server of servers) await server.close().catch(() => {});
    await adb.close();
    await sim.close();
  }
}

// A script, not a `deno bench` file: `deno task bench` loads it and must not run it.
if (import.meta.main) await main(Deno.args);
