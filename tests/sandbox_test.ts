// The sandbox, shown by doing: main.ts and a probe module run under the production permission
// flags, against the simulated phone and real local servers; plus the pure net-narrowing plan.

import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import denoJson from "../deno.json" with { type: "json" };
import type { VisionConfig } from "../lib/config.ts";
import { grantCovers, planNetNarrowing, queryTarget, visionHost } from "../lib/sandbox.ts";
import { planCompile } from "../scripts/compile.ts";
import { startAdbHarness } from "./helpers/adb_harness.ts";
import { textOf } from "./helpers/in_process.ts";
import { startPhoneEye, testPermissionFlags } from "./helpers/phone_eye.ts";
import { DEFAULT_ANSWER, startOpenAiServer } from "./fixtures/openai_server.ts";
import type { ProbeInput } from "./fixtures/sandbox_probe.ts";
import { startSimPhone } from "./sim/sim_phone.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const BAKED: readonly string[] = denoJson.permissions.default.net;
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** The names in a folder, sorted. */
async function names(dir: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) found.push(entry.name);
  return found.sort();
}

const direct = (baseUrl: string): VisionConfig => ({
  route: "direct",
  baseUrl,
  apiKey: undefined,
  model: "m",
  timeoutMs: 1000,
});

// ---- the plan (pure) ----

Deno.test({
  name: "grantCovers reads host, host:port, wildcard and IPv4 range entries as --allow-net does",
  permissions: "none",
  fn() {
    const cases: [entry: string, host: string, covered: boolean][] = [
      ["127.0.0.1", "127.0.0.1", true],
      ["localhost", "127.0.0.1", false],
      ["127.0.0.1", "localhost", false],
      ["[::1]", "[::1]", true],
      ["api.openai.com", "api.openai.com", true],
      ["API.OpenAI.com", "api.openai.com", true],
      ["api.openai.com", "evil.api.openai.com", false],
      ["api.openai.com", "api.openai.com.evil.test", false],
      ["192.168.1.50:8080", "192.168.1.50", true],
      ["*.example.com", "vision.example.com", true],
      ["*.example.com", "example.com.evil.test", false],
      ["10.0.0.0/8", "10.1.2.3", true],
      ["10.0.0.0/8", "11.0.0.1", false],
      ["10.0.0.0/8", "api.openai.com", false],
      ["172.16.0.0/12", "172.31.255.254", true],
      ["172.16.0.0/12", "172.32.0.1", false],
      ["192.168.0.0/16", "192.168.1.50", true],
      ["192.168.0.0/16", "192.169.0.1", false],
    ];
    for (const [entry, host, covered] of cases) {
      assert.equal(grantCovers(entry, host), covered, `${entry} covers ${host}`);
    }
  },
});

Deno.test({
  name: "visionHost names the host each vision route connects to, and none without vision",
  permissions: "none",
  fn() {
    assert.equal(visionHost(direct("http://127.0.0.1:8080/v1")), "127.0.0.1");
    assert.equal(visionHost(direct("https://API.OpenAI.com/v1")), "api.openai.com");
    assert.equal(
      visionHost({ route: "mcp", url: "http://[::1]:3000/mcp", tool: "t", timeoutMs: 1000 }),
      "[::1]",
    );
    assert.equal(visionHost({ route: "none" }), undefined);
  },
});

Deno.test({
  name: "planNetNarrowing keeps only the baked grant that covers the vision host",
  permissions: "none",
  fn() {
    const loopback = planNetNarrowing(BAKED, "127.0.0.1");
    assert.deepEqual(loopback.keep, ["127.0.0.1"]);
    assert.equal(loopback.unreachable, false);
    assert.equal(loopback.revoke.length, BAKED.length - 1);
    assert.ok(!loopback.revoke.includes("127.0.0.1"));
    // A CIDR string matches no grant, so a range is revoked through its first address.
    for (const target of ["localhost", "[::1]", "10.0.0.1", "172.16.0.1", "192.168.0.1"]) {
      assert.ok(loopback.revoke.includes(target), target);
    }

    const hosted = planNetNarrowing(BAKED, "api.openai.com");
    assert.deepEqual(hosted.keep, ["api.openai.com"]);
    assert.ok(hosted.revoke.includes("127.0.0.1") && hosted.revoke.includes("openrouter.ai"));
  },
});

Deno.test({
  name: "planNetNarrowing revokes every baked grant when no vision is configured",
  permissions: "none",
  fn() {
    const none = planNetNarrowing(BAKED, undefined);
    assert.deepEqual(none.keep, []);
    assert.equal(none.unreachable, false);
    assert.equal(none.revoke.length, BAKED.length);
  },
});

Deno.test({
  name: "planNetNarrowing keeps a LAN vision host's whole private range and revokes the rest",
  permissions: "none",
  fn() {
    for (
      const [host, range] of [
        ["10.1.2.3", "10.0.0.0/8"],
        ["172.20.0.5", "172.16.0.0/12"],
        ["192.168.1.50", "192.168.0.0/16"],
      ] as const
    ) {
      const plan = planNetNarrowing(BAKED, host);
      assert.deepEqual(plan.keep, [range], host);
      // Revoking any address inside the kept range would take the whole range with it.
      assert.ok(plan.revoke.every((target) => !grantCovers(range, target)), plan.revoke.join());
      assert.equal(plan.revoke.length, BAKED.length - 1, host);
      assert.ok(plan.revoke.includes("127.0.0.1") && plan.revoke.includes("api.openai.com"));
    }
  },
});

Deno.test({
  name: "planNetNarrowing marks a host outside the allowlist unreachable and revokes everything",
  permissions: "none",
  fn() {
    for (const host of ["vision.example.com", "127.0.0.2", "172.32.0.1"]) {
      const plan = planNetNarrowing(BAKED, host);
      assert.deepEqual(plan.keep, [], host);
      assert.equal(plan.unreachable, true, host);
      assert.equal(plan.revoke.length, BAKED.length, host);
    }
  },
});

Deno.test({
  name: "queryTarget checks a range at its last host, not the address its revocation named",
  permissions: "none",
  fn() {
    assert.equal(queryTarget("10.0.0.0/8"), "10.255.255.254");
    assert.equal(queryTarget("172.16.0.0/12"), "172.31.255.254");
    assert.equal(queryTarget("192.168.0.0/16"), "192.168.255.254");
    assert.equal(queryTarget("192.168.7.9/32"), "192.168.7.9");
    assert.equal(queryTarget("api.openai.com"), "api.openai.com");
    assert.equal(queryTarget("[::1]"), "[::1]");
    for (const entry of BAKED.filter((e) => e.includes("/"))) {
      assert.ok(grantCovers(entry, queryTarget(entry)), entry);
      assert.ok(!planNetNarrowing(BAKED, undefined).revoke.includes(queryTarget(entry)), entry);
    }
  },
});

// ---- main.ts under the production flags ----

Deno.test("under the production set every verb works against the simulated phone", async () => {
  const flags = await testPermissionFlags();
  assert.ok(flags.includes("--allow-run=adb") && flags.includes("--allow-net=127.0.0.1"));
  assert.ok(flags.every((f) => !/^--allow-(read|write|sys|ffi|import|all)\b/.test(f)), `${flags}`);

  const sim = await startSimPhone();
  const adb = await startAdbHarness();
  const vision = startOpenAiServer();
  try {
    await adb.connect(sim.serial);
    const eye = await startPhoneEye({
      env: { ...adb.env, ANDROID_SERIAL: sim.serial, PHONE_EYE_VISION_BASE_URL: vision.url },
    });
    try {
      const call = async (name: string, args: Record<string, unknown> = {}) => {
        const result = await eye.client.callTool({ name, arguments: args });
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

      await call("phone_tap", { x: (x1 + x2) >> 1, y: (y1 + y2) >> 1 });
      assert.equal(sim.screen().name, "notes");
      await call("phone_type", { text: "sandboxed" });
      assert.equal(sim.screen().text, "sandboxed");
      await call("phone_key", { key: "back" });
      assert.equal(sim.screen().name, "home");
      await call("phone_intent", { package: "com.android.settings" });
      assert.equal(sim.screen().name, "settings");
      await call("phone_swipe", { x1: 540, y1: 1800, x2: 540, y2: 800 });
      assert.deepEqual(sim.toolCalls("input").at(-1), [
        "swipe",
        "540",
        "1800",
        "540",
        "800",
        "300",
      ]);
    } finally {
      await eye.close();
    }
  } finally {
    await vision.close();
    await adb.close();
    await sim.close();
  }
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
  const sim = await startSimPhone();
  const adb = await startAdbHarness();
  const ungranted = await Deno.makeTempDir({ prefix: "phone_eye_ungranted_shots_" });
  let connections = -1;
  try {
    await adb.connect(sim.serial);
    const eye = await startPhoneEye({
      env: {
        ...adb.env,
        ANDROID_SERIAL: sim.serial,
        PHONE_EYE_VISION_BASE_URL: `http://127.0.0.2:${other.port}/v1`,
        // Set, but the flags grant no folder: nothing may be written there either.
        PHONE_EYE_SHOTS: ungranted,
      },
    });
    try {
      for (const attempt of [1, 2]) {
        // The bound turns a hang into a failure instead of the SDK's 60 s default.
        const look = await eye.client.callTool({ name: "phone_look", arguments: {} }, {
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
      const shot = await eye.client.callTool({ name: "phone_shot", arguments: {} });
      const parts = shot.content as Array<{ type: string; text?: string }>;
      assert.equal(parts[0]?.type, "image", "the screenshot still comes back");
      assert.match(parts[1]?.text ?? "", /Not saved to PHONE_EYE_SHOTS \(.*\): .*write access/);
      const tap = await eye.client.callTool({ name: "phone_tap", arguments: { x: 10, y: 10 } });
      assert.notEqual(tap.isError, true, textOf(tap));
      assert.doesNotMatch(eye.stderr(), /requests? net access|Allow\?/, "no permission prompt");
    } finally {
      await eye.close();
    }
    assert.deepEqual(await names(ungranted), [], "nothing written to an ungranted folder");
  } finally {
    connections = await other.stop();
    await adb.close();
    await sim.close();
    await Deno.remove(ungranted, { recursive: true });
  }
  assert.equal(connections, 0, "a connection reached 127.0.0.2");
});

Deno.test("a symlink planted in the shots folder is never followed: screenshots land as new regular files inside it", async () => {
  const root = await Deno.makeTempDir({ prefix: "phone_eye_symlinks_" });
  const shots = join(root, "shots");
  const outside = join(root, "outside");
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

  const sim = await startSimPhone();
  const adb = await startAdbHarness();
  try {
    await adb.connect(sim.serial);
    const eye = await startPhoneEye({
      shotsDir: shots,
      env: { ...adb.env, ANDROID_SERIAL: sim.serial, PHONE_EYE_SHOTS: shots },
    });
    const saved: string[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const shot = await eye.client.callTool({ name: "phone_shot", arguments: {} });
        const text = (shot.content as Array<{ text?: string }>)[1]?.text ?? "";
        const path = /Saved to (.+\.png)\./.exec(text)?.[1];
        assert.ok(path, text);
        saved.push(path);
      }
    } finally {
      await eye.close();
    }
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
  } finally {
    await adb.close();
    await sim.close();
    await Deno.remove(root, { recursive: true });
  }
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
  "env HOME",
  "env PATH",
  "env AWS_SECRET_ACCESS_KEY",
  "env toObject",
  "env set PATH",
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
      // the folder; phone-eye's createNew (O_EXCL) is what refuses it. The README says so.
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

// ---- the README says what the set grants ----

Deno.test("the README's Permissions section names every grant of deno.json's default set", async () => {
  const readme = await Deno.readTextFile(join(ROOT, "README.md"));
  const start = readme.indexOf("\n## Permissions\n");
  assert.ok(start >= 0, "README.md has a Permissions section");
  const end = readme.indexOf("\n## ", start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const set = denoJson.permissions.default;
  for (const entry of [...set.run, ...set.env, ...set.net]) {
    assert.ok(section.includes(`\`${entry}\``), `the Permissions section does not name ${entry}`);
  }
  for (const kind of Object.keys(set)) {
    assert.ok(section.includes(`\`${kind}\``), `the Permissions section does not name ${kind}`);
  }
});

Deno.test("the README's compile example bakes exactly its vision host and shots folder", async () => {
  const readme = await Deno.readTextFile(join(ROOT, "README.md"));
  const example = /^deno task compile (--vision-host \S+.*)$/m.exec(readme)?.[1];
  assert.ok(example, "README.md shows a deno task compile --vision-host example");
  const values = Object.fromEntries(
    [...example.matchAll(/--([\w-]+) (\S+)/g)].map((m) => [m[1]!, m[2]!]),
  );
  const options = {
    visionHost: values["vision-host"]!,
    ...(values["shots-dir"] ? { shotsDir: values["shots-dir"] } : {}),
    ...(values["target"] ? { target: values["target"] } : {}),
  };
  const plan = planCompile(denoJson, options, "linux");
  assert.deepEqual(plan.permissions.net, [options.visionHost]);
  if (options.shotsDir) {
    assert.deepEqual(plan.permissions.read, [options.shotsDir]);
    assert.deepEqual(plan.permissions.write, [options.shotsDir]);
  }
});
