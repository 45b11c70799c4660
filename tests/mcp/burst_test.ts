// Bounded load and cancels end to end: main.ts under the production permissions, real adb, the
// simulated phone, raw stdio. A burst of phone_shot requests in one write, counting phone-eye's adb
// children and its RSS; phone_looks on a hung phone cancelled, then no adb left (issue 17, 1 and 4).
// The bursts (100 calls on a small screen, 1,000 on a full one) and 300 calls cancelled at random
// points (PHONE_EYE_CANCEL_SEED replays one run) are in `deno task test:long` (PHONE_EYE_LONG=1):
// they sample pgrep and ps as fast as those answer. The fast suite runs the 20 cancelled looks.

import assert from "node:assert/strict";
import { CALLS_MAX, PHONE_SLOTS } from "../../lib/adb/queue.ts";
import { type Reply, startRawPhoneEye } from "../helpers/raw_stdio.ts";
import { seededRandom } from "../helpers/prng.ts";
import { closing, startRig } from "../helpers/rig.ts";
import { startOpenAiServer } from "../fixtures/openai_server.ts";
import type { SimPhoneOptions } from "../../sim/sim_phone.ts";
import { waitFor } from "../helpers/wait_for.ts";

const LONG = Deno.env.get("PHONE_EYE_LONG") === "1";

/** A phone a sixth of the usual size each way, where the number of pixels proves nothing. */
const SMALL_SCREEN: SimPhoneOptions = { width: 180, height: 400 };

/** The adb processes phone-eye has running: its direct children (it spawns adb and nothing else). */
async function adbChildren(pid: number): Promise<number> {
  const { stdout } = await new Deno.Command("pgrep", {
    args: ["-c", "-P", String(pid)],
    stderr: "null",
  }).output();
  return Number(new TextDecoder().decode(stdout).trim() || "0");
}

/** A process's resident set in MiB, as `ps` reads VmRSS (Deno lets only --allow-all read /proc). */
async function rssMiB(pid: number): Promise<number> {
  const { stdout } = await new Deno.Command("ps", { args: ["-o", "rss=", "-p", String(pid)] })
    .output();
  return Number(new TextDecoder().decode(stdout).trim() || "0") / 1024;
}

const call = (id: string, name: string, args: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });

const textOf = (reply: Reply) =>
  ((reply.result?.content ?? []) as Array<{ type: string; text?: string }>)
    .filter((c) => c.type === "text").map((c) => c.text).join("\n");

const isImage = (reply: Reply) =>
  ((reply.result?.content ?? []) as Array<{ type: string }>).some((c) => c.type === "image");

/**
 * `calls` phone_shot requests in one write. Every one is answered (a screenshot, or at once the
 * busy refusal), phone-eye never runs more than PHONE_SLOTS adb processes nor passes 400 MiB, and it
 * serves a screenshot afterwards.
 */
async function shotBurst(calls: number, phone: SimPhoneOptions = {}): Promise<void> {
  await using rig = await startRig({ phoneEye: false, phones: [phone] });
  await using eye = await startRawPhoneEye({ env: rig.env });
  await eye.initialize();
  const ids = Array.from({ length: calls }, (_, i) => `shot-${i}`);
  let most = 0;
  let peak = 0;
  let sampling = true;
  // Samples as fast as pgrep and ps answer, for as long as the burst is being answered.
  const sampler = (async () => {
    while (sampling) {
      most = Math.max(most, await adbChildren(eye.pid));
      peak = Math.max(peak, await rssMiB(eye.pid));
    }
  })();
  const replies: Reply[] = [];
  try {
    await eye.write(ids.map((id) => call(id, "phone_shot")).join("\n") + "\n");
    for (const id of ids) replies.push(await eye.until((m) => m.id === id));
  } finally {
    sampling = false;
    await sampler;
  }
  const images = replies.filter(isImage).length;
  const busy = replies.filter((r) =>
    r.result?.isError === true &&
    /^Cannot take a screenshot: busy: \d+ calls are waiting for this phone; wait for them to finish/
      .test(textOf(r))
  ).length;
  const other = replies.filter((r) => !isImage(r) && !/: busy: /.test(textOf(r)));
  assert.deepEqual(other, [], "every reply is a screenshot or the busy refusal");
  assert.equal(images + busy, calls);
  assert.ok(images >= 1, "the calls the phone took were served");
  assert.ok(most <= PHONE_SLOTS, `${most} adb processes at once, more than ${PHONE_SLOTS}`);
  assert.ok(peak < 400, `RSS reached ${peak.toFixed(0)} MiB`);
  // deno-lint-ignore no-console
  console.error(
    `${calls} phone_shot in one write: ${images} screenshots, ${busy} busy; at most ${most} adb processes; peak RSS ${
      peak.toFixed(0)
    } MiB`,
  );

  await eye.write(call("after", "phone_shot") + "\n");
  assert.ok(isImage(await eye.until((m) => m.id === "after")), "still serving after the burst");
  assert.equal(await adbChildren(eye.pid), 0);
}

Deno.test({
  name:
    "100 phone_shot requests in one write: each answered, at most PHONE_SLOTS adb processes, the server still serving",
  ignore: !LONG,
  async fn() {
    // A small screen: the 32 screenshots served are each decoded and encoded (180×400 costs half
    // the CPU of 360×800). The run below uses the full 1080×2400 screen.
    await shotBurst(100, SMALL_SCREEN);
  },
});

Deno.test({
  name:
    "1,000 phone_shot requests in one write: each answered, at most PHONE_SLOTS adb processes, RSS below 400 MiB",
  ignore: !LONG,
  async fn() {
    await shotBurst(1000);
  },
});

/**
 * Only what could end phone-eye's adb processes besides a cancel, raised out of the tests' reach:
 * adb's timeout, and the vision timeout that sets a look's budget (without vision it stays 45 s).
 */
const ONLY_CANCELS_END_ADB = {
  PHONE_EYE_ADB_TIMEOUT_MS: "600000",
  PHONE_EYE_VISION_TIMEOUT_MS: "600000",
};

/**
 * A safety net, not a measure: it turns a hang into a failure, and is shorter than anything left
 * in ONLY_CANCELS_END_ADB, so adb processes gone before it were ended by the cancels.
 */
const SAFETY_NET_MS = 30_000;

/**
 * Waits, asking pgrep again and again (each answer is the next event), until phone-eye's adb
 * children number `satisfied(n)`; throws once SAFETY_NET_MS has passed.
 */
async function childrenUntil(
  pid: number,
  satisfied: (n: number) => boolean,
  what: string,
): Promise<number> {
  const givingUp = performance.now() + SAFETY_NET_MS;
  for (;;) {
    const n = await adbChildren(pid);
    if (satisfied(n)) return n;
    if (performance.now() > givingUp) throw new Error(`${what}: still ${n} adb processes`);
  }
}

Deno.test("20 looks cancelled on a hung phone leave no adb process behind, and the server serves on", async () => {
  const KEY = "burst-test-key-5d1e0b7a";
  await using vision = closing(startOpenAiServer({ apiKey: KEY }));
  await using rig = await startRig({ phoneEye: false, phones: [SMALL_SCREEN] });
  rig.sim.faults.hang(/screencap|uiautomator/);
  await using eye = await startRawPhoneEye({
    env: {
      ...rig.env,
      ...ONLY_CANCELS_END_ADB,
      PHONE_EYE_VISION_BASE_URL: vision.url,
      PHONE_EYE_VISION_API_KEY: KEY,
    },
  });
  await eye.initialize();
  const ids = Array.from({ length: 20 }, (_, i) => `look-${i}`);
  await eye.write(ids.map((id) => call(id, "phone_look")).join("\n") + "\n");
  // Both channels have started: the screenshot and the UI dump, each shared by the 20 looks. Once
  // the phone has both commands (and holds them), their adb processes are running: the sim's log
  // is watched, not pgrep, which would spawn again and again while phone-eye starts the looks.
  await waitFor(
    () =>
      ["screencap", "uiautomator"].every((tool) =>
        rig.sim.commands().some((c) => c.includes(tool))
      ),
    "the looks to reach the phone",
    60_000,
  );
  await childrenUntil(eye.pid, (n) => n >= 2, "the looks never reached the phone");
  await eye.write(
    ids.map((requestId) =>
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId } })
    ).join("\n") + "\n",
  );
  // The hung commands never answer, and no timeout of phone-eye's can end them in time: only
  // the cancels can have killed them.
  await childrenUntil(eye.pid, (n) => n === 0, "after the cancels");
  assert.equal(vision.requests.length, 0, "no screenshot arrived, so the model was never asked");

  rig.sim.faults.clear();
  await eye.write(call("after", "phone_shot") + "\n");
  assert.ok(isImage(await eye.until((m) => m.id === "after")), "still serving after the cancels");
  // Each look holds two calls (the screenshot and the dump): the phone holds CALLS_MAX, so the
  // looks past that were refused as busy at once, before the cancels; the others get no answer.
  const answered = eye.drain().filter((m) => typeof m.id === "string" && m.id.startsWith("look-"));
  assert.deepEqual(
    answered.filter((m) => !/busy: \d+ calls are waiting for this phone/.test(textOf(m))),
    [],
    "a cancelled call gets no answer",
  );
  assert.ok(answered.length <= ids.length - CALLS_MAX / 2, `${answered.length} looks answered`);
});

Deno.test({
  name:
    "calls cancelled at random points: the rest are answered, no tap runs twice, no adb is left, the server serves on",
  ignore: !LONG,
  async fn() {
    const CALLS = 300;
    const rng = seededRandom("PHONE_EYE_CANCEL_SEED");
    await using rig = await startRig({ phoneEye: false, phones: [{ width: 360, height: 800 }] });
    await using eye = await startRawPhoneEye({ env: { ...rig.env, ...ONLY_CANCELS_END_ADB } });
    await eye.initialize();
    const taps = new Map<string, number>(); // id → x of its tap, each tap at its own point
    const outstanding = new Set<string>();
    const cancelled = new Set<string>();
    const answers = new Map<string, Reply>();
    let sent = 0;
    // A random walk of events: send the next call, cancel one in flight, or take the next answer.
    while (sent < CALLS || outstanding.size > 0) {
      const roll = rng.next();
      if (sent < CALLS && roll < 0.5) {
        const x = 1 + sent % 300;
        const id = `c-${sent++}`;
        const tool = rng.pick(["phone_shot", "phone_look", "phone_tap"]);
        const args = tool === "phone_tap" ? { x, y: 400 } : {};
        if (tool === "phone_tap") taps.set(id, x);
        outstanding.add(id);
        await eye.write(call(id, tool, args) + "\n");
      } else if (outstanding.size > 0 && roll < 0.7) {
        const id = rng.pick([...outstanding]);
        outstanding.delete(id);
        cancelled.add(id);
        await eye.write(
          JSON.stringify({
            jsonrpc: "2.0",
            method: "notifications/cancelled",
            params: { requestId: id },
          }) + "\n",
        );
      } else if (outstanding.size > 0) {
        const reply = await eye.until((m) => typeof m.id === "string" && m.id.startsWith("c-"));
        answers.set(String(reply.id), reply);
        outstanding.delete(String(reply.id));
      }
    }
    // Actions already sent are let finish; reads were killed at their cancel.
    await childrenUntil(eye.pid, (n) => n === 0, "after the last answer");
    await eye.write(call("after", "phone_shot") + "\n");
    assert.ok(isImage(await eye.until((m) => m.id === "after")), "still serving");
    for (const reply of eye.drain()) answers.set(String(reply.id), reply);

    for (const [id, reply] of answers) {
      assert.equal(reply.error, undefined, `${id}: ${JSON.stringify(reply.error)}`);
      assert.doesNotMatch(textOf(reply), /failed unexpectedly/, id);
    }
    const ran = rig.sim.toolCalls("input").filter((argv) => argv[0] === "tap");
    for (const [id, x] of taps) {
      const times = ran.filter((argv) => argv[1] === String(x)).length;
      const tapped = /^Tapped/.test(textOf(answers.get(id) ?? {}));
      assert.ok(times <= 1, `${id}'s tap at x=${x} ran ${times} times`);
      if (tapped) assert.equal(times, 1, `${id} answered Tapped but ran ${times} times`);
    }
    // deno-lint-ignore no-console
    console.error(
      `seed ${rng.seed}: ${CALLS} calls, ${cancelled.size} cancelled, ${answers.size} answered, ${taps.size} taps (${ran.length} ran)`,
    );
  },
});
