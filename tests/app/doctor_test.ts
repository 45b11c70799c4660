// `phone-eye --doctor`, --help and --version, end to end: main.ts as a subprocess under deno.json's
// full production set (vision hosts not swapped), the real adb and the simulated phone. What a run
// reports about adb, the phones and vision is checked in this process too (doctorHere), wired as
// main.ts wires it: a process start is spent only where the binary's own permissions are the claim.

import { createPhones } from "../../lib/adb/phones.ts";
import assert from "node:assert/strict";
import { canUnshare, sealed } from "../helpers/netns.ts";
import { dirname, join } from "node:path";
import denoJson from "../../deno.json" with { type: "json" };
import { createDevice } from "../../lib/adb/device.ts";
import { createLink } from "../../lib/adb/link.ts";
import { adbEnvironment, createAdbRunner } from "../../lib/adb/runner.ts";
import { realClock } from "../../lib/core/clock.ts";
import { loadConfig, VERSION } from "../../lib/config/config.ts";
import { formatChecks, runDoctor } from "../../lib/app/doctor.ts";
import { EXIT_GATES, exitStatusSentence } from "../../lib/app/doctor_check.ts";
import { TEST_CARD_PNG } from "../../lib/app/doctor_vision.ts";
import { planNetNarrowing, visionHost, visionPort } from "../../lib/app/sandbox.ts";
import { createVision } from "../../lib/vision/vision.ts";
import { readPngStream } from "../../lib/image/png_decode.ts";
import { permissionFlags, readPermissionSet } from "../../scripts/permissions.ts";
import { planCompile } from "../../scripts/compile.ts";
import { runtimeFlags } from "../../scripts/runtime_flags.ts";
import { denoDir } from "../helpers/phone_eye.ts";
import { fakeAdb } from "../helpers/fake_adb.ts";
import { closing, startRig, tempDir } from "../helpers/rig.ts";
import type { SimPhone } from "../../sim/sim_phone.ts";
import { startOpenAiServer } from "../fixtures/openai_server.ts";

const ROOT = new URL("../..", import.meta.url).pathname;
const BAKED: readonly string[] = denoJson.permissions.default.net;
const PRODUCTION = readPermissionSet(denoJson);
const START_FLAGS = runtimeFlags(denoJson);

Deno.test({
  name: "the doctor's constant test card decodes to its 64×64 grey-and-white squares",
  permissions: "none",
  async fn() {
    const { image, blank } = await readPngStream(TEST_CARD_PNG);
    assert.deepEqual([image.width, image.height, blank], [64, 64, null]);
    for (let y = 0; y < 64; y++) {
      for (let x = 0; x < 64; x++) {
        const grey = (x < 32) !== (y < 32) ? 230 : 90;
        const at = (y * 64 + x) * 4;
        assert.deepEqual(
          [...image.data.subarray(at, at + 4)],
          [grey, grey, grey, 255],
          `${x},${y}`,
        );
      }
    }
  },
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * main.ts with `args` under exactly `flags` and the start task's runtime flags, as `deno task
 * doctor` and the binaries run it: a clean environment plus `env`, stdin closed.
 */
async function runMain(
  args: string[],
  options: {
    flags?: string[];
    env?: Record<string, string>;
    cache: string;
    /** Run in a sealed network namespace where these "LAN" addresses are its own loopback. */
    sealedHosts?: string[];
  },
): Promise<Run> {
  const deno = [
    "run",
    "--no-prompt",
    ...START_FLAGS,
    ...(options.flags ?? permissionFlags(PRODUCTION)),
    join(ROOT, "main.ts"),
    ...args,
  ];
  const run = options.sealedHosts === undefined
    ? { command: Deno.execPath(), args: deno }
    : sealed(Deno.execPath(), deno, options.sealedHosts, {
      cleanup: "adb kill-server >/dev/null 2>&1",
    });
  const { code, stdout, stderr } = await new Deno.Command(run.command, {
    args: run.args,
    cwd: ROOT,
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      DENO_DIR: options.cache,
      NO_COLOR: "1",
      ...options.env,
    },
    stdin: "null",
  }).output();
  const decoder = new TextDecoder();
  return { code, stdout: decoder.decode(stdout), stderr: decoder.decode(stderr) };
}

/** The net grants --doctor reports as still granted, and those it reports revoked. */
function netReport(stdout: string): { granted: string[]; revoked: string[] } {
  const granted = [...stdout.matchAll(/^ +ok {2}net (\S+): granted/gm)].map((m) => m[1]!);
  const list = /^ +ok {2}net: (\d+) other baked grants revoked at start-up \((.*)\)$/m.exec(stdout);
  const revoked = list ? list[2]!.split(", ") : [];
  if (list) assert.equal(Number(list[1]), revoked.length);
  return { granted, revoked };
}

/** The title line of each check, "[ok] …", "[FAIL] …" or "[info] …". */
const titles = (stdout: string) =>
  stdout.split("\n").filter((line) => /^\[(ok|FAIL|info)\]/.test(line));

/** The ADB Keyboard line of a simulated phone without it (the sim's default). */
const NO_KEYBOARD = "[info] ADB Keyboard not installed: typing is ASCII only";

/**
 * The doctor in this process, wired as main.ts's doctor() wires it: loadConfig over `env`, the real
 * adb runner with `env`'s adb variables (its PATH included), the real vision client over fetch,
 * the same report. For claims about the report's words; the permissions check is left out, since
 * this process runs under the test set, not the binary's: the spawned runs check those.
 */
async function doctorHere(env: Record<string, string>): Promise<Run> {
  const read = (name: string) => env[name];
  const config = loadConfig(read, { keyInClear: "report" });
  const run = createAdbRunner({ binary: "adb", env: adbEnvironment(read) });
  const timeoutMs = config.adbTimeoutMs;
  const os = Deno.build.os;
  const phones = createPhones({
    set: config.phones,
    link: createLink({ run, timeoutMs, os }),
    makeDevice: (phone) => createDevice({ run, timeoutMs, os, ...phone }),
  });
  const vision = createVision(config.vision, { fetch: globalThis.fetch, clock: realClock });
  let checks;
  try {
    checks = (await runDoctor({
      config,
      phones,
      vision,
      query: async (descriptor) => (await Deno.permissions.query(descriptor)).state === "granted",
      build: { kind: "source", net: BAKED },
    })).filter((check) => check.gate !== "the permissions");
  } finally {
    await vision.close();
  }
  return {
    code: checks.every((c) => c.ok) ? 0 : 1,
    stdout: `phone-eye ${VERSION} --doctor\n${formatChecks(checks)}\n`,
    stderr: "",
  };
}

// An unknown flag (exit 2, the flags named on stderr, nothing on stdout) is run through the start
// task in tests/config/config_test.ts, under this same production set.
Deno.test("--help and --version exit 0 with the usage and the version on stdout", async () => {
  const cache = await denoDir();
  const [help, version] = await Promise.all([
    runMain(["--help"], { cache }),
    runMain(["--version"], { cache }),
  ]);
  assert.equal(help.code, 0, help.stderr);
  assert.match(
    help.stdout,
    /^Usage: phone-eye \[--serial SERIAL\] \[--http HOST:PORT \[--tls-cert FILE --tls-key FILE\]\]\n +\[--doctor \| --help \| --version\]$/m,
  );
  assert.match(help.stdout, /--doctor +check adb, the phone, the vision route and the permissions/);
  assert.equal(version.code, 0, version.stderr);
  assert.equal(version.stdout, `phone-eye ${VERSION}\n`);
  assert.equal(VERSION, denoJson.version, "the binary reports deno.json's version");
});

Deno.test("--doctor under the full production set: all green, and unconfigured vision keeps no host", async (t) => {
  const cache = await denoDir();
  await using vision = closing(startOpenAiServer({ answer: "OK" }));
  // The phone and the adb server; the --doctor run is a main.ts process of its own.
  await using rig = await startRig({ phoneEye: false });
  const sim = rig.sim;
  const phone = rig.env;
  const green = await runMain(["--doctor"], {
    cache,
    env: { ...phone, PHONE_EYE_VISION_BASE_URL: vision.url },
  });
  assert.doesNotMatch(green.stderr, /requests? \w+ access|Allow\?/, "no permission prompt");
  assert.match(green.stdout, new RegExp(`^phone-eye ${VERSION} --doctor\n`));

  await t.step(
    "all green: exit 0 with adb's version, the phone, the vision answer, the permissions and the shots policy",
    () => {
      assert.equal(green.code, 0, green.stdout + green.stderr);
      assert.deepEqual(titles(green.stdout), [
        "[ok] adb found",
        `[ok] phone reachable (${sim.serial})`,
        NO_KEYBOARD,
        `[ok] vision answers (direct route, http://127.0.0.1:${vision.port})`,
        "[ok] permissions as intended",
        "[ok] screenshots stay in memory",
      ]);
      assert.match(green.stdout, /^ +Android Debug Bridge version \d+\.\d+\.\d+/m);
      assert.match(green.stdout, /^ +SimPhone, Android 14, screen 1080×2400$/m);
      assert.match(green.stdout, /^ +answer: OK$/m);
      assert.match(green.stdout, /^ +ok {2}run adb: granted$/m);
      assert.match(green.stdout, /^ +ok {2}run sh \(anything but adb\): refused$/m);
      assert.match(green.stdout, /^ +ok {2}env: 13 of phone-eye's 13 variables readable$/m);
      assert.match(green.stdout, /^ +ok {2}env of anything else: refused$/m);
      assert.match(green.stdout, /^ +ok {2}read outside the screenshot folder: refused$/m);
      assert.match(green.stdout, /^ +ok {2}ffi: refused$/m);
      assert.match(green.stdout, /PHONE_EYE_SHOTS is unset: screenshots never touch disk/);
      assert.doesNotMatch(green.stdout, /!!/);
      assert.equal(vision.requests.filter((r) => r.image !== undefined).length >= 1, true);
    },
  );

  await t.step(
    "narrowing: vision on 127.0.0.1 keeps 127.0.0.1 and revokes every other baked host",
    () => {
      assert.deepEqual(netReport(green.stdout), {
        granted: ["127.0.0.1"],
        revoked: BAKED.filter((host) => host !== "127.0.0.1"),
      });
    },
  );

  // The run above shows main.ts revoking, at start-up, what the plan for its configuration names
  // (every baked host but 127.0.0.1) and the doctor reporting it; here the same plan is made for
  // a configuration without vision, and the doctor's words for it are read in this process.
  await t.step(
    "vision unconfigured is optional: exit 0 naming the variables to set, and no host stays granted",
    async () => {
      const noVision = await doctorHere(phone);
      assert.equal(noVision.code, 0, noVision.stdout);
      assert.deepEqual(titles(noVision.stdout), [
        "[ok] adb found",
        `[ok] phone reachable (${sim.serial})`,
        NO_KEYBOARD,
        "[ok] vision not configured (optional)",
        "[ok] screenshots stay in memory",
      ]);
      assert.match(
        noVision.stdout,
        /Set PHONE_EYE_VISION_API_KEY .* or PHONE_EYE_VISION_URL .*The hand verbs work without it/,
      );
      const config = loadConfig((name) => phone[name]);
      const plan = planNetNarrowing(BAKED, visionHost(config.vision), visionPort(config.vision));
      assert.deepEqual(plan.keep, []);
      assert.equal(plan.revoke.length, BAKED.length);
    },
  );
});

Deno.test("the doctor names each failure of adb, the phone and vision with its fix", async (t) => {
  await using vision = closing(startOpenAiServer({ answer: "OK" }));
  const gone = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const closedPort = gone.addr.port;
  gone.close();
  await using rig = await startRig({ phoneEye: false });
  const sim = rig.sim;
  const phone = rig.env;
  const good = { ...phone, PHONE_EYE_VISION_BASE_URL: vision.url };

  await t.step("vision settings given but invalid: exit 1 saying which one", async () => {
    const badVision = await doctorHere({ ...phone, PHONE_EYE_VISION_BASE_URL: "htp://x" });
    assert.equal(badVision.code, 1);
    assert.ok(titles(badVision.stdout).includes("[FAIL] vision settings invalid"));
    assert.match(badVision.stdout, /PHONE_EYE_VISION_BASE_URL must be an http/);
  });

  await t.step(
    "vision server down: exit 1 saying the connection was refused and which variable points there",
    async () => {
      const visionDown = await doctorHere({
        ...phone,
        PHONE_EYE_VISION_BASE_URL: `http://127.0.0.1:${closedPort}/v1`,
      });
      assert.equal(visionDown.code, 1);
      const endpoint = `http://127.0.0.1:${closedPort}`;
      assert.deepEqual(titles(visionDown.stdout), [
        "[ok] adb found",
        `[ok] phone reachable (${sim.serial})`,
        NO_KEYBOARD,
        `[FAIL] vision does not answer (direct route, ${endpoint})`,
        "[ok] screenshots stay in memory",
      ]);
      assert.ok(
        visionDown.stdout.includes(
          `Cannot reach ${endpoint}: connection refused; is the vision server running at ${endpoint}? If it lives elsewhere, set PHONE_EYE_VISION_BASE_URL`,
        ),
        visionDown.stdout,
      );
    },
  );

  await t.step("no phone: exit 1 with the adb connect hint; vision is still checked", async () => {
    const serial = `127.0.0.1:${closedPort}`;
    const noPhone = await doctorHere({ ...good, ANDROID_SERIAL: serial });
    assert.equal(noPhone.code, 1);
    assert.deepEqual(titles(noPhone.stdout), [
      "[ok] adb found",
      `[FAIL] phone not reachable (${serial})`,
      `[ok] vision answers (direct route, http://127.0.0.1:${vision.port})`,
      "[ok] screenshots stay in memory",
    ]);
    assert.ok(
      noPhone.stdout.includes(`no Android device reachable at ${serial}`) &&
        noPhone.stdout.includes(`adb connect ${serial}`),
      noPhone.stdout,
    );
    // The phone adb does see is named, in case the address was mistyped.
    assert.ok(noPhone.stdout.includes(`adb sees: ${sim.serial} (device)`), noPhone.stdout);
  });

  await t.step(
    "no adb on PATH: exit 1 saying how to install it, and the phone is not checked",
    async () => {
      const noAdb = await doctorHere({ ...good, PATH: "/nonexistent" });
      assert.equal(noAdb.code, 1);
      assert.deepEqual(titles(noAdb.stdout).slice(0, 2), [
        "[FAIL] adb not usable",
        "[FAIL] phone not checked",
      ]);
      assert.match(
        noAdb.stdout,
        /adb was not found on PATH; install it with .*apt-get install adb/,
      );
      assert.match(noAdb.stdout, /adb must work first/);
    },
  );
});

Deno.test("--doctor's words with two phones: the headline says so and names both; a mistyped serial lists them; ADB Keyboard is information", async (t) => {
  await using rig = await startRig({
    phones: [{}, { adbKeyboard: true }],
    serial: null,
    phoneEye: false,
  });
  const [plain, keyboard] = rig.sims as [SimPhone, SimPhone];
  const listed = (stdout: string, pattern: RegExp) => pattern.exec(stdout)?.[1]?.split(", ").sort();
  const pair = [plain, keyboard].map((sim) => `${sim.serial} (device)`).sort();

  await t.step(
    "no serial chosen: exit 1, headed 'more than one phone attached' with both",
    async () => {
      const both = await doctorHere(rig.env);
      assert.equal(both.code, 1, both.stdout);
      const headline = titles(both.stdout)[1] ?? "";
      assert.deepEqual(listed(headline, /^\[FAIL\] more than one phone attached: (.*)$/), pair);
      assert.match(both.stdout, /set ANDROID_SERIAL \(or start phone-eye with --serial\)/);
      assert.doesNotMatch(both.stdout, /phone not reachable|ADB Keyboard/);
    },
  );

  await t.step("a mistyped serial: not reachable, and the detail lists what adb sees", async () => {
    const typo = await doctorHere({ ...rig.env, ANDROID_SERIAL: "R58M123ABC" });
    assert.equal(typo.code, 1, typo.stdout);
    assert.equal(titles(typo.stdout)[1], "[FAIL] phone not reachable (R58M123ABC)");
    assert.deepEqual(
      listed(typo.stdout, /no Android device reachable at R58M123ABC; adb sees: (.*?); if/),
      pair,
    );
  });

  await t.step("PHONE_EYE_DEVICES: the allowed phones listed, then each one checked", async () => {
    const lab = await doctorHere({
      ...rig.env,
      PHONE_EYE_DEVICES: `${plain.serial},${keyboard.serial}`,
    });
    assert.equal(lab.code, 0, lab.stdout);
    assert.deepEqual(titles(lab.stdout).slice(1, 6), [
      "[info] PHONE_EYE_DEVICES: 2 phones; agents pick one with device",
      `[ok] phone reachable (${plain.serial})`,
      "[info] ADB Keyboard not installed: typing is ASCII only",
      `[ok] phone reachable (${keyboard.serial})`,
      "[info] ADB Keyboard installed: phone_type types any text",
    ]);
    assert.ok(lab.stdout.includes(`       ${plain.serial} (device)\n`), lab.stdout);
  });

  await t.step("the phone with ADB Keyboard: an [info] line saying so, and exit 0", async () => {
    const withKeyboard = await doctorHere({ ...rig.env, ANDROID_SERIAL: keyboard.serial });
    assert.equal(withKeyboard.code, 0, withKeyboard.stdout);
    assert.deepEqual(titles(withKeyboard.stdout).slice(1, 3), [
      `[ok] phone reachable (${keyboard.serial})`,
      "[info] ADB Keyboard installed: phone_type types any text",
    ]);
  });
});

Deno.test("docs/security.md says what the doctor's exit status depends on, in the words of EXIT_GATES", async () => {
  const doc = await Deno.readTextFile(join(ROOT, "docs/security.md"));
  const flat = (text: string) => text.replace(/\s+/g, " ");
  assert.ok(flat(doc).includes(exitStatusSentence()), exitStatusSentence());
  // Every check the doctor runs is one of those gates, or information that never fails.
  const config = loadConfig(() => undefined);
  const checks = await runDoctor({
    config,
    phones: createPhones({
      set: config.phones,
      link: createLink({ run: fakeAdb().run, timeoutMs: 1000 }),
      makeDevice: ({ serial }) => createDevice({ run: fakeAdb().run, serial, timeoutMs: 1000 }),
    }),
    vision: createVision(config.vision),
    query: () => Promise.resolve(false),
    build: { kind: "source", net: [] },
  });
  for (const check of checks) {
    assert.ok(check.info === true ? check.ok && check.gate === undefined : check.gate, check.title);
  }
  assert.deepEqual(checks.flatMap((c) => c.gate ?? []), [...EXIT_GATES]);
});

/**
 * The flags `deno task compile` would bake for `options`, plus its import map: `deno compile`
 * cannot run here, so main.ts runs under `deno run` with the same permission flags and the same
 * generated build-info module the binary would embed.
 */
async function auditedFlags(
  options: { visionHost: string; shotsDir?: string },
  dir: string,
): Promise<string[]> {
  const plan = planCompile(
    denoJson,
    { ...options, output: join(dir, "phone-eye") },
    "linux",
    ROOT,
  );
  for (const file of plan.files) {
    await Deno.mkdir(dirname(file.path), { recursive: true });
    await Deno.writeTextFile(file.path, file.text);
  }
  const map = plan.args[plan.args.indexOf("--import-map") + 1]!;
  return [...permissionFlags(plan.permissions), "--import-map", map];
}

Deno.test("an audited build passes its own doctor: it reports the net it was built with and checks the host with its port", async (t) => {
  const cache = await denoDir();
  await using vision = closing(startOpenAiServer({ answer: "OK" }));
  await using dir = await tempDir("phone_eye_audited_");
  await using rig = await startRig({ phoneEye: false });
  const sim = rig.sim;
  const phone = rig.env;
  const host = `127.0.0.1:${vision.port}`;
  const flags = await auditedFlags({ visionHost: host }, join(dir.path, "a"));
  // docs/permissions.md's own example, 192.168.1.50:8080 with a shots folder, under its own flags.
  const readme = { visionHost: "192.168.1.50:8080", shotsDir: "/srv/phone-eye/shots" };
  const readmeFlags = await auditedFlags(readme, join(dir.path, "b"));
  // A screenshot folder the first build was not given: refused like the other port.
  const shots = join(dir.path, "shots");
  const [audited, otherPort, example] = await Promise.all([
    runMain(["--doctor"], {
      cache,
      flags,
      env: { ...phone, PHONE_EYE_VISION_BASE_URL: `http://${host}/v1` },
    }),
    runMain(["--doctor"], {
      cache,
      flags,
      env: {
        ...phone,
        PHONE_EYE_VISION_BASE_URL: `http://127.0.0.1:${vision.port + 1}/v1`,
        PHONE_EYE_SHOTS: shots,
      },
    }),
    // The example's host is a LAN address: its run is sealed in a network namespace where that
    // address is the namespace's own loopback, so the vision call is refused there and nothing
    // leaves this machine. The rig's adb server is outside it: the phone is not reachable there.
    canUnshare
      ? runMain(["--doctor"], {
        cache,
        flags: readmeFlags,
        sealedHosts: ["192.168.1.50"],
        env: {
          ...phone,
          PHONE_EYE_VISION_BASE_URL: "http://192.168.1.50:8080/v1",
          PHONE_EYE_VISION_TIMEOUT_MS: "100",
          PHONE_EYE_SHOTS: readme.shotsDir,
        },
      })
      : undefined,
  ]);

  for (const run of [audited, otherPort, ...example ? [example] : []]) {
    assert.doesNotMatch(run.stderr, /requests? \w+ access|Allow\?/, "no permission prompt");
    assert.match(run.stdout, new RegExp(`^phone-eye ${VERSION} --doctor\n`));
  }

  await t.step("built for the vision host: exit 0, every check green", () => {
    assert.equal(audited.code, 0, audited.stdout + audited.stderr);
    assert.deepEqual(titles(audited.stdout), [
      "[ok] adb found",
      `[ok] phone reachable (${sim.serial})`,
      NO_KEYBOARD,
      `[ok] vision answers (direct route, http://${host})`,
      "[ok] permissions as intended",
      "[ok] screenshots stay in memory",
    ]);
    assert.match(
      audited.stdout,
      new RegExp(`^ +ok {2}built with net ${host} \\(baked by deno task compile\\)$`, "m"),
    );
    assert.match(audited.stdout, new RegExp(`^ +ok {2}net ${host}: granted`, "m"));
    assert.match(
      audited.stdout,
      new RegExp(`^ +ok {2}net ${host}: allowed \\(the configured vision endpoint`, "m"),
    );
    assert.doesNotMatch(audited.stdout, /!!/);
  });

  await t.step("the same host on another port: refused, with the build command for it", () => {
    assert.equal(otherPort.code, 1);
    const target = `127.0.0.1:${vision.port + 1}`;
    assert.ok(
      otherPort.stdout.includes(
        `!!  net ${target}: refused, so this process cannot reach the configured vision endpoint; build a binary for it with "deno task compile --vision-host ${target}"`,
      ),
      otherPort.stdout,
    );
  });

  await t.step("a shots folder the build does not grant: exit 1 with the build command", () => {
    assert.equal(otherPort.code, 1);
    assert.deepEqual(titles(otherPort.stdout).slice(-2), [
      "[FAIL] permissions differ from the intended set",
      `[FAIL] screenshots not kept: ${shots} is refused`,
    ]);
    assert.doesNotMatch(otherPort.stdout, /screenshots kept in/, "no line contradicts");
    assert.ok(
      otherPort.stdout.includes(
        `!!  read/write ${shots} (PHONE_EYE_SHOTS): refused, so screenshots are not kept there; build a binary for it with "deno task compile --shots-dir ${shots}"`,
      ),
      otherPort.stdout,
    );
  });

  await t.step({
    name:
      "docs/permissions.md's example: its host with its port and its shots folder pass the permission checks, and the shots policy is shown",
    ignore: example === undefined,
    fn: () => {
      if (example === undefined) return;
      const lines = titles(example.stdout);
      assert.ok(lines.includes("[ok] permissions as intended"), example.stdout);
      assert.ok(lines.includes(`[ok] screenshots kept in ${readme.shotsDir}`), example.stdout);
      assert.match(
        example.stdout,
        /^ +ok {2}built with net 192\.168\.1\.50:8080 and screenshot folder \/srv\/phone-eye\/shots/m,
      );
      assert.match(example.stdout, /^ +ok {2}net 192\.168\.1\.50:8080: allowed/m);
      assert.doesNotMatch(example.stdout, /!!/);
      // The folder the build grants, and the policy the report states for it.
      assert.ok(
        example.stdout.includes(`ok  read/write ${readme.shotsDir} (PHONE_EYE_SHOTS): granted`),
        example.stdout,
      );
      assert.match(
        example.stdout,
        /created exclusively \(a planted symlink is never followed\)/,
      );
      assert.match(
        example.stdout,
        /own files there are kept under 256 MiB \(PHONE_EYE_SHOTS_MAX_MB\), the oldest removed first/,
      );
      // Nothing listens at 192.168.1.50 in the namespace and the rig's adb server is outside it:
      // only the vision call and the phone check may fail.
      assert.ok(
        lines.every((line) =>
          line.startsWith("[ok]") || line === NO_KEYBOARD ||
          /^\[FAIL\] (vision|phone)/.test(line)
        ),
        example.stdout,
      );
    },
  });
});

Deno.test("the doctor says what the http permission set adds, and whether this process has it", async () => {
  const config = loadConfig(() => undefined);
  const permissionsOf = async (granted: (d: Deno.PermissionDescriptor) => boolean) => {
    const checks = await runDoctor({
      config,
      phones: createPhones({
        set: config.phones,
        link: createLink({ run: fakeAdb().run, timeoutMs: 1000 }),
        makeDevice: ({ serial }) => createDevice({ run: fakeAdb().run, serial, timeoutMs: 1000 }),
      }),
      vision: createVision(config.vision),
      query: (descriptor) => Promise.resolve(granted(descriptor)),
      build: { kind: "source", net: [] },
    });
    const lines = checks.find((c) => c.gate === "the permissions")?.detail ?? [];
    return lines.find((line) => /^\S+ +http: /.test(line)) ?? "";
  };
  const stdio = await permissionsOf((d) => d.name === "run" && d.command === "adb");
  assert.match(stdio, /^-- +http: .*"http" set .*deno task serve-http/);
  assert.match(stdio, /PHONE_EYE_HTTP_TOKEN, PHONE_EYE_HTTP_ORIGINS and net 0\.0\.0\.0, \[::\]/);
  assert.match(stdio, /--allow-read=CERT,KEY/);
  const http = await permissionsOf((d) =>
    (d.name === "run" && d.command === "adb") ||
    (d.name === "env" && d.variable?.startsWith("PHONE_EYE_") === true)
  );
  assert.match(http, /^ok +http: this process has the "http" set/);
});
