// The sandbox, shown by doing: main.ts and a probe module run as subprocesses under the production
// permission flags, against the simulated phone and real local servers.

import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { textOf } from "../helpers/in_process.ts";
import { testPermissionFlags } from "../helpers/phone_eye.ts";
import { closing, SMALL_PHONE, startRig, tempDir } from "../helpers/rig.ts";
import { DEFAULT_ANSWER, startOpenAiServer } from "../fixtures/openai_server.ts";
import type { ProbeInput } from "../fixtures/sandbox_probe.ts";

const ROOT = new URL("../..", import.meta.url).pathname;
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** The names in a folder, sorted. */
async function names(dir: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) found.push(entry.name);
  return found.sort();
}

// ---- main.ts under the production flags ----

Deno.test("under the production set every verb works against the simulated phone", async () => {
  const flags = await testPermissionFlags();
  assert.ok(flags.includes("--allow-run=adb") && flags.includes("--allow-net=127.0.0.1"));
  assert.ok(flags.every((f) => !/^--allow-(read|write|sys|ffi|import|all)\b/.test(f)), `${flags}`);

  await using vision = closing(startOpenAiServer());
  await using r = await startRig({
    phones: [SMALL_PHONE],
    env: { PHONE_EYE_VISION_BASE_URL: vision.url },
  });
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = await r.client.callTool({ name, arguments: args });
    assert.notEqual(result.isError, true, `${name}: ${textOf(result)}`);
    return result;
  };

  const look = textOf(await call("phone_look", { question: "Where is Notes?" }));
  assert.ok(look.includes(`[vision]\n${DEFAULT_ANSWER}`), look);
  assert.equal(vision.requests.length, 1);
  assert.equal(vision.requests[0]?.headers.authorization, undefined, "keyless server");
  assert.ok(vision.requests[0]?.image, "the screenshot reached the vision server");
  const notes = /Notes @ \[(\d+),(\d+)\]\[(\d+),(\d+)\]/.exec(look);
  assert.ok(notes, look);
  const [x1, y1, x2, y2] = notes.slice(1).map(Number) as [number, number, number, number];

  const shot = await call("phone_shot");
  const parts = shot.content as Array<{ type: string; text?: string }>;
  assert.equal(parts[0]?.type, "image");
  assert.doesNotMatch(parts[1]?.text ?? "", /Saved|PHONE_EYE_SHOTS/);

  // The acting verbs answer at once: a settled action under this same set reads the screen with
  // the same adb grant (e2e_hand_test.ts, the Notes tap).
  await call("phone_tap", { x: (x1 + x2) >> 1, y: (y1 + y2) >> 1, settle: false });
  assert.equal(r.sim.screen().name, "notes");
  await call("phone_type", { text: "sandboxed", settle: false });
  assert.equal(r.sim.screen().text, "sandboxed");
  await call("phone_key", { key: "back", settle: false });
  assert.equal(r.sim.screen().name, "home");
  await call("phone_intent", { package: "com.android.settings", settle: false });
  assert.equal(r.sim.screen().name, "settings");
  await call("phone_swipe", { x1: 180, y1: 600, x2: 180, y2: 200, settle: false });
  assert.deepEqual(r.sim.toolCalls("input").at(-1), [
    "swipe",
    "180",
    "600",
    "180",
    "200",
    "300",
  ]);
});

/** A TCP listener on 127.0.0.2 in its own process (the test set may not bind there), counting connections. */
async function startOtherHostListener() {
  const script = `
    const listener = Deno.listen({ hostname: "127.0.0.2", port: 0 });
    // Prove the address answers before counting, so a count of zero means "nothing tried".
    const self = await Deno.connect({ hostname: "127.0.0.2", port: listener.addr.port });
    (await listener.accept()).close();
    self.close();
    console.log("ready " + listener.addr.port);
    for await (const conn of listener) { console.log("connection"); conn.close(); }
  `;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-config", "--no-prompt", "--allow-net=127.0.0.2", "-"],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(script));
  await writer.close();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!/ready \d+\n/.test(seen)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the 127.0.0.2 listener did not start: ${seen}`);
    seen += value;
  }
  const port = Number(/ready (\d+)/.exec(seen)![1]);
  return {
    port,
    /** Stops the listener and returns how many connections reached it. */
    async stop(): Promise<number> {
      child.kill("SIGTERM");
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        seen += value;
      }
      await child.status;
      return seen.split("\n").filter((line) => line === "connection").length;
    },
  };
}

Deno.test("a vision host outside the set is refused by the sandbox, named, with the compile command, and the server keeps serving", async () => {
  const other = await startOtherHostListener();
  let connections = -1;
  try {
    await using ungranted = await tempDir("phone_eye_ungranted_shots_");
    await using r = await startRig({
      phones: [SMALL_PHONE],
      env: {
        PHONE_EYE_VISION_BASE_URL: `http://127.0.0.2:${other.port}/v1`,
        // Set, but the flags grant no folder: nothing may be written there either.
        PHONE_EYE_SHOTS: ungranted.path,
      },
    });
    for (const attempt of [1, 2]) {
      // The bound turns a hang into a failure instead of the SDK's 60 s default.
      const look = await r.client.callTool({ name: "phone_look", arguments: {} }, {
        timeout: 15_000,
      });
      const text = textOf(look);
      assert.notEqual(look.isError, true, text);
      const vision = /\[vision\]\n(.*)\n/.exec(text)?.[1] ?? "";
      assert.match(
        vision,
        /^Vision unavailable: Deno's permissions refused network access to 127\.0\.0\.2\b/,
      );
      assert.match(vision, /may only reach the vision host\(s\) it was granted/);
      assert.match(
        vision,
        new RegExp(
          `build a binary for this one with: deno task compile --vision-host 127\\.0\\.0\\.2(:${other.port})?$`,
        ),
        `attempt ${attempt}`,
      );
      assert.match(text, /\[ui-tree\]\n.*Notes @ \[/s, "the tree still comes back");
    }
    const shot = await r.client.callTool({ name: "phone_shot", arguments: {} });
    const parts = shot.content as Array<{ type: string; text?: string }>;
    assert.equal(parts[0]?.type, "image", "the screenshot still comes back");
    // In phone-eye's words, not Deno's: both grants, scoped to that folder.
    const unsaved = parts[1]?.text ?? "";
    const dir = ungranted.path.replaceAll(".", "\\.");
    assert.match(
      unsaved,
      new RegExp(
        `Not saved to PHONE_EYE_SHOTS \\(${dir}\\): this phone-eye may not use that folder .*--allow-read=${dir} --allow-write=${dir}\\.$`,
      ),
    );
    assert.doesNotMatch(unsaved, /run again with the --allow-write flag/);
    const tap = await r.client.callTool({
      name: "phone_tap",
      arguments: { x: 10, y: 10, settle: false },
    });
    assert.notEqual(tap.isError, true, textOf(tap));
    assert.doesNotMatch(r.stderr(), /requests? net access|Allow\?/, "no permission prompt");
    await r.eye.close();
    assert.deepEqual(await names(ungranted.path), [], "nothing written to an ungranted folder");
  } finally {
    connections = await other.stop();
  }
  assert.equal(connections, 0, "a connection reached 127.0.0.2");
});

Deno.test("a symlink planted in the shots folder is never followed: screenshots land as new regular files inside it", async () => {
  await using root = await tempDir("phone_eye_symlinks_");
  const shots = join(root.path, "shots");
  const outside = join(root.path, "outside");
  const target = join(outside, "target.txt");
  await Deno.mkdir(shots);
  await Deno.mkdir(outside);
  await Deno.writeTextFile(target, "outside the shots folder; must stay as it is\n");
  const targetBefore = await Deno.stat(target);
  const planted: Record<string, string> = {
    // Shaped like phone-eye's own names (phone-eye-<ISO stamp>-<8 hex>.png).
    "phone-eye-2026-01-01T00-00-00-000Z-0badf00d.png": target,
    "latest.png": target,
    "dangling.png": join(outside, "made-through-a-link.png"),
    "sub": outside,
  };
  for (const [name, to] of Object.entries(planted)) await Deno.symlink(to, join(shots, name));

  await using r = await startRig({ phones: [SMALL_PHONE], shotsDir: shots });
  const saved: string[] = [];
  for (let i = 0; i < 3; i++) {
    const shot = await r.client.callTool({ name: "phone_shot", arguments: {} });
    const text = (shot.content as Array<{ text?: string }>)[1]?.text ?? "";
    const path = /Saved to (.+\.png)\./.exec(text)?.[1];
    assert.ok(path, text);
    saved.push(path);
  }
  await r.eye.close();
  assert.equal(new Set(saved).size, 3, "each screenshot gets a fresh name");
  for (const path of saved) {
    assert.equal(dirname(path), shots, path);
    const info = await Deno.lstat(path);
    assert.ok(info.isFile && !info.isSymlink, `${path} is a regular file`);
    assert.equal(info.mode! & 0o777, 0o600, `${path} is private to its owner`);
    assert.deepEqual([...(await Deno.readFile(path)).subarray(0, 8)], PNG_SIGNATURE);
  }
  const targetAfter = await Deno.stat(target);
  assert.equal(
    await Deno.readTextFile(target),
    "outside the shots folder; must stay as it is\n",
  );
  assert.equal(targetAfter.mtime?.getTime(), targetBefore.mtime?.getTime());
  assert.deepEqual(await names(outside), ["target.txt"]);
  for (const [name, to] of Object.entries(planted)) {
    assert.equal(await Deno.readLink(join(shots, name)), to, `${name} left as planted`);
  }
  assert.equal((await names(shots)).length, Object.keys(planted).length + 3);
});

// ---- a probe under the same flags ----

async function runProbe(flags: string[], input: ProbeInput, env: Record<string, string>) {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      ...flags,
      join(ROOT, "tests/fixtures/sandbox_probe.ts"),
      JSON.stringify(input),
    ],
    cwd: ROOT,
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: Deno.env.get("HOME") ?? "/",
      NO_COLOR: "1",
      // Planted so that a refusal means "not allowed", not "not there".
      USER: "probe-decoy-user",
      SHELL: "/bin/probe-decoy",
      AWS_SECRET_ACCESS_KEY: "probe-decoy-not-a-key",
      ...env,
    },
    stdin: "null",
  }).output();
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  return JSON.parse(new TextDecoder().decode(stdout)) as Record<string, string>;
}

const REFUSED_EVERYWHERE = [
  "run sh",
  "run /bin/sh",
  "run deno",
  "run node",
  "read /etc/passwd",
  "read outside file",
  "read repo deno.json",
  "list outside dir",
  "write outside file",
  "create outside file",
  "write /tmp",
  "env USER",
  "env SHELL",
  "env AWS_SECRET_ACCESS_KEY",
  "env toObject",
  "env set SHELL",
  "net 127.0.0.2",
  "net localhost",
  "fetch vision.invalid",
  "listen 127.0.0.2",
  "import code from 127.0.0.1",
  "net 127.0.0.1 after revoke",
  "ffi dlopen libc",
  "sys hostname",
  "sys osRelease",
  "sys networkInterfaces",
];

Deno.test("a probe under the production flags runs adb and uses the shots folder, and every other program, file, variable, host, import, ffi and sys call is refused", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "phone_eye_probe_" });
  const shots = join(root, "shots");
  const outside = join(root, "outside");
  const secret = "not for phone-eye\n";
  await Deno.mkdir(shots);
  await Deno.mkdir(outside);
  await Deno.writeTextFile(join(outside, "secret.txt"), secret);
  await Deno.writeTextFile(join(outside, "decoy.txt"), "decoy\n");
  await Deno.symlink(join(outside, "decoy.txt"), join(shots, "decoy-link.png"));
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const loopbackPort = listener.addr.port;
  const input: ProbeInput = {
    outsideDir: outside,
    repoFile: join(ROOT, "deno.json"),
    loopbackPort,
    otherPort: loopbackPort,
  };
  try {
    await t.step("with a shots folder granted", async () => {
      const report = await runProbe(
        await testPermissionFlags(shots),
        { ...input, shotsDir: shots },
        {
          PHONE_EYE_SHOTS: shots,
        },
      );
      assert.equal(report["run adb"], "ok: 0");
      assert.equal(report["net 127.0.0.1"], "ok", "the granted host is reachable until revoked");
      assert.equal(report["env PHONE_EYE_SHOTS"], `ok: ${shots}`);
      assert.equal(report["create in shots"], "ok: regular file");
      assert.equal(report["read in shots"], "ok: png");
      for (const name of REFUSED_EVERYWHERE) assert.equal(report[name], "NotCapable", name);
      assert.equal(
        report["request 127.0.0.1 again"],
        "ok: denied",
        "a revoked grant stays revoked",
      );
      // Deno checks the path as given, so the sandbox alone would follow a planted symlink out of
      // the folder; phone-eye's createNew (O_EXCL) is what refuses it. docs/security.md says so.
      assert.equal(report["write through shots symlink"], "ok");
      assert.equal(report["createNew through shots symlink"], "AlreadyExists");
      assert.equal(await Deno.readTextFile(join(outside, "secret.txt")), secret);
      assert.deepEqual(await names(outside), ["decoy.txt", "secret.txt"]);
    });

    await t.step(
      "without PHONE_EYE_SHOTS: no write or read grant at all, not even the would-be folder",
      async () => {
        const flags = await testPermissionFlags();
        assert.ok(flags.every((f) => !/^--allow-(read|write)\b/.test(f)), `${flags}`);
        await Deno.writeTextFile(join(shots, "secret.txt"), secret);
        // The folder PHONE_EYE_SHOTS would name stands in for "outside" here.
        const report = await runProbe(flags, { ...input, outsideDir: shots }, {});
        assert.equal(report["run adb"], "ok: 0");
        assert.equal(report["env PHONE_EYE_SHOTS"], "ok: (unset)");
        for (const name of REFUSED_EVERYWHERE) assert.equal(report[name], "NotCapable", name);
        assert.equal(report["query write (whole kind)"], "ok: prompt");
        assert.equal(report["query read (whole kind)"], "ok: prompt");
        assert.equal(await Deno.readTextFile(join(shots, "secret.txt")), secret);
        assert.ok(!(await Deno.lstat(join(shots, "new.txt")).then(() => true, () => false)));
      },
    );
  } finally {
    listener.close();
    await Deno.remove(root, { recursive: true });
  }
});
