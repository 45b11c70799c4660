// phone-eye beside the most-used peer, @mobilenext/mobile-mcp, in one run: the same operations
// through both MCP servers (the SDK's real Client over stdio) and through adb alone (the floor),
// on the simulated phone behind one isolated adb server. Prints medians and ratios as a table.
//
//   deno task bench:peer [--runs 15] [--latency 80] [--screencap-ms 0] [--dump-ms 0]
//                        [--peer-dir DIR] [--no-peer]
//
// "fast" is the simulated phone as it is; "realistic" adds --latency to every adb command (as
// bench/look_bench.ts does) and, when given, the time a phone spends in `screencap` and in
// `uiautomator dump` (each then delayed by that much instead of --latency).
//
// The peer is installed by this script alone, with npm, into a cache folder outside the repo: it
// is never a dependency of phone-eye. If it cannot run here (no node, npm unreachable, a failed
// start), the output says why and still compares phone-eye with the floor.

// deno-lint-ignore-file no-console -- a bench script: the terminal is its only output
import { cpus } from "node:os";
import { parseArgs } from "node:util";
import { startAdbHarness } from "../tests/helpers/adb_harness.ts";
import { denoDir, startFlags, testPermissionFlags } from "../tests/helpers/phone_eye.ts";
import { startSimPhone } from "../sim/sim_phone.ts";
import { median, time } from "./stats.ts";
import {
  rssMiB,
  startStdioServer,
  type StdioServer,
  type StdioServerCommand,
} from "./stdio_server.ts";

/** Pinned: the version the issue measured, so a new release never shifts the comparison. */
const PEER_PACKAGE = "@mobilenext/mobile-mcp";
const PEER_VERSION = "1.0.4";
const MAIN_TS = new URL("../main.ts", import.meta.url).pathname;
const decoder = new TextDecoder();

interface ToolResult {
  content: Array<{ type: string; text?: string; data?: string; mimeType?: string }>;
  isError?: boolean;
}

// ---- the peer: installed on demand, run with node ----

export type Peer = { command: StdioServerCommand; node: string } | { reason: string };

async function output(
  command: string,
  args: string[],
  timeoutMs: number,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(command, {
    args,
    stdin: "null",
    signal: AbortSignal.timeout(timeoutMs),
  }).output();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

export function defaultPeerDir(): string {
  const cache = Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME") ?? "/tmp"}/.cache`;
  return `${cache}/phone-eye-bench/mobile-mcp-${PEER_VERSION}`;
}

async function installedVersion(dir: string): Promise<string | undefined> {
  try {
    const pkg = await Deno.readTextFile(`${dir}/node_modules/${PEER_PACKAGE}/package.json`);
    return JSON.parse(pkg).version;
  } catch {
    return undefined;
  }
}

/** Finds node, installs the pinned peer into `dir` unless it is there, or says why it cannot. */
export async function preparePeer(dir: string, env: Record<string, string>): Promise<Peer> {
  let node: string;
  try {
    node = (await output("node", ["--version"], 10_000)).stdout.trim();
  } catch (error) {
    return { reason: `node is not runnable here (${(error as Error).message})` };
  }
  if (await installedVersion(dir) !== PEER_VERSION) {
    console.error(`installing ${PEER_PACKAGE}@${PEER_VERSION} into ${dir} ...`);
    try {
      await Deno.mkdir(dir, { recursive: true });
      // No install scripts: the adb mode needs none (mobilecli's binary comes as an optional
      // dependency package), and a bench has no reason to run a third party's scripts.
      const npm = await output("npm", [
        "install",
        "--prefix",
        dir,
        "--no-audit",
        "--no-fund",
        "--ignore-scripts",
        "--omit=dev",
        "--loglevel=error",
        `${PEER_PACKAGE}@${PEER_VERSION}`,
      ], 300_000);
      if (npm.code !== 0) {
        return {
          reason: `npm install ${PEER_PACKAGE}@${PEER_VERSION} failed (exit ${npm.code}): ${
            npm.stderr.trim().split("\n").slice(-3).join(" / ")
          }`,
        };
      }
    } catch (error) {
      return { reason: `cannot install it into ${dir}: ${(error as Error).message}` };
    }
    const got = await installedVersion(dir);
    if (got !== PEER_VERSION) {
      return { reason: `npm installed ${PEER_PACKAGE} ${got ?? "nowhere"} in ${dir}` };
    }
  }
  return {
    node,
    command: {
      command: "node",
      args: [`${dir}/node_modules/${PEER_PACKAGE}/lib/index.js`],
      env: {
        ...env,
        // Its TypeScript robot, driving the phone with adb as phone-eye does; the default robot
        // is a Go binary (mobilecli) that brings its own device agent.
        MOBILEMCP_LEGACY_ROBOT: "1",
        // No posthog/scarf requests in the middle of timed calls.
        MOBILEMCP_DISABLE_TELEMETRY: "1",
      },
    },
  };
}

// ---- one operation through each party ----

interface Party {
  label: string;
  /** Runs the operation once; returns the image bytes for a screenshot. */
  run(): Promise<number | void>;
}

async function callTool(
  server: StdioServer,
  name: string,
  args: Record<string, unknown>,
  expect: RegExp,
): Promise<number | void> {
  const result = await server.client.callTool({ name, arguments: args }) as ToolResult;
  const text = result.content.map((c) => c.text ?? `<${c.type}>`).join("\n");
  if (result.isError || !expect.test(text)) {
    throw new Error(
      `${name} did not answer as the bench expects (${expect}):\n${text.slice(0, 500)}`,
    );
  }
  const image = result.content.find((c) => c.type === "image");
  if (image?.data !== undefined) return Uint8Array.fromBase64(image.data).length;
}

interface Measured {
  ms: number[];
  bytes: number[];
  /** The device commands one call ran, in order (from the sim's log). */
  commands: string[];
}

/** Two warm-up rounds (the second one's device commands recorded), then `runs` rounds in turn. */
async function measure(
  parties: Party[],
  runs: number,
  deviceLog: () => string[],
): Promise<Measured[]> {
  const results = parties.map((): Measured => ({ ms: [], bytes: [], commands: [] }));
  for (let round = -2; round < runs; round++) {
    for (const [i, party] of parties.entries()) {
      const before = deviceLog().length;
      const start = performance.now();
      const bytes = await party.run();
      const ms = performance.now() - start;
      if (round === -1) results[i]!.commands = deviceLog().slice(before);
      if (round < 0) continue;
      results[i]!.ms.push(ms);
      if (bytes !== undefined) results[i]!.bytes.push(bytes);
    }
  }
  return results;
}

// ---- the run ----

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: "string", default: "15" },
      latency: { type: "string", default: "80" },
      "screencap-ms": { type: "string", default: "0" },
      "dump-ms": { type: "string", default: "0" },
      "peer-dir": { type: "string", default: defaultPeerDir() },
      "no-peer": { type: "boolean", default: false },
    },
  });
  const runs = Number(values.runs);
  const latency = Number(values.latency);
  const screencapMs = Number(values["screencap-ms"]);
  const dumpMs = Number(values["dump-ms"]);
  const realistic = `${latency} ms per adb command` +
    (screencapMs > 0 ? `, screencap ${screencapMs} ms` : "") +
    (dumpMs > 0 ? `, dump ${dumpMs} ms` : "");
  const startRuns = Math.min(runs, 10);

  const sim = await startSimPhone();
  const adb = await startAdbHarness();
  const servers: StdioServer[] = [];
  try {
    await adb.connect(sim.serial);
    const serial = sim.serial;
    const eyeCommand: StdioServerCommand = {
      command: Deno.execPath(),
      args: ["run", "--no-prompt", ...await startFlags(), ...await testPermissionFlags(), MAIN_TS],
      // The harness's HOME is a temp dir, so Deno's cache must be named or it would refetch.
      env: { ...adb.env, DENO_DIR: await denoDir(), NO_COLOR: "1", ANDROID_SERIAL: serial },
    };
    const prepared: Peer = values["no-peer"]
      ? { reason: "skipped (--no-peer)" }
      : await preparePeer(values["peer-dir"], adb.env);
    let peerCommand = "command" in prepared ? prepared.command : undefined;
    let peerReason = "reason" in prepared ? prepared.reason : undefined;
    const peerFailed = (what: string, error: unknown) => {
      peerCommand = undefined;
      peerReason = `${what}: ${(error as Error).message.split("\n").slice(0, 3).join(" / ")}`;
    };

    // Cold start, each server started afresh per sample, against its runtime on an empty file.
    const empty = await Deno.makeTempFile({ suffix: ".js" });
    const start = {
      deno: [] as number[],
      node: [] as number[],
      eye: { init: [] as number[], list: [] as number[], rss: [] as number[] },
      peer: { init: [] as number[], list: [] as number[], rss: [] as number[] },
    };
    const coldStart = async (cmd: StdioServerCommand, into: typeof start.eye, warm: boolean) => {
      const t0 = performance.now();
      const server = await startStdioServer(cmd);
      try {
        await server.client.listTools();
        const list = performance.now() - t0;
        const rss = await rssMiB(server.pid);
        if (warm) return;
        into.init.push(server.initializeMs);
        into.list.push(list);
        if (rss !== null) into.rss.push(rss);
      } finally {
        await server.close();
      }
    };
    // Spawn → initialize → tools/list → the first look answered, and that first call alone: the
    // eyes load lazily, so this is what a new user's first look costs (phone-eye preloads them
    // once tools/list is answered; here the look follows at once, as a scripted client's would).
    // An agent's model then thinks for seconds before its first call; THINK_MS stands for that.
    const THINK_MS = 1000;
    const firstLook = {
      eye: { total: [] as number[], call: [] as number[], afterThought: [] as number[] },
      peer: { total: [] as number[], call: [] as number[], afterThought: [] as number[] },
    };
    const coldLook = async (
      cmd: StdioServerCommand,
      into: typeof firstLook.eye,
      look: () => [string, Record<string, unknown>, RegExp],
      warm: boolean,
      think: boolean,
    ) => {
      const t0 = performance.now();
      const server = await startStdioServer(cmd);
      try {
        await server.client.listTools();
        if (think) await new Promise((resolve) => setTimeout(resolve, THINK_MS));
        const t1 = performance.now();
        await callTool(server, ...look());
        const t2 = performance.now();
        if (warm) return;
        if (think) return void into.afterThought.push(t2 - t1);
        into.total.push(t2 - t0);
        into.call.push(t2 - t1);
      } finally {
        await server.close();
      }
    };
    for (let i = -1; i < startRuns; i++) {
      const deno = await time(() =>
        new Deno.Command(Deno.execPath(), { args: ["run", empty], stdin: "null" }).output()
      );
      if (i >= 0) start.deno.push(deno);
      await coldStart(eyeCommand, start.eye, i < 0);
      if (peerCommand !== undefined) {
        const node = await time(() =>
          new Deno.Command("node", { args: [empty], stdin: "null" }).output()
        );
        if (i >= 0) start.node.push(node);
        try {
          await coldStart(peerCommand, start.peer, i < 0);
        } catch (error) {
          peerFailed("mobile-mcp did not start", error);
        }
      }
    }
    await Deno.remove(empty);
    // Looks on the home screen, where the simulated phone starts.
    for (let i = -1; i < 2 * startRuns; i++) {
      const think = i >= startRuns;
      await coldLook(
        eyeCommand,
        firstLook.eye,
        () => ["phone_look", {}, /^Notes @ /m],
        i < 0,
        think,
      );
      if (peerCommand !== undefined) {
        try {
          await coldLook(
            peerCommand,
            firstLook.peer,
            () => ["mobile_list_elements_on_screen", { device: serial }, /text="Notes"/],
            i < 0,
            think,
          );
        } catch (error) {
          peerFailed("mobile-mcp failed its first list_elements_on_screen", error);
        }
      }
    }

    // The long-lived instances every operation goes through.
    const eye = await startStdioServer(eyeCommand);
    servers.push(eye);
    let peerServer: StdioServer | undefined;
    if (peerCommand !== undefined) {
      try {
        peerServer = await startStdioServer(peerCommand);
        servers.push(peerServer);
        // The first call for a device checks mobilecli and lists devices: a failure here means
        // the peer cannot drive this phone at all.
        await callTool(peerServer, "mobile_list_available_devices", {}, new RegExp(serial));
      } catch (error) {
        peerFailed("mobile-mcp cannot drive the simulated phone", error);
        peerServer = undefined;
      }
    }
    const floor = (...args: string[]) => async () => {
      const r = await adb.adbBytes("-s", serial, ...args);
      if (r.code !== 0) throw new Error(`adb ${args.join(" ")} failed: ${r.stderr.trim()}`);
      if (args[0] === "exec-out") return r.stdout.length;
    };
    interface Op {
      what: string;
      eye: [string, Record<string, unknown>, RegExp];
      peer: [string, Record<string, unknown>, RegExp];
      floor: string[];
    }
    const ops = {
      tap: {
        what: "tap",
        eye: ["phone_tap", { x: 540, y: 300 }, /./],
        peer: ["mobile_click_on_screen_at_coordinates", { x: 540, y: 300 }, /^Clicked/],
        floor: ["shell", "input tap 540 300"],
      },
      type: {
        what: "type",
        eye: ["phone_type", { text: "hello" }, /./],
        peer: ["mobile_type_keys", { text: "hello", submit: false }, /^Typed text/],
        floor: ["shell", "input text 'hello'"],
      },
      key: {
        what: "key (home)",
        eye: ["phone_key", { key: "home" }, /./],
        peer: ["mobile_press_button", { button: "HOME" }, /^Pressed/],
        floor: ["shell", "input keyevent 3"],
      },
      swipe: {
        what: "swipe",
        eye: ["phone_swipe", { x1: 540, y1: 1800, x2: 540, y2: 900 }, /./],
        peer: [
          "mobile_swipe_on_screen",
          { direction: "up", x: 540, y: 1800, distance: 900 },
          /^Swiped/,
        ],
        floor: ["shell", "input swipe 540 1800 540 900 300"],
      },
      shot: {
        what: "screenshot",
        eye: ["phone_shot", {}, /<image>/],
        peer: ["mobile_take_screenshot", {}, /<image>/],
        floor: ["exec-out", "screencap -p"],
      },
      tree: {
        what: "UI tree",
        eye: ["phone_look", {}, /^Notes @ /m],
        peer: ["mobile_list_elements_on_screen", {}, /text="Notes"/],
        floor: ["exec-out", "uiautomator dump /dev/tty"],
      },
    } satisfies Record<string, Op>;
    const partiesOf = (op: Op): Party[] => [
      { label: "phone-eye", run: () => callTool(eye, ...op.eye) },
      ...(peerServer === undefined ? [] : [{
        label: "mobile-mcp",
        run: () => callTool(peerServer!, op.peer[0], { device: serial, ...op.peer[1] }, op.peer[2]),
      }]),
      { label: "floor", run: floor(...op.floor) },
    ];
    const measured: Record<string, Measured[]> = {};
    const measureOp = async (key: string, op: Op) => {
      try {
        measured[key] = await measure(partiesOf(op), runs, () => sim.commands());
      } catch (error) {
        if (peerServer === undefined) throw error;
        peerFailed(`mobile-mcp failed on ${op.what}`, error);
        peerServer = undefined;
        measured[key] = await measure(partiesOf(op), runs, () => sim.commands());
      }
    };

    for (const key of ["tap", "type", "key", "swipe"] as const) await measureOp(key, ops[key]);
    // Looks on the home screen: the key verb left it there; the screen does not change after.
    await callTool(eye, "phone_key", { key: "home" }, /./);
    await measureOp("shot", ops.shot);
    await measureOp("tree", ops.tree);
    sim.faults.latency(latency);
    if (screencapMs > 0) sim.faults.latency(screencapMs, "screencap");
    if (dumpMs > 0) sim.faults.latency(dumpMs, "uiautomator");
    await measureOp("shotSlow", ops.shot);
    await measureOp("treeSlow", ops.tree);
    sim.faults.clear();
    // The protocol's own round trip, no adb at all: the part of every row above that is the MCP
    // client and the pipes, which no server can go below.
    const pings: Party[] = [
      { label: "phone-eye", run: async () => void await eye.client.ping() },
      ...(peerServer === undefined
        ? []
        : [{ label: "mobile-mcp", run: async () => void await peerServer!.client.ping() }]),
    ];
    const pinged = await measure(pings, runs, () => []);
    const rssAfter = {
      eye: await rssMiB(eye.pid),
      peer: peerServer === undefined ? null : await rssMiB(peerServer.pid),
    };

    // ---- report ----
    const ms = (n: number) => Number.isNaN(n) ? "–" : `${n.toFixed(n < 10 ? 1 : 0)} ms`;
    const mib = (n: number | null) => n === null || Number.isNaN(n) ? "–" : `${n.toFixed(0)} MiB`;
    const ratio = (a: number, b: number) =>
      Number.isNaN(a) || Number.isNaN(b) ? "–" : `${(a / b).toFixed(2)}×`;
    const rows: string[][] = [];
    rows.push([
      "cold start, spawn → `initialize` answered",
      ms(median(start.eye.init)),
      ms(median(start.peer.init)),
      `deno on an empty file ${ms(median(start.deno))}` +
      (start.node.length ? `, node ${ms(median(start.node))}` : ""),
      ratio(median(start.eye.init), median(start.peer.init)),
    ]);
    rows.push([
      "cold start, spawn → `tools/list` answered",
      ms(median(start.eye.list)),
      ms(median(start.peer.list)),
      "",
      ratio(median(start.eye.list), median(start.peer.list)),
    ]);
    rows.push([
      "cold start, spawn → first `phone_look` / `list_elements_on_screen` answered",
      ms(median(firstLook.eye.total)),
      ms(median(firstLook.peer.total)),
      "",
      ratio(median(firstLook.eye.total), median(firstLook.peer.total)),
    ]);
    rows.push([
      "that first look alone, sent as `tools/list` is answered (later looks: the UI tree rows)",
      ms(median(firstLook.eye.call)),
      ms(median(firstLook.peer.call)),
      "",
      ratio(median(firstLook.eye.call), median(firstLook.peer.call)),
    ]);
    rows.push([
      `the first look alone, sent ${THINK_MS} ms after \`tools/list\` (an agent thinking)`,
      ms(median(firstLook.eye.afterThought)),
      ms(median(firstLook.peer.afterThought)),
      "",
      ratio(median(firstLook.eye.afterThought), median(firstLook.peer.afterThought)),
    ]);
    rows.push([
      "RSS idle (after `tools/list`)",
      mib(median(start.eye.rss)),
      mib(median(start.peer.rss)),
      "",
      ratio(median(start.eye.rss), median(start.peer.rss)),
    ]);
    rows.push([
      "RSS after the bench's calls",
      mib(rssAfter.eye),
      mib(rssAfter.peer),
      "",
      rssAfter.eye !== null && rssAfter.peer !== null ? ratio(rssAfter.eye, rssAfter.peer) : "–",
    ]);
    const opRow = (key: string, what: string) => {
      const results = measured[key]!;
      const eyeMs = median(results[0]!.ms);
      const floorMs = median(results.at(-1)!.ms);
      const peerMs = results.length === 3 ? median(results[1]!.ms) : NaN;
      const kb = (m: Measured) =>
        m.bytes.length ? `, ${Math.round(median(m.bytes) / 1024)} KB` : "";
      const cell = (m: Measured | undefined, t: number) =>
        m === undefined ? "–" : `${ms(t)} (${ratio(t, floorMs)}${kb(m)})`;
      rows.push([
        what,
        cell(results[0], eyeMs),
        results.length === 3 ? cell(results[1], peerMs) : "–",
        `${ms(floorMs)}${kb(results.at(-1)!)}`,
        ratio(eyeMs, peerMs),
      ]);
    };
    opRow("tap", "tap");
    opRow("type", "type");
    opRow("key", "key");
    opRow("swipe", "swipe");
    opRow("shot", "screenshot, fast (no sim latency)");
    opRow("shotSlow", "screenshot, realistic");
    opRow("tree", "UI tree (phone_look without vision), fast");
    opRow("treeSlow", "UI tree (phone_look without vision), realistic");
    const pingMs = pinged.map((m) => median(m.ms));
    rows.push([
      "MCP round trip alone (`ping`, no adb)",
      ms(pingMs[0]!),
      pingMs.length > 1 ? ms(pingMs[1]!) : "–",
      "",
      pingMs.length > 1 ? ratio(pingMs[0]!, pingMs[1]!) : "–",
    ]);

    const cpu = cpus()[0]?.model.trim() ?? "unknown CPU";
    const adbVersion = (await adb.adb("version")).stdout.split("\n")[0] ?? "adb";
    console.log(
      [
        `machine: ${navigator.hardwareConcurrency} cores (${cpu}), ${Deno.build.os}; ` +
        `deno ${Deno.version.deno}; ${
          "node" in prepared ? `node ${prepared.node}; ` : ""
        }${adbVersion}`,
        `medians of ${runs} calls per cell (cold start: ${startRuns} starts), the three parties ` +
        "taking turns within each round; (n×) = against the adb-direct floor; last column < 1: " +
        "phone-eye is faster or lighter",
        `fast: the simulated phone as it is; realistic: ${realistic}`,
        "reason" in prepared
          ? `peer: ${PEER_PACKAGE} ${PEER_VERSION} NOT MEASURED: ${prepared.reason}`
          : `peer: ${PEER_PACKAGE} ${PEER_VERSION}, node lib/index.js, its TypeScript adb ` +
            "robot (MOBILEMCP_LEGACY_ROBOT=1), telemetry off" +
            (peerReason === undefined ? "" : `; MEASURED ONLY IN PART: ${peerReason}`),
        "",
        `| what | phone-eye | mobile-mcp ${PEER_VERSION} | adb-direct floor | phone-eye / mobile-mcp |`,
        "|---|---|---|---|---|",
        ...rows.map((r) => `| ${r.join(" | ")} |`),
        "",
        // AOSP InputShellCommand.sendSwipe injects moves until `duration` has passed, so on a
        // phone the command lasts that long (frameworks/base @017cf35b7fa9d3a164cb6e2f067ca7effae9b370,
        // services/core/java/com/android/server/input/InputShellCommand.java); the sim does not.
        "swipe: the simulated phone returns at once; a phone's `input swipe` lasts its duration " +
        "(phone-eye 300 ms, mobile-mcp 1000 ms), which these figures leave out.",
        "",
        "device commands per call (from the simulated phone's log):",
        ...Object.entries(measured).filter(([key]) => !key.endsWith("Slow")).flatMap((
          [key, results],
        ) =>
          results.map((m, i) =>
            `  ${key.padEnd(5)} ${
              (i === 0 ? "phone-eye" : i === results.length - 1 ? "floor" : "mobile-mcp").padEnd(
                10,
              )
            } ${m.commands.map((c) => c.length > 60 ? `${c.slice(0, 57)}...` : c).join(" ; ")}`
          )
        ),
      ].join("\n"),
    );
  } finally {
    for (const server of servers) await server.close();
    if (!values["no-peer"]) await stopPeerDaemons(values["peer-dir"]);
    await adb.close();
    await sim.close();
  }
}

/**
 * Ends what the peer left running: its mobilecli binary starts a daemon (`mobilecli daemon start`)
 * that outlives mobile-mcp. Only processes whose command line lies in the bench's own install
 * folder are signalled, each by its id: pgrep finds them (Deno lets only --allow-all read other
 * processes' /proc entries); without pgrep they are named so they can be stopped by hand.
 */
async function stopPeerDaemons(dir: string): Promise<void> {
  const pattern = `${dir}/node_modules/@mobilenext/`;
  let found: string;
  try {
    const out = await new Deno.Command("pgrep", {
      args: ["-f", "--", pattern],
      stdin: "null",
      stderr: "null",
    }).output();
    found = decoder.decode(out.stdout);
  } catch {
    console.error(`pgrep is not available: stop what runs from ${pattern} by hand`);
    return;
  }
  for (const pid of found.split("\n").map(Number).filter((n) => n > 0 && n !== Deno.pid)) {
    try {
      Deno.kill(pid, "SIGTERM");
    } catch {
      // already gone
    }
  }
}

// A script, not a `deno bench` file: `deno task bench` loads it and must not run it.
if (import.meta.main) await main(Deno.args);
