// Runs every case of docs/reliability.md's table (tests/app/reliability_cases.ts) against the real
// thing each needs: main.ts over the real adb and simulated phones, a local vision server, raw
// stdio lines; the fake adb only where the simulated phone cannot act the part.

import assert from "node:assert/strict";
import { createDevice } from "../../lib/adb/device.ts";
import { type OpenAiServer, startOpenAiServer } from "../fixtures/openai_server.ts";
import { exited, fakeAdb } from "../helpers/fake_adb.ts";
import { connectInProcess, textOf } from "../helpers/in_process.ts";
import { type PhoneEyeProcess, startFlags, startPhoneEye } from "../helpers/phone_eye.ts";
import { type RawPhoneEye, startRawPhoneEye } from "../helpers/raw_stdio.ts";
import { closing, SMALL_PHONE, startRig, tempDir } from "../helpers/rig.ts";
import { ihdrBody, writePngChunks } from "../../sim/png_writer.ts";
import type { SimPhone } from "../../sim/sim_phone.ts";
import {
  type Profile,
  RELIABILITY_CASES,
  type ReliabilityCase,
  type World,
} from "./reliability_cases.ts";

/** A key no generic pattern (sk-…) matches: only the exact-key scrub can hide it. */
const KEY = "reliability-table-key-7f3a9c41";

function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** One section of phone_look's text ("[vision]", "[ui-tree]", …), without its header. */
function section(text: string, name: string): string {
  const parts = text.split(/^\[([a-z-]+)\]\n/m);
  const at = parts.indexOf(name, 1);
  assert.ok(at > 0 && at % 2 === 1, `no [${name}] section in: ${text.slice(0, 500)}`);
  return parts[at + 1]!.trim();
}

/** What the agent saw: the verdict and the words (a JSON-RPC error counts as an error). */
interface Seen {
  isError: boolean;
  text: string;
  code?: number;
}

/**
 * How long one row may take before it fails as hung. The slowest rows wait out a 1,000 ms adb
 * timeout or a 500 ms vision timeout, and a few start a phone-eye of their own: 20 s is ample
 * for those on a loaded machine, and stops a wedged row well before the fault it arms would end
 * (the hostile adb sleeps 30 s).
 */
const ROW_DEADLINE_MS = 20_000;

/** `work`, or a failure naming `what` if it has not settled within `ms`. */
async function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** What every row runs against, started once for the file (beforeAll) and closed in afterAll. */
interface Table extends AsyncDisposable {
  check(c: ReliabilityCase): Promise<void>;
  /** After every row: no injection ran on either phone, and the key is in no stderr. */
  checkClean(): Promise<void>;
}

async function startTable(): Promise<Table> {
  const stack = new AsyncDisposableStack();
  try {
    return await tableOn(stack);
  } catch (error) {
    await stack.disposeAsync();
    throw error;
  }
}

async function tableOn(stack: AsyncDisposableStack): Promise<Table> {
  // The rows are about faults, not pixels.
  const rig = stack.use(
    await startRig({ phones: [SMALL_PHONE, SMALL_PHONE], phoneEye: false, serial: null }),
  );
  const [sim, sim2] = rig.sims as [SimPhone, SimPhone];
  const vision = stack.use(closing(startOpenAiServer({ apiKey: KEY })));
  const hostile = stack.use(await tempDir("phone_eye_hostile_adb_"));
  const adbMode = `${hostile.path}/mode`;
  const forkedPid = `${hostile.path}/forked.pid`;
  // A sleep no other process runs, so the one the wrapper forks can be found and ended.
  const token = `${31 + Math.random()}`.slice(0, 12);
  await Deno.writeFile(
    `${hostile.path}/hostile.png`,
    writePngChunks([
      ["tEXt", new TextEncoder().encode("Comment\0first")],
      ["IHDR", ihdrBody(10_000, 10_000)],
      ["IDAT", new Uint8Array([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])],
      ["IEND", new Uint8Array()],
    ]),
  );
  await Deno.writeTextFile(
    `${hostile.path}/adb`,
    `#!/bin/sh
# The adb of the wifi and short-timeouts profiles: the real one, unless the mode file arms a
# misbehaviour.
mode=$(cat "${adbMode}" 2>/dev/null)
case "$*" in
  *exec-out*)
    case $mode in
      flood) head -c ${64 * 1024 * 1024 + 1} /dev/zero; exec sleep 30 ;;
      fork) sleep ${token} & echo $! > "${forkedPid}"; wait; exit 0 ;;
      png) exec cat "${hostile.path}/hostile.png" ;;
    esac ;;
esac
exec /usr/bin/adb "$@"
`,
    { mode: 0o755 },
  );
  const forkedChild = async () => {
    const pid = Number(await Deno.readTextFile(forkedPid).catch(() => "0"));
    if (pid === 0) return null;
    const { code, stdout } = await new Deno.Command("ps", {
      args: ["-o", "stat=", "-p", String(pid)],
      stderr: "null",
    }).output();
    const state = new TextDecoder().decode(stdout).trim();
    return code === 0 && !state.startsWith("Z") ? pid : null;
  };
  const world: World = {
    sim,
    sim2,
    vision,
    key: KEY,
    adbMisbehaves: async (mode) => {
      if (mode === null) await Deno.remove(adbMode).catch(() => {});
      else await Deno.writeTextFile(adbMode, mode);
    },
    forkedChildRunning: async () => await forkedChild() !== null,
  };

  const base = rig.adb.env;
  const wifi = {
    ...base,
    ANDROID_SERIAL: sim.serial,
    PHONE_EYE_VISION_BASE_URL: vision.url,
    PHONE_EYE_VISION_API_KEY: KEY,
    PATH: `${hostile.path}:/usr/bin:/bin`,
  };
  const envs: Record<Exclude<Profile, "raw" | "fake-adb" | "no-adb">, Record<string, string>> = {
    "wifi": wifi,
    "short-timeouts": {
      ...wifi,
      PHONE_EYE_ADB_TIMEOUT_MS: "1000",
      PHONE_EYE_VISION_TIMEOUT_MS: "500",
    },
    "no-serial": {
      ...base,
      PHONE_EYE_VISION_BASE_URL: `http://127.0.0.1:${closedPort()}/v1`,
      PHONE_EYE_VISION_API_KEY: KEY,
    },
    "no-phone": { ...base, ANDROID_SERIAL: `127.0.0.1:${closedPort()}` },
  };
  const eyes = new Map<string, PhoneEyeProcess>();
  /** The no-adb profile's main.ts, spoken to in raw lines (the raw rows share it). */
  let raw: RawPhoneEye | undefined;
  const rawEye = async () => {
    if (raw === undefined) {
      // Under the start task's runtime flags, as the other profiles' main.ts and production run.
      raw = await startRawPhoneEye({
        env: { ...base, PATH: "/nonexistent" },
        runtimeFlags: await startFlags(),
      });
      await raw.initialize();
    }
    return raw;
  };
  stack.defer(async () => {
    for (const eye of eyes.values()) await eye.close();
    await raw?.close();
    const pid = await forkedChild();
    if (pid !== null) Deno.kill(pid, "SIGKILL");
  });
  const eye = async (profile: keyof typeof envs) => {
    let running = eyes.get(profile);
    if (running === undefined) {
      running = await startPhoneEye({ env: envs[profile] });
      eyes.set(profile, running);
    }
    return running;
  };

  const reset = async (server: OpenAiServer) => {
    for (const phone of [sim, sim2]) phone.faults.clear();
    await world.adbMisbehaves(null);
    server.set({
      apiKey: KEY,
      status: undefined,
      headers: undefined,
      delayMs: undefined,
      echoAuthHeader: undefined,
      flood: undefined,
      answer: undefined,
    });
  };

  async function callTool(c: ReliabilityCase, call: { tool: string; args?: unknown }) {
    const args = typeof call.args === "function" ? call.args(world) : call.args ?? {};
    if (c.profile === "fake-adb") {
      const adb = fakeAdb(
        (c.adb ?? []).map((
          a,
        ) => [a.match, exited(a.code, "", a.stderr, { cutShort: a.cutShort === true })]),
      );
      const device = createDevice({ run: adb.run, serial: undefined, timeoutMs: 1000 });
      const mcp = await connectInProcess({ device });
      try {
        return await mcp.client.callTool({ name: call.tool, arguments: args });
      } finally {
        await mcp.close();
      }
    }
    if (c.profile === "no-adb") {
      const eye = await rawEye();
      const id = `call-${c.id}`;
      await eye.write(
        `${
          JSON.stringify({
            jsonrpc: "2.0",
            id,
            method: "tools/call",
            params: { name: call.tool, arguments: args },
          })
        }\n`,
      );
      const answer = await eye.until((m) => m.id === id);
      // A JSON-RPC error reaches run() as the SDK client throws one: a code and a message.
      if (answer.error !== undefined) throw answer.error;
      return answer.result as { isError?: boolean; content: unknown[] };
    }
    const client = (await eye(c.profile as keyof typeof envs)).client;
    return await client.callTool({ name: call.tool, arguments: args });
  }

  async function run(c: ReliabilityCase): Promise<Seen> {
    if ("line" in c.call) {
      const raw = await rawEye();
      await raw.write(`${c.call.line()}\n`);
      const answer = await raw.until((m) => m.error !== undefined && m.id === null);
      // It keeps serving: the next request is answered.
      await raw.write(
        `${JSON.stringify({ jsonrpc: "2.0", id: `after-${c.id}`, method: "ping" })}\n`,
      );
      assert.deepEqual((await raw.until((m) => m.id === `after-${c.id}`)).result, {});
      return { isError: true, text: answer.error!.message, code: answer.error!.code };
    }
    try {
      const result = await callTool(c, c.call);
      return { isError: result.isError === true, text: textOf(result) };
    } catch (error) {
      const e = error as { code?: number; message?: string };
      assert.equal(typeof e.code, "number", `${c.id}: ${String(error)}`);
      return { isError: true, text: e.message ?? "", code: e.code! };
    }
  }

  const phones = [sim, sim2];
  const ranCount = (tool: string) => phones.reduce((n, p) => n + p.toolCalls(tool).length, 0);
  const receivedCount = (command: RegExp) =>
    phones.reduce((n, p) => n + p.commands().filter((c) => command.test(c)).length, 0);

  const moved = stack.move();
  return {
    check,
    async checkClean() {
      for (const phone of phones) {
        assert.equal(await Deno.lstat(phone.marker).then(() => true, () => false), false);
      }
      for (const running of [...eyes.values(), ...(raw === undefined ? [] : [raw])]) {
        assert.ok(!running.stderr().includes(KEY));
      }
    },
    [Symbol.asyncDispose]: () => moved.disposeAsync(),
  };

  async function check(c: ReliabilityCase): Promise<void> {
    const { expect } = c;
    const ranBefore = expect.ran ? ranCount(expect.ran.tool) : 0;
    const receivedBefore = expect.received ? receivedCount(expect.received.command) : 0;
    const connectionsBefore = sim.connections();
    await c.arrange?.(world);
    let seen: Seen;
    try {
      seen = await run(c);
    } finally {
      await reset(vision);
    }
    const label = `${c.id}: ${seen.text.slice(0, 600)}`;
    assert.equal(seen.isError, expect.isError, label);
    const text = expect.section ? section(seen.text, expect.section) : seen.text;
    assert.match(text, expect.says, label);
    if (expect.code !== undefined) assert.equal(seen.code, expect.code, label);
    if (expect.never) assert.ok(!seen.text.includes(expect.never(world)), `${c.id} leaked`);
    if (expect.ran) {
      assert.equal(ranCount(expect.ran.tool) - ranBefore, expect.ran.times, `${c.id}: ran`);
    }
    if (expect.received) {
      assert.equal(
        receivedCount(expect.received.command) - receivedBefore,
        expect.received.times,
        `${c.id}: received`,
      );
    }
    if (expect.reconnects !== undefined) {
      assert.equal(
        sim.connections() - connectionsBefore,
        expect.reconnects,
        `${c.id}: reconnects`,
      );
    }
    assert.doesNotMatch(seen.text, /\n\s+at |unexpected/i, `${c.id}: ${seen.text}`);
    await c.verify?.(world);
  }
}

// One adb server, two simulated phones, one vision server and one phone-eye per profile serve
// every row: a row's own test runs its fault against them, and resets the faults it armed. The
// sanitizers are off for the rows because those shared processes' sockets outlive each row; they
// are closed in afterAll.
let table: Table | undefined;
Deno.test.beforeAll(async () => {
  table = await startTable();
});
Deno.test.afterAll(async () => {
  await table?.[Symbol.asyncDispose]();
});

for (const c of RELIABILITY_CASES) {
  Deno.test({
    name: `reliability row ${c.id}: ${c.fault}`,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: () => within(ROW_DEADLINE_MS, `row ${c.id}`, table!.check(c)),
  });
}

Deno.test({
  name:
    "after every reliability row: no injection ran on either phone, and the key is in no stderr",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () => table!.checkClean(),
});
