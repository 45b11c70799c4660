// Soak: thousands of mixed calls into main.ts over the real adb and the simulated phone on a Wi-Fi
// serial, with the link dropped every ~50 calls. Zero crashes, no action ever done twice, and the
// process's RSS at the end within 10 % of its RSS after warm-up.
//
// PHONE_EYE_SOAK_CALLS sets the count: `deno task test:long` runs 2000 calls (memory judged too),
// `deno task soak` 20,000; run alone without it, the file soaks 30 calls with the link dropped every
// 10 (each kind of drop once: crashes and repeated actions, no memory verdict, which needs a long
// run to mean anything). PHONE_EYE_SOAK_SEED replays a mix.
//
// "Never repeated", precisely: phone-eye sends each acting call (tap, swipe, type, key, intent) to
// the phone at most once. Every acting call has its own device command (its own point, text or
// URL; keys go round eight of them, so two presses of one key have seven presses of others
// between them, most of which reach the phone: a drop is armed once in 50 calls), calls are made
// one at a time, and the sim logs each command it runs in order. Walking the calls and the log together, a call that answered success
// must appear exactly once, a call that answered that the link dropped at most once, and the log
// may hold nothing else.

import assert from "node:assert/strict";
import { resolveKey } from "../../lib/adb/keys.ts";
import { textOf } from "../helpers/in_process.ts";
import { type Random, seededRandom } from "../helpers/prng.ts";
import { denoDir, testPermissionFlags } from "../helpers/phone_eye.ts";
import { lineSplitter } from "../helpers/deno_stdio_transport.ts";
import { startRawPhoneEye } from "../helpers/raw_stdio.ts";
import { waitFor } from "../helpers/wait_for.ts";
import { startRig, type ToolResult } from "../helpers/rig.ts";
import type { SimPhone } from "../../sim/sim_phone.ts";
import type { SoakFigures } from "../../scripts/readme_tools.ts";

const CALLS = Number(Deno.env.get("PHONE_EYE_SOAK_CALLS") ?? 30);
/** Below this many calls the warm-up and the two RSS windows are too short for a memory verdict. */
const MEMORY_VERDICT_FROM = 2000;
const JUDGES_MEMORY = CALLS >= MEMORY_VERDICT_FROM;
/**
 * A drop every 50 calls in the long runs; every 10 in a short one, whose three drops are then the
 * three kinds (faults go round them in turn, from a seeded start), each with nine calls after it
 * to show the link is back.
 */
const DROP_EVERY = CALLS >= MEMORY_VERDICT_FROM ? 50 : 10;
/**
 * The first 30 % (at most 600 calls) warms every path up. Screenshots come every 60 calls there and every 400 after:
 * each decodes a 1080×2400 frame, and those buffers set how large the heap settles (about ten
 * screenshots bring RSS to its plateau).
 */
const WARM_UP = Math.min(600, Math.floor(CALLS * 0.3));
const SHOT_EVERY_WARMING = 60;
const SHOT_EVERY = 400;
/**
 * RSS is sampled every 20 calls (more often in a short soak). "After warm-up" is the median over
 * the fifth of the calls that follows the warm-up, "at the end" the median over the last fifth: a
 * median, because whether a major GC has just run moves a single sample by tens of MiB.
 */
const WINDOW = Math.floor(CALLS / 5);
/** Every 20 calls, or more often in a soak so short that a window would hold no sample. */
const SAMPLE_EVERY = Math.max(1, Math.min(20, WINDOW));
/**
 * phone-eye runs under the production permission set with V8's old space capped at 96 MiB. With
 * V8's default, RSS swings between about 250 and 380 MiB as the heap grows between major GCs (6000
 * calls measured a swing and no trend), which says when V8 collects, not what phone-eye keeps.
 * Capped, RSS held between 258 and 270 MiB over the same 6000 calls, and anything phone-eye did
 * keep would end in an out-of-memory crash, which the soak counts.
 */
const OLD_SPACE_MIB = 96;
/** The least growth "flat" allows, in MiB: what one major GC's timing moves the resident set. */
const FLAT_SLACK_MIB = 16;

/** Keys with no effect on the sim's screens, so the mix stays cheap; pressed in turn. */
const KEYS = [
  "volume_up",
  "dpad_up",
  "page_up",
  "dpad_left",
  "volume_down",
  "dpad_down",
  "page_down",
  "dpad_right",
];

interface Planned {
  tool: string;
  args: Record<string, unknown>;
  /** The log this call's device command lands in, and how to recognise its entry. */
  log?: "input" | "am";
  is?: (argv: readonly string[]) => boolean;
  /** The sim tool a fault armed for this call must match. */
  simTool: string;
}

function plan(rng: Random, i: number, keysPressed: number): Planned {
  const shotEvery = i < WARM_UP ? SHOT_EVERY_WARMING : SHOT_EVERY;
  if (i % shotEvery === shotEvery - 1) {
    return { tool: "phone_shot", args: {}, simTool: "screencap" };
  }
  const roll = rng.next();
  const x = 1 + (i % 1000);
  // Below the home screen's icons and above the navigation bar: taps there change nothing.
  const y = 1100 + Math.floor(i / 1000) % 1100;
  const same = (want: string[]) => (argv: readonly string[]) =>
    argv.length === want.length && argv.every((a, k) => a === want[k]);
  if (roll < 0.36) {
    return {
      tool: "phone_tap",
      args: { x, y, settle: false },
      log: "input",
      is: same(["tap", String(x), String(y)]),
      simTool: "input",
    };
  }
  if (roll < 0.56) {
    const key = KEYS[keysPressed % KEYS.length]!;
    const code = (resolveKey(key) as { code: number }).code;
    return {
      tool: "phone_key",
      args: { key, settle: false },
      log: "input",
      is: same(["keyevent", String(code)]),
      simTool: "input",
    };
  }
  if (roll < 0.71) {
    const args = { x1: x, y1: y, x2: x + 40, y2: y + 40, duration_ms: 50, settle: false };
    return {
      tool: "phone_swipe",
      args,
      log: "input",
      is: same(["swipe", String(x), String(y), String(x + 40), String(y + 40), "50"]),
      simTool: "input",
    };
  }
  if (roll < 0.86) {
    const text = `s${i}`;
    return {
      tool: "phone_type",
      args: { text, settle: false },
      log: "input",
      is: same(["text", text]),
      simTool: "input",
    };
  }
  if (roll < 0.91) {
    const url = `https://example.com/soak/${i}`;
    return {
      tool: "phone_intent",
      args: { action: "android.intent.action.VIEW", data: url, settle: false },
      log: "am",
      is: (argv) => argv.includes(url),
      simTool: "am",
    };
  }
  return { tool: "phone_look", args: {}, simTool: "uiautomator" };
}

type Fault = "late drop" | "early drop" | "link down";

function arm(sim: SimPhone, fault: Fault, call: Planned): void {
  if (fault === "link down") sim.faults.dropNow();
  else sim.faults.dropAfterNext(call.simTool, { beforeOpenAck: fault === "early drop" });
}

/**
 * The resident set of a process, in KiB, as `ps` reads it from /proc/<pid>/status (VmRSS). Deno
 * grants /proc/<pid> files only with --allow-all, so the test asks ps, which it may run.
 */
async function rssKiB(pid: number): Promise<number> {
  const { code, stdout } = await new Deno.Command("ps", {
    args: ["-o", "rss=", "-p", String(pid)],
    stdin: "null",
    stderr: "null",
  }).output();
  const kib = Number(new TextDecoder().decode(stdout).trim());
  assert.ok(code === 0 && kib > 0, `ps found no process ${pid}`);
  return kib;
}

/** An answer saying the action may or may not have reached the phone (the link dropped). */
const UNCERTAIN = /reconnected but did not repeat|may (already )?have (received|happened)/;

Deno.test(
  `a soak of ${CALLS} mixed calls with the link dropped every ${DROP_EVERY}: no crash, no action twice${
    JUDGES_MEMORY ? ", flat memory" : ""
  }`,
  async () => {
    const rng = seededRandom("PHONE_EYE_SOAK_SEED");
    // deno-lint-ignore no-console
    console.error(
      `soak ${CALLS} calls: seed ${rng.seed} (replay with PHONE_EYE_SOAK_SEED=${rng.seed})`,
    );
    await using rig = await startRig({
      flags: [...await testPermissionFlags(), `--v8-flags=--max-old-space-size=${OLD_SPACE_MIB}`],
    });
    const { sim } = rig;
    const pid = rig.eye.pid;
    assert.match(rig.serial ?? "", /^127\.0\.0\.1:\d+$/, "a Wi-Fi serial, so phone-eye reconnects");

    const calls: Array<{ planned: Planned; result: ToolResult; fault?: Fault }> = [];
    const faults: Fault[] = ["late drop", "early drop", "link down"];
    const counts = { success: 0, uncertain: 0, unprompted: 0, replayed: 0, drops: 0 };
    let keysPressed = 0;
    const firstFault = rng.int(faults.length);
    /** [call index, RSS in KiB] */
    const samples: Array<[number, number]> = [];
    const connectionsBefore = sim.connections();
    const started = performance.now();

    for (let i = 0; i < CALLS; i++) {
      if (i % SAMPLE_EVERY === 0) samples.push([i, await rssKiB(pid)]);
      const planned = plan(rng, i, keysPressed);
      if (planned.tool === "phone_key") keysPressed++;
      let fault: Fault | undefined;
      if (i % DROP_EVERY === DROP_EVERY / 2) {
        fault = faults[(firstFault + counts.drops) % faults.length]!;
        arm(sim, fault, planned);
        counts.drops++;
      }
      const before = sim.commands().length;
      const result = await rig.call(planned.tool, planned.args);
      calls.push({ planned, result, ...(fault === undefined ? {} : { fault }) });
      const label = `seed ${rng.seed}, call ${i} ${planned.tool} ${JSON.stringify(planned.args)}${
        fault ? ` after a ${fault}` : ""
      }`;
      const text = textOf(result);
      if (planned.log === undefined) {
        // Read-only: a dropped link is revived and the command replayed, so it always succeeds.
        assert.notEqual(result.isError, true, `${label}: ${text}`);
        if (sim.commands().length - before > 1 && fault !== undefined) counts.replayed++;
      } else if (result.isError) {
        // Only a dropped link may fail an acting call here, and the answer must say to look first.
        assert.match(text, UNCERTAIN, label);
        assert.match(text, /[Ll]ook/, `${label}: the answer must say to look first`);
        counts.uncertain++;
        // A drop nobody armed: rare (twice in about 50,000 calls), both times on the call right after
        // an armed one. adb 29's server retries a dropped TCP device by itself 250 ms after the
        // drop (ReconnectHandler::TrackTransport, https://github.com/aosp-mirror/platform_system_core/blob/589da1a0e0220d9443dbdd03e9fb2a659bfd2f8c/adb/transport.cpp#L156-L166),
        // so its reconnect can race phone-eye's own. The answer is the honest one; it is counted.
        if (fault === undefined) counts.unprompted++;
      } else {
        counts.success++;
      }
      // A fault the call did not meet (a drop armed for its tool, on a call that fails before
      // sending) must not linger into the next window.
      if (fault !== undefined) sim.faults.clear();
    }
    const seconds = (performance.now() - started) / 1000;
    samples.push([CALLS, await rssKiB(pid)]);
    /** The median RSS sampled between calls `from` and `to`. */
    const median = (from: number, to: number) => {
      const kib = samples.filter(([i]) => i >= from && i <= to).map(([, k]) => k);
      return kib.sort((a, b) => a - b)[kib.length >> 1]!;
    };
    const rssWarm = median(WARM_UP, WARM_UP + WINDOW);
    const rssEnd = median(CALLS - WINDOW, CALLS);

    // Walk the calls and the phone's logs together (see the header for the rule).
    for (const log of ["input", "am"] as const) {
      const entries = sim.toolCalls(log);
      let j = 0;
      for (const [i, { planned, result }] of calls.entries()) {
        if (planned.log !== log) continue;
        const seen = j < entries.length && planned.is!(entries[j]!) ? 1 : 0;
        j += seen;
        const label = `seed ${rng.seed}, call ${i} ${planned.tool} ${JSON.stringify(planned.args)}`;
        if (result.isError) assert.ok(seen <= 1, label);
        else assert.equal(seen, 1, `${label} answered success but the phone never ran it`);
        assert.ok(
          !(j < entries.length && planned.is!(entries[j]!)),
          `${label} reached the phone twice: ${JSON.stringify(entries[j])}`,
        );
      }
      assert.equal(
        j,
        entries.length,
        `the ${log} log holds commands no call accounts for: ${
          JSON.stringify(entries.slice(j, j + 5))
        }`,
      );
    }

    // No crash: the same process still answers, and never reported an unexpected failure.
    const last = await rig.call("phone_key", { key: "home", settle: false });
    assert.notEqual(last.isError, true, textOf(last));
    assert.equal(rig.eye.pid, pid);
    assert.doesNotMatch(rig.stderr(), /unexpected/i);

    const reconnects = sim.connections() - connectionsBefore;
    // deno-lint-ignore no-console
    console.error(
      `soak: ${CALLS} calls in ${
        seconds.toFixed(1)
      } s; ${counts.drops} link drops, ${reconnects} reconnects, ` +
        `${counts.uncertain} acting calls answered "reconnected, not repeated" (${counts.unprompted} on a drop nobody armed), ` +
        `${counts.replayed} read-only calls replayed, ` +
        `0 repeated actions; RSS ${
          Math.round(rssWarm / 1024)
        } MiB after warm-up (median, calls ${WARM_UP}–${WARM_UP + WINDOW}), ${
          Math.round(rssEnd / 1024)
        } MiB at the end (median, last ${WINDOW} calls); every 100 calls: ${
          samples.filter(([i]) => i % 100 === 0).map(([, k]) => Math.round(k / 1024)).join(" ")
        }`,
    );
    assert.ok(counts.drops >= Math.floor(CALLS / DROP_EVERY) - 1);
    assert.ok(counts.unprompted <= counts.drops / 10, `${counts.unprompted} drops nobody armed`);
    assert.ok(reconnects >= counts.uncertain, `${reconnects} reconnects`);
    if (!JUDGES_MEMORY) return;
    // 10 %, or FLAT_SLACK_MIB where 10 % of a small resident set is less than one major GC moves
    // it: the set is now near 90 MiB (the 258–270 MiB above were measured before the frame
    // buffers were released early), and a busy machine delays collections.
    const allowed = Math.max(rssWarm * 1.1, rssWarm + FLAT_SLACK_MIB * 1024);
    assert.ok(
      rssEnd <= allowed,
      `RSS grew from ${rssWarm} KiB after warm-up to ${rssEnd} KiB (more than 10 % and ${FLAT_SLACK_MIB} MiB)`,
    );
  },
);

// ---- faults beyond a dropped link (issue 17 item 9) ----
//
// Each test below is self-contained and runs in the long soak only (PHONE_EYE_SOAK_CALLS of 2000
// or more: `deno task test:long`, `deno task soak`). The targets are the issue's: every call
// answered, never more than 32 adb processes at once, RSS below 400 MiB, and no adb process left
// once the calls are answered. The burst and stopped-reader targets, and the leftovers after
// cancels, rest on the per-phone queue and cancel-stops-adb (issue 17 items 1 and 4).

/** Whether the fault soaks run: they take minutes, so only in the long runs. */
const FAULT_SOAKS = CALLS >= 2000;
/**
 * The burst's size and the stopped reader's, as the issue states them; smaller values
 * (PHONE_EYE_SOAK_BURST, PHONE_EYE_SOAK_STALLED) try the tests out on a branch without the per-phone
 * queue, where the full sizes start hundreds of adb processes.
 */
const BURST = Number(Deno.env.get("PHONE_EYE_SOAK_BURST") ?? 1000);
const STALLED = Number(Deno.env.get("PHONE_EYE_SOAK_STALLED") ?? 300);
/** The issue's bounds. */
const MAX_ADB = 32;
const MAX_RSS_MIB = 400;

/** How many adb clients `pid` has running now (its children named adb). */
async function adbChildren(pid: number): Promise<number> {
  const { stdout } = await new Deno.Command("pgrep", {
    args: ["-c", "-P", String(pid), "-x", "adb"],
    stdin: "null",
    stderr: "null",
  }).output();
  return Number(new TextDecoder().decode(stdout).trim()) || 0;
}

/** adb clients anywhere on this machine still naming `serial` (the rig's adb server never does). */
async function adbNaming(serial: string): Promise<number> {
  const { stdout } = await new Deno.Command("pgrep", {
    args: ["-c", "-f", `^adb .*-s ${serial.replaceAll(".", "\\.")}`],
    stdin: "null",
    stderr: "null",
  }).output();
  return Number(new TextDecoder().decode(stdout).trim()) || 0;
}

/**
 * Waits, by asking ps again and again (each answer is the next event), until `pid` has no adb
 * child; the bound only turns a leak into a failure. Returns how many ps rounds it took.
 */
async function noAdbLeft(pid: number, what: string, rounds = 2000): Promise<number> {
  for (let i = 0; i < rounds; i++) {
    if (await adbChildren(pid) === 0) return i;
  }
  throw new Error(`${what}: adb processes still running after ${rounds} checks`);
}

/** Samples adb children and RSS of `pid` until `done` settles: the maxima, and RSS every sample. */
function sampler(pid: number) {
  let stop = false;
  const rss: number[] = [];
  let maxAdb = 0;
  const running = (async () => {
    while (!stop) {
      maxAdb = Math.max(maxAdb, await adbChildren(pid));
      rss.push(await rssKiB(pid).catch(() => 0));
    }
  })();
  return {
    async finish() {
      stop = true;
      await running;
      return {
        maxAdb,
        maxRssMiB: Math.round(Math.max(0, ...rss) / 1024),
        rssMiB: rss.map((k) => Math.round(k / 1024)),
      };
    },
  };
}

/** About ten of `values`, evenly spread, and the last: an "over time" figure. */
const tenth = (values: number[]) => {
  const step = Math.max(1, Math.floor(values.length / 10));
  const some = values.filter((_, i) => i % step === 0);
  return values.length % step === 1 || values.length === 0 ? some : [...some, values.at(-1)!];
};
const everyTenth = (values: number[]) => tenth(values).join(" ");

/**
 * With PHONE_EYE_SOAK_RECORD=1, writes one soak's figures into tests/long/soak_figures.json (its row,
 * by id), from which `deno task readme` renders docs/reliability.md's soak table.
 */
async function record(figures: Omit<SoakFigures, "soak" | "pending">): Promise<void> {
  if (Deno.env.get("PHONE_EYE_SOAK_RECORD") !== "1") return;
  const path = new URL("./soak_figures.json", import.meta.url);
  const file = JSON.parse(await Deno.readTextFile(path)) as { rows: SoakFigures[] };
  const row = file.rows.find((r) => r.id === figures.id);
  assert.ok(row, `tests/long/soak_figures.json has no row ${figures.id}`);
  delete row.pending;
  Object.assign(row, figures);
  await Deno.writeTextFile(path, JSON.stringify(file, null, 2) + "\n");
}

function report(line: string): void {
  // deno-lint-ignore no-console
  console.error(`soak: ${line}`);
}

Deno.test({
  name:
    "a soak of adb server kills mid-call: every call answered in words, never a firmware note, no adb left",
  ignore: !FAULT_SOAKS,
  async fn() {
    const rng = seededRandom("PHONE_EYE_SOAK_SEED");
    report(`server kills: seed ${rng.seed} (replay with PHONE_EYE_SOAK_SEED=${rng.seed})`);
    await using rig = await startRig();
    const { sim } = rig;
    const pid = rig.eye.pid;
    const kills = 20;
    const tools = [
      { tool: "phone_shot", args: {}, hang: /screencap/ },
      { tool: "phone_look", args: {}, hang: /uiautomator/ },
      { tool: "phone_tap", args: { x: 5, y: 1500 }, hang: /input tap/ },
    ];
    const answers: Record<string, number> = {};
    const probe = sampler(pid);
    for (let i = 0; i < kills; i++) {
      const pick = rng.pick(tools);
      sim.faults.hang(pick.hang);
      const before = sim.commands().length;
      const call = rig.call(pick.tool, pick.args);
      await waitFor(
        () => sim.commands().slice(before).some((c) => pick.hang.test(c)),
        `${pick.tool} to reach the phone`,
      );
      const killed = await rig.adb.adb("kill-server");
      assert.equal(killed.code, 0, killed.stderr);
      sim.faults.clear();
      const result = await call;
      const text = textOf(result);
      const label = `seed ${rng.seed}, kill ${i} during ${pick.tool}`;
      assert.doesNotMatch(text, /MIUI|firmware|quirk/, label);
      if (result.isError) {
        assert.match(text, /^(Cannot|The link)|may (already )?have/, `${label}: ${text}`);
      }
      const kind = `${pick.tool} ${result.isError ? "error" : "ok"}`;
      answers[kind] = (answers[kind] ?? 0) + 1;
      // The next call finds (or starts) a server and the phone again.
      const next = await rig.call("phone_key", { key: "volume_up" });
      assert.notEqual(next.isError, true, `${label}, then: ${textOf(next)}`);
      await noAdbLeft(pid, label);
    }
    assert.equal(rig.eye.pid, pid);
    assert.doesNotMatch(rig.stderr(), /unexpected/i);
    const { maxAdb, maxRssMiB, rssMiB } = await probe.finish();
    assert.ok(maxAdb <= MAX_ADB, `${maxAdb} adb processes at once`);
    assert.ok(maxRssMiB < MAX_RSS_MIB, `RSS reached ${maxRssMiB} MiB`);
    const left = await adbNaming(sim.serial);
    assert.equal(left, 0, "adb clients left on the machine");
    report(
      `${kills} adb server kills mid-call, ${kills * 2} calls: ${
        JSON.stringify(answers)
      }; at most ${maxAdb} adb at once; RSS MiB over time: ${everyTenth(rssMiB)}; 0 adb left`,
    );
    await record({
      id: "server-kills",
      calls: kills * 2,
      faults: `${kills} kills: ${
        Object.entries(answers).map(([kind, n]) => `${n} ${kind}`).join(", ")
      }; every next call answered`,
      rssMiB: tenth(rssMiB),
      maxAdb,
      left,
      seed: rng.seed,
    });
  },
});

Deno.test({
  name: "a soak of cancels at random points: the server keeps serving and no adb process is left",
  ignore: !FAULT_SOAKS,
  async fn() {
    const rng = seededRandom("PHONE_EYE_SOAK_SEED");
    report(`cancels: seed ${rng.seed} (replay with PHONE_EYE_SOAK_SEED=${rng.seed})`);
    await using rig = await startRig();
    const { sim } = rig;
    const pid = rig.eye.pid;
    const cancels = 100;
    const tools = ["phone_shot", "phone_look", "phone_key"];
    let answered = 0, aborted = 0;
    const probe = sampler(pid);
    for (let i = 0; i < cancels; i++) {
      const tool = rng.pick(tools);
      const args = tool === "phone_key" ? { key: "volume_down" } : {};
      const controller = new AbortController();
      const call = rig.client.callTool({ name: tool, arguments: args }, {
        signal: controller.signal,
      });
      let settled = false;
      call.then(() => settled = true, () => settled = true);
      // A random point: after 0 to 3 commands reached the phone for it (or it was answered first),
      // then 0 to 50 more turns of the event loop (each lets sockets and children make progress).
      const before = sim.commands().length;
      const commands = rng.int(4);
      await waitFor(() => settled || sim.commands().length - before >= commands, "commands");
      for (let turns = rng.int(50); turns > 0 && !settled; turns--) {
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      controller.abort();
      try {
        await call;
        answered++;
      } catch {
        aborted++;
      }
    }
    const rounds = await noAdbLeft(pid, `seed ${rng.seed}: after ${cancels} cancels`);
    const last = await rig.call("phone_key", { key: "home" });
    assert.notEqual(last.isError, true, textOf(last));
    const { maxAdb, maxRssMiB, rssMiB } = await probe.finish();
    assert.ok(maxAdb <= MAX_ADB, `${maxAdb} adb processes at once`);
    assert.ok(maxRssMiB < MAX_RSS_MIB, `RSS reached ${maxRssMiB} MiB`);
    assert.equal(rig.eye.pid, pid);
    assert.equal(await adbNaming(sim.serial), 0, "adb clients left on the machine");
    report(
      `${cancels} calls cancelled at random points (${aborted} ended by the cancel, ${answered} answered first); ` +
        `at most ${maxAdb} adb at once; RSS MiB over time: ${
          everyTenth(rssMiB)
        }; 0 adb left (${rounds} checks after the last cancel)`,
    );
    await record({
      id: "cancels",
      calls: cancels + 1,
      faults: `${cancels} cancels: ${aborted} ended by the cancel, ${answered} answered first`,
      rssMiB: tenth(rssMiB),
      maxAdb,
      left: 0,
      seed: rng.seed,
    });
  },
});

/** `n` phone_shot requests as one write's worth of JSON-RPC lines, ids `${prefix}0`… */
function shotLines(n: number, prefix: string): string {
  return Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id: `${prefix}${i}`,
      method: "tools/call",
      params: { name: "phone_shot", arguments: {} },
    }) + "\n").join("");
}

Deno.test({
  name:
    `a burst of ${BURST} phone_shot requests in one write: all answered, ≤ 32 adb processes, RSS < 400 MiB, still serving`,
  ignore: !FAULT_SOAKS,
  async fn() {
    await using rig = await startRig({ phoneEye: false });
    await using eye = await startRawPhoneEye({ env: rig.env });
    await eye.initialize();
    const burst = BURST;
    const probe = sampler(eye.pid);
    await eye.write(shotLines(burst, "b"));
    // Past the phone's bounded queue a call is refused at once (issue 17 item 1): "busy" is an
    // answer; any other error is not.
    let busy = 0;
    let shots = 0;
    for (let i = 0; i < burst; i++) {
      const reply = await eye.until((r) => r.id === `b${i}`);
      const text = JSON.stringify(reply.result?.content ?? reply.error ?? null);
      if (reply.result?.isError && /busy: \d+ calls are waiting for this phone/.test(text)) busy++;
      else if (reply.error || reply.result?.isError) assert.fail(`b${i} answered: ${text}`);
      else shots++;
    }
    const { maxAdb, maxRssMiB, rssMiB } = await probe.finish();
    await eye.write(
      JSON.stringify({
        jsonrpc: "2.0",
        id: "after",
        method: "tools/call",
        params: { name: "phone_key", arguments: { key: "home" } },
      }) + "\n",
    );
    const after = await eye.until((r) => r.id === "after");
    assert.notEqual(after.result?.isError, true, JSON.stringify(after));
    await noAdbLeft(eye.pid, "after the burst");
    report(
      `burst of ${burst} phone_shot in one write: all answered (${shots} screenshots, ${busy} busy); at most ${maxAdb} adb at once; RSS MiB over time: ${
        everyTenth(rssMiB)
      }; 0 adb left`,
    );
    assert.ok(shots > 0, "no screenshot came back");
    assert.ok(maxAdb <= MAX_ADB, `${maxAdb} adb processes at once`);
    assert.ok(maxRssMiB < MAX_RSS_MIB, `RSS reached ${maxRssMiB} MiB`);
    await record({
      id: "burst",
      calls: burst + 1,
      faults:
        `${burst} requests in one write: ${shots} screenshots, ${busy} refused as busy; the next call answered`,
      rssMiB: tenth(rssMiB),
      maxAdb,
      left: 0,
    });
  },
});

Deno.test({
  name:
    `a client that stops reading for ${STALLED} requests, then reads them all and ends: all answered, bounded, nothing left`,
  ignore: !FAULT_SOAKS,
  async fn() {
    await using rig = await startRig({ phoneEye: false });
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        ...await testPermissionFlags(),
        new URL("../../main.ts", import.meta.url).pathname,
      ],
      env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", DENO_DIR: await denoDir(), ...rig.env },
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const stdin = child.stdin.getWriter();
    const encode = (s: string) => new TextEncoder().encode(s);
    const requests = STALLED;
    await stdin.write(encode(
      JSON.stringify({
        jsonrpc: "2.0",
        id: "init",
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "soak", version: "0" },
        },
      }) + "\n" + JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n" +
        shotLines(requests, "s"),
    ));
    // Not reading: the answers (some 30 KB each) fill the pipe and phone-eye's writes wait. Watch
    // it while the phone sees the captures come and stop.
    const probe = sampler(child.pid);
    await waitFor(() => rig.sim.commands().some((c) => c.includes("screencap")), "a capture");
    let seen = -1;
    for (let steady = 0; steady < 20;) {
      const now = rig.sim.commands().length;
      steady = now === seen ? steady + 1 : 0;
      seen = now;
      await adbChildren(child.pid); // one ps round: the event this loop waits on
    }
    const stalled = await probe.finish();
    // Resume reading: every answer arrives.
    const ids = new Set<string>();
    const lines = child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(
      lineSplitter(64 << 20),
    );
    const reader = lines.getReader();
    while (ids.size < requests + 1) {
      const { value, done } = await reader.read();
      if (done) break;
      if (value.trim() === "") continue;
      const id = (JSON.parse(value) as { id?: string }).id;
      if (id !== undefined) ids.add(id);
    }
    assert.equal(ids.size, requests + 1, `${ids.size - 1} of ${requests} answered`);
    await stdin.close();
    const status = await child.status;
    reader.releaseLock();
    await lines.cancel().catch(() => {});
    assert.equal(status.code, 0);
    assert.equal(await adbNaming(rig.sim.serial), 0, "adb clients left after phone-eye exited");
    report(
      `client stopped reading for ${requests} phone_shot: at most ${stalled.maxAdb} adb at once, RSS MiB while stalled: ${
        everyTenth(stalled.rssMiB)
      }; all answered once read; exit 0, 0 adb left`,
    );
    assert.ok(stalled.maxAdb <= MAX_ADB, `${stalled.maxAdb} adb processes at once`);
    assert.ok(stalled.maxRssMiB < MAX_RSS_MIB, `RSS reached ${stalled.maxRssMiB} MiB`);
    await record({
      id: "stalled-reader",
      calls: requests,
      faults:
        `stdout unread until the phone saw no new command for 20 checks; then all ${requests} answered, stdin ended, exit 0`,
      rssMiB: tenth(stalled.rssMiB),
      maxAdb: stalled.maxAdb,
      left: 0,
    });
  },
});
