// The real runner against real `sh` scripts standing in for adb: output caps, a deadline that holds
// when a forked process keeps the pipes open, the allowlisted environment, spawn errors by cause.

import assert from "node:assert/strict";
import { screencapPngCommand, uiDumpCommand } from "../../lib/adb/screen_commands.ts";
import { createDevice } from "../../lib/adb/device.ts";
import { classifyAdbFailure } from "../../lib/adb/classify.ts";
import { ADB_ENV_NAMES } from "../../lib/config/env_vars.ts";
import {
  adbEnvironment,
  createAdbRunner,
  DRAIN_GRACE_MS,
  OUTPUT_CAPS,
  STDERR_CAP,
} from "../../lib/adb/runner.ts";
import { rejectsWith } from "../helpers/fake_adb.ts";

/** A fake `adb`: a real sh script in a temp folder, removed by the test's own finally. */
async function script(dir: string, name: string, body: string): Promise<string> {
  const path = `${dir}/${name}`;
  await Deno.writeTextFile(path, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return path;
}

/**
 * A process's state letter ("S", "Z", …), or null once it is gone. Read through `ps`: Deno lets
 * only --allow-all read /proc, and the tests run under the narrower test set.
 */
async function procState(pid: number): Promise<string | null> {
  const { code, stdout } = await new Deno.Command("ps", {
    args: ["-o", "stat=", "-p", String(pid)],
    stderr: "null",
  }).output();
  return code === 0 ? new TextDecoder().decode(stdout).trim().slice(0, 1) : null;
}

/** Kills a process the test started and waits until it is gone or a zombie (no longer running). */
async function killAndWait(pid: number): Promise<void> {
  try {
    Deno.kill(pid, "SIGKILL");
  } catch {
    // Already gone.
  }
  const deadline = Date.now() + 5_000;
  for (;;) {
    const state = await procState(pid);
    if (state === null || state === "Z") return;
    if (Date.now() > deadline) throw new Error(`process ${pid} still ${state} after SIGKILL`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** True while a process whose command line contains `needle` is running (pgrep skips zombies). */
async function running(needle: string): Promise<boolean> {
  const { code } = await new Deno.Command("pgrep", { args: ["-f", needle], stdout: "null" })
    .output();
  return code === 0;
}

const MiB = 1024 * 1024;
/** What the scripts need to find head and sleep; the runner passes nothing else. */
const SH_ENV = { PATH: "/usr/bin:/bin" };

Deno.test("an adb that floods stdout past the cap is killed and the agent reads why, per command kind", async () => {
  const dir = await Deno.makeTempDir({ prefix: "phone_eye_flood_" });
  try {
    // One byte past each cap, then it would hang on: only a kill at the cap ends it before the
    // 20 s deadline. `exec` makes the hang adb itself, so nothing outlives the kill.
    const adb = await script(
      dir,
      "adb",
      `case "$*" in
  *exec-out*) n=${OUTPUT_CAPS.image + 1} ;;
  *) n=${OUTPUT_CAPS.text + 1} ;;
esac
head -c "$n" /dev/zero
exec sleep 30`,
    );
    const device = createDevice({
      run: createAdbRunner({ binary: adb, env: SH_ENV }),
      serial: undefined,
      timeoutMs: 20_000,
    });
    await rejectsWith(
      device.run(screencapPngCommand()),
      "TOO_LARGE",
      /^the phone sent more than 64 MiB for a screenshot.*so adb was stopped; .*restart the phone/,
    );
    await rejectsWith(
      device.run(uiDumpCommand("/data/local/tmp/x.xml")),
      "TOO_LARGE",
      /^the phone sent more than 16 MiB of text for "adb shell uiautomator dump/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("output in many reads comes back whole and in order, stdout and stderr alike", async () => {
  const dir = await Deno.makeTempDir({ prefix: "phone_eye_reads_" });
  try {
    // 300,001 bytes that differ byte to byte, written in uneven pieces: many reads, several
    // doublings of the output, an odd length at the end.
    const data = Uint8Array.from({ length: 300_001 }, (_, i) => (i * 7919 + (i >> 8)) & 255);
    await Deno.writeFile(`${dir}/data`, data);
    const adb = await script(
      dir,
      "adb",
      `head -c 1000 "${dir}/data"; printf 'warn ' >&2
tail -c +1001 "${dir}/data" | head -c 150000; printf 'ing' >&2
tail -c +151001 "${dir}/data"`,
    );
    const outcome = await createAdbRunner({ binary: adb, env: SH_ENV })(["exec-out", "x"], {
      timeoutMs: 20_000,
      output: "image",
    });
    assert.equal(outcome.kind, "exited");
    if (outcome.kind !== "exited") return;
    assert.equal(outcome.stdout.length, data.length);
    assert.deepEqual(outcome.stdout, data);
    assert.equal(outcome.stderr, "warn ing");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an adb that floods stderr is stopped at 1 MiB, and exactly the cap is still accepted", async () => {
  const dir = await Deno.makeTempDir({ prefix: "phone_eye_flood_" });
  try {
    const loud = await script(
      dir,
      "loud",
      `head -c ${STDERR_CAP + 1} /dev/zero >&2\nexec sleep 30`,
    );
    const run = createAdbRunner({ binary: loud, env: SH_ENV });
    const outcome = await run(["devices"], { timeoutMs: 20_000, output: "text" });
    assert.deepEqual(outcome, {
      kind: "too-large",
      stream: "stderr",
      capBytes: STDERR_CAP,
      output: "text",
    });
    const result = classifyAdbFailure(outcome, {
      serial: undefined,
      command: "devices",
      acts: false,
    });
    assert.ok(!result.ok);
    assert.match(result.error.message, /adb wrote more than 1 MiB of error text for "adb devices"/);

    const full = await script(dir, "full", `head -c ${OUTPUT_CAPS.text} /dev/zero`);
    const fits = await createAdbRunner({ binary: full, env: SH_ENV })(["shell", "x"], {
      timeoutMs: 20_000,
      output: "text",
    });
    assert.equal(fits.kind, "exited");
    assert.equal(fits.kind === "exited" && fits.stdout.length, 16 * MiB);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the deadline holds when adb forked a process that keeps its pipes open", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "phone_eye_fork_" });
  const token = `${29 + Math.random()}`.slice(0, 12); // a sleep no other process runs
  const pids: number[] = [];
  try {
    // A wrapper (as some adb shims are) that forks a child holding stdout and stderr, then waits.
    // SIGKILL reaches the wrapper only; the child keeps the pipes open for 30 s.
    const wrapper = await script(
      dir,
      "adb",
      `sleep ${token} &
echo $! > "${dir}/child.pid"
echo partial
[ "$1" = "exit" ] && exit 0
wait`,
    );
    const run = createAdbRunner({ binary: wrapper, env: SH_ENV });
    const childPid = async () => {
      const pid = Number(await Deno.readTextFile(`${dir}/child.pid`));
      pids.push(pid);
      return pid;
    };

    await t.step("a timed-out adb answers within its deadline plus the grace", async () => {
      const outcome = await run(["shell", "input tap 1 2"], { timeoutMs: 500, output: "text" });
      assert.equal(outcome.kind, "timeout");
      assert.equal(
        outcome.kind === "timeout" && new TextDecoder().decode(outcome.stdout),
        "partial\n",
      );
      // The answer came while the forked child still held the pipes: it was not waited for.
      const pid = await childPid();
      assert.notEqual(await procState(pid), null);
      assert.notEqual(await procState(pid), "Z");
      await killAndWait(pid);
    });

    await t.step(
      "an adb that exits while its child holds the pipes answers after the grace",
      async () => {
        const outcome = await run(["exit"], { timeoutMs: 20_000, output: "text" });
        assert.equal(outcome.kind, "exited");
        assert.equal(outcome.kind === "exited" && outcome.code, 0);
        assert.equal(
          outcome.kind === "exited" && new TextDecoder().decode(outcome.stdout),
          "partial\n",
        );
        const pid = await childPid();
        assert.notEqual(
          await procState(pid),
          "Z",
          `the child must outlive the answer (${DRAIN_GRACE_MS} ms grace)`,
        );
        await killAndWait(pid);
      },
    );
  } finally {
    for (const pid of pids) await killAndWait(pid);
    assert.equal(await running(`sleep ${token}`), false, "a forked sleep was left behind");
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("adb gets only the allowlisted environment: no vision key, adb's own settings kept", async () => {
  const dir = await Deno.makeTempDir({ prefix: "phone_eye_env_" });
  try {
    const printenv = await script(dir, "adb", "exec /usr/bin/env");
    const env = adbEnvironment((name) =>
      ({
        PATH: "/usr/bin:/bin",
        HOME: dir,
        ANDROID_ADB_SERVER_PORT: "5099",
        ADB_MDNS: "0",
        PHONE_EYE_VISION_API_KEY: "pe-test-key-3f9a1c77",
        AWS_SECRET_ACCESS_KEY: "nope",
      } as Record<string, string>)[name]
    );
    assert.deepEqual(env, {
      PATH: "/usr/bin:/bin",
      HOME: dir,
      ANDROID_ADB_SERVER_PORT: "5099",
      ADB_MDNS: "0",
    });
    const outcome = await createAdbRunner({ binary: printenv, env })(["version"], {
      timeoutMs: 20_000,
      output: "text",
    });
    assert.equal(outcome.kind, "exited");
    const seen = new TextDecoder().decode(outcome.kind === "exited" ? outcome.stdout : undefined)
      .split("\n").filter(Boolean).map((line) => line.slice(0, line.indexOf("=")));
    // sh may add PWD of its own; everything else is exactly what was allowed.
    assert.deepEqual(seen.filter((name) => name !== "PWD").sort(), Object.keys(env).sort());
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "deno.json's production set grants every variable adb is given, so none needs a prompt",
  permissions: { read: true },
  async fn() {
    const denoJson = JSON.parse(
      await Deno.readTextFile(new URL("../../deno.json", import.meta.url)),
    );
    const granted = new Set<string>(denoJson.permissions.default.env);
    assert.deepEqual(ADB_ENV_NAMES.filter((name) => !granted.has(name)), []);
  },
});

Deno.test("spawn errors are labelled by their cause: only NotFound means adb is missing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "phone_eye_spawn_" });
  try {
    const limits = { timeoutMs: 5_000, output: "text" } as const;
    const ctx = { serial: undefined, command: "shell x", acts: true };
    const notExecutable = `${dir}/adb`;
    await Deno.writeTextFile(notExecutable, "not a program", { mode: 0o644 });
    const cases: Array<[string, readonly string[], string, RegExp]> = [
      [`${dir}/missing`, ["version"], "ADB_NOT_FOUND", /adb was not found on PATH/],
      [
        notExecutable,
        ["version"],
        "ADB_NOT_STARTED",
        /^adb could not be started \(PermissionDenied\): the adb found on PATH is not executable/,
      ],
      [
        "/bin/true",
        ["shell", "am start -d 'x\0y'"],
        "ADB_NOT_STARTED",
        /^adb could not be started \(TypeError: nul byte found in provided data\)/,
      ],
    ];
    for (const [binary, args, code, message] of cases) {
      const outcome = await createAdbRunner({ binary, env: {} })(args, limits);
      assert.equal(outcome.kind, "spawn-failed", binary);
      const result = classifyAdbFailure(outcome, ctx);
      assert.ok(!result.ok);
      assert.equal(result.error.code, code, result.error.message);
      assert.match(result.error.message, message);
      assert.doesNotMatch(result.error.message, /x\0y/);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a cancel kills adb at once and drops its output; a signal aborted before never spawns", async () => {
  const dir = await Deno.makeTempDir({ prefix: "phone_eye_cancel_" });
  try {
    // adb as exec'd `sleep`, so the pid the runner spawns is the one that sleeps.
    const adb = await script(dir, "adb", `echo "$$" > "${dir}/pid"\necho partial\nexec sleep 30`);
    const run = createAdbRunner({ binary: adb, env: SH_ENV });
    const cancel = new AbortController();
    // The script writes its pid before it sleeps: watched from before the spawn, so no write is
    // missed, and read on each event of the folder.
    const watcher = Deno.watchFs(dir);
    const outcome = run(["exec-out", "screencap -p"], {
      timeoutMs: 60_000,
      output: "image",
      signal: cancel.signal,
    });
    try {
      for await (const _ of watcher) {
        if ((await Deno.readTextFile(`${dir}/pid`).catch(() => "")).trim() !== "") break;
      }
    } finally {
      watcher.close();
    }
    const pid = Number((await Deno.readTextFile(`${dir}/pid`)).trim());
    cancel.abort();
    assert.deepEqual(await outcome, { kind: "cancelled" });
    const state = await procState(pid);
    assert.ok(state === null || state === "Z", `adb still ${state} after its answer`);
    const never = createAdbRunner({
      binary: await script(dir, "adb2", `touch "${dir}/spawned"`),
      env: SH_ENV,
    });
    assert.deepEqual(
      await never(["version"], { timeoutMs: 1000, output: "text", signal: AbortSignal.abort() }),
      { kind: "cancelled" },
    );
    assert.equal(await Deno.stat(`${dir}/spawned`).then(() => true, () => false), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
