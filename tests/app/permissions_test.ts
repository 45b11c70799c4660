import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import denoJson from "../../deno.json" with { type: "json" };
import { ADB_ENV_VARS, ENV_VARS, GRANTED_ENV_VARS } from "../../lib/config/env_vars.ts";
import { grantReason } from "../../scripts/env_grants.ts";
import {
  checkProductionSet,
  compilePermissionSetName,
  describePermissions,
  permissionFlags,
  type PermissionSet,
  readPermissionSet,
  withShotsDir,
  withVisionHosts,
} from "../../scripts/permissions.ts";

const production = () => readPermissionSet(denoJson);

Deno.test({
  name: "the deno.json default set passes the production rules",
  permissions: "none",
  fn() {
    assert.deepEqual(checkProductionSet(production()), []);
  },
});

Deno.test({
  name: "binaries bake the same set deno task start runs with",
  permissions: "none",
  fn() {
    assert.equal(compilePermissionSetName(denoJson), "default");
    // A bare -P loads the set named "default".
    assert.match(denoJson.tasks.start, /\s-P\s/);
    assert.throws(
      () => compilePermissionSetName({ compile: { permissions: { run: ["adb"] } } }),
      /must name a permission set/,
    );
  },
});

Deno.test({
  name:
    "deno.json grants exactly the variables of lib/config/env_vars.ts's lists, each with its reason",
  permissions: "none",
  fn() {
    // phone-eye's own settings, and the variables it passes on to adb, which runs with those alone.
    const granted = production().env as string[];
    assert.deepEqual([...granted].sort(), [...GRANTED_ENV_VARS].sort());
    const names = [...ENV_VARS, ...ADB_ENV_VARS];
    assert.equal(new Set(names).size, names.length, "a variable is listed twice");
    assert.ok(ENV_VARS.every((name) => GRANTED_ENV_VARS.includes(name)));
    for (const name of granted) assert.match(grantReason(name) ?? "", /\S/, name);
    for (const name of ADB_ENV_VARS) assert.match(grantReason(name) ?? "", /^passed on to adb: /);
    assert.equal(grantReason("AWS_SECRET_ACCESS_KEY"), undefined);
  },
});

Deno.test({
  name: "permissionFlags writes one flag per granted kind in a fixed order",
  permissions: "none",
  fn() {
    const cases: [PermissionSet, string[]][] = [
      [
        { net: ["h1", "h2"], env: ["A", "B"], run: ["adb"] },
        ["--allow-run=adb", "--allow-env=A,B", "--allow-net=h1,h2"],
      ],
      [{ read: true, write: ["/srv/shots"] }, ["--allow-read", "--allow-write=/srv/shots"]],
      [{ run: false, env: [], net: undefined as unknown as string[] }, []],
      [{}, []],
      [{ all: true }, ["--allow-all"]],
      [{ env: ["A", "A", "B"] }, ["--allow-env=A,B"]],
      [
        { import: true, ffi: true, sys: ["hostname"], write: true, read: true },
        ["--allow-read", "--allow-write", "--allow-sys=hostname", "--allow-ffi", "--allow-import"],
      ],
    ];
    for (const [set, flags] of cases) assert.deepEqual(permissionFlags(set), flags);
  },
});

Deno.test({
  name: "permissionFlags refuses entries Deno would split on a comma",
  permissions: "none",
  fn() {
    assert.throws(() => permissionFlags({ read: ["/srv/a,b"] }), /contain no comma/);
    assert.throws(() => permissionFlags({ env: [""] }), /non-empty/);
  },
});

Deno.test({
  name: "readPermissionSet rejects shapes it cannot turn into flags, naming the key",
  permissions: "none",
  fn() {
    const cases: [unknown, RegExp][] = [
      [null, /no "permissions" object/],
      [{ permissions: [] }, /no "permissions" object/],
      [{ permissions: { test: {} } }, /no permission set "default"; it defines: test/],
      [{ permissions: { default: { read: { allow: ["/a"] } } } }, /permissions\.default\.read/],
      [{ permissions: { default: { hrtime: true } } }, /permissions\.default\.hrtime/],
      [{ permissions: { default: { run: ["adb", 1] } } }, /list of strings/],
      [{ permissions: { default: { all: "yes" } } }, /permissions\.default\.all must be true/],
    ];
    for (const [json, message] of cases) {
      assert.throws(() => readPermissionSet(json), message, JSON.stringify(json));
    }
    assert.deepEqual(readPermissionSet({ permissions: { ci: { net: ["127.0.0.1"] } } }, "ci"), {
      net: ["127.0.0.1"],
    });
  },
});

Deno.test({
  name: "readPermissionSet and the with* helpers copy, so no caller can edit deno.json's set",
  permissions: "none",
  fn() {
    const json = { permissions: { default: { run: ["adb"], net: ["a.example"] } } };
    const set = readPermissionSet(json);
    (set.run as string[]).push("sh");
    withVisionHosts(set, ["b.example"]);
    withShotsDir(set, "/srv/shots");
    assert.deepEqual(json.permissions.default, { run: ["adb"], net: ["a.example"] });
    assert.deepEqual(set, { run: ["adb", "sh"], net: ["a.example"] });
  },
});

Deno.test({
  name: "withVisionHosts replaces the net allowlist with exactly the given hosts",
  permissions: "none",
  fn() {
    const audited = withVisionHosts(production(), ["api.example.com"]);
    assert.deepEqual(audited.net, ["api.example.com"]);
    assert.deepEqual(audited.run, production().run);
    assert.deepEqual(audited.env, production().env);
    assert.deepEqual(withVisionHosts(production(), ["127.0.0.1"]).net, ["127.0.0.1"]);
    for (
      const host of [
        "api.example.com:443",
        "127.0.0.1",
        "[::1]",
        "[::1]:8080",
        "10.0.0.0/8",
        "*.example.com",
      ]
    ) {
      assert.deepEqual(withVisionHosts({}, [host]).net, [host]);
    }
  },
});

Deno.test({
  name: "withVisionHosts refuses URLs, paths and empty lists instead of baking a useless grant",
  permissions: "none",
  fn() {
    for (
      const host of ["https://api.example.com/v1", "api.example.com/v1", "", "a b", "a,b", "u@h"]
    ) {
      assert.throws(() => withVisionHosts({}, [host]), /is not a network host/, host);
    }
    assert.throws(() => withVisionHosts({}, []), /No vision host given/);
  },
});

Deno.test({
  name: "withShotsDir grants read and write for exactly the screenshot folder",
  permissions: "none",
  fn() {
    const set = withShotsDir(production(), "/srv/phone-eye/shots");
    assert.deepEqual(set.read, ["/srv/phone-eye/shots"]);
    assert.deepEqual(set.write, ["/srv/phone-eye/shots"]);
    assert.deepEqual(set.net, production().net);
    assert.deepEqual(withShotsDir({}, "C:\\phone-eye\\shots").write, ["C:\\phone-eye\\shots"]);
    assert.deepEqual(withShotsDir({ read: ["/a"] }, "/b").read, ["/a", "/b"]);
    assert.throws(() => withShotsDir({}, "shots"), /relative; give an absolute path/);
    assert.throws(() => withShotsDir({}, "/srv/a,b"), /contain no comma/);
    assert.throws(() => withShotsDir({}, ""), /non-empty/);
  },
});

Deno.test({
  name: "checkProductionSet refuses all, ffi, sys, import and blanket grants",
  permissions: "none",
  fn() {
    const base = production();
    const cases: [PermissionSet, RegExp][] = [
      [{ ...base, all: true }, /^all: grants every permission/],
      [{ ...base, ffi: true }, /^ffi: granted/],
      [{ ...base, sys: ["hostname"] }, /^sys: granted/],
      [{ ...base, import: ["deno.land"] }, /^import: granted/],
      [{ ...base, run: true }, /^run: blanket grant/],
      [{ ...base, env: true }, /^env: blanket grant/],
      [{ ...base, net: true }, /^net: blanket grant/],
      [{ ...base, read: true }, /^read: blanket grant/],
      [{ ...base, write: true }, /^write: blanket grant/],
    ];
    for (const [set, problem] of cases) {
      const problems = checkProductionSet(set);
      assert.equal(problems.length, 1, problems.join("\n"));
      assert.match(problems[0] ?? "", problem);
    }
    assert.deepEqual(checkProductionSet({ ...base, sys: [], ffi: false }), []);
  },
});

Deno.test({
  name:
    "checkProductionSet refuses other programs, a missing adb, unexplained variables and bad entries",
  permissions: "none",
  fn() {
    const base = production();
    assert.deepEqual(checkProductionSet({ ...base, run: ["adb", "sh"] }), [
      'run: grants "sh", but phone-eye runs only adb',
    ]);
    assert.deepEqual(checkProductionSet({ ...base, run: [] }), [
      'run: "adb" is not granted, so no phone command can run',
    ]);
    assert.match(
      checkProductionSet({ ...base, env: ["AWS_SECRET_ACCESS_KEY"] }).join(),
      /env: grants AWS_SECRET_ACCESS_KEY, which no documented setting uses/,
    );
    assert.match(
      checkProductionSet({ ...base, net: ["https://api.openai.com"] }).join(),
      /^net: "https:\/\/api.openai.com" is not a network host/,
    );
    assert.match(checkProductionSet({ ...base, read: ["shots"] }).join(), /^read: .* is relative/);
  },
});

Deno.test({
  name: "an audited build with one vision host and a screenshot folder is still a production set",
  permissions: "none",
  fn() {
    const audited = withShotsDir(withVisionHosts(production(), ["10.1.2.3:8080"]), "/srv/shots");
    assert.deepEqual(checkProductionSet(audited), []);
  },
});

Deno.test({
  name: "describePermissions gives every grant of the default set a reason",
  permissions: "none",
  fn() {
    const set = production();
    const lines = describePermissions(set);
    assert.ok(lines.some((line) => line.startsWith("run adb: ")));
    for (const name of set.env as string[]) {
      const line = lines.find((l) => l.startsWith(`env ${name}: `));
      assert.ok(line, `no line for ${name}`);
      assert.doesNotMatch(line, /not read by phone-eye/);
    }
    const netLines = lines.filter((line) => line.startsWith("net "));
    for (const host of set.net as string[]) {
      assert.ok(
        netLines.some((line) => line.split(": ")[0]?.includes(host)),
        `no line for ${host}`,
      );
    }
    assert.match(netLines.join("\n"), /^net 127\.0\.0\.1, localhost, \[::1\]: .*this machine/m);
    assert.match(netLines.join("\n"), /^net 10\.0\.0\.0\/8, .*: .*local network/m);
    assert.ok(lines.includes("read/write: none; screenshots stay in memory and never touch disk"));
    for (const line of lines) assert.match(line, /^\S.*: \S/, line);
  },
});

Deno.test({
  name:
    "describePermissions names the baked screenshot folder and flags what production never needs",
  permissions: "none",
  fn() {
    const lines = describePermissions(withShotsDir({ run: ["adb"] }, "/srv/shots"));
    assert.ok(lines.some((line) => line.startsWith("read /srv/shots: the screenshot folder")));
    assert.ok(lines.some((line) => line.startsWith("write /srv/shots: the screenshot folder")));
    assert.ok(!lines.some((line) => line.startsWith("read/write: none")));
    assert.deepEqual(describePermissions({ sys: true, run: ["sh"] }), [
      "run sh: not needed by phone-eye",
      "read/write: none; screenshots stay in memory and never touch disk",
      "sys: granted, but phone-eye never needs it",
    ]);
    assert.deepEqual(describePermissions({ all: true }), [
      "all: every permission (not a production set: nothing is fenced)",
    ]);
  },
});

// Asks Deno itself what a set grants: the same questions under `-P` (deno.json) and under
// permissionFlags(...), so the flags the compile task bakes cannot drift from the config.
const PROBE = `
const answers = {};
for (const descriptor of JSON.parse(Deno.args[0])) {
  answers[JSON.stringify(descriptor)] = (await Deno.permissions.query(descriptor)).state;
}
console.log(JSON.stringify(answers));
`;

async function probe(args: string[], descriptors: unknown[], dir: string) {
  const probePath = join(dir, "probe.ts");
  await Deno.writeTextFile(probePath, PROBE);
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", ...args, probePath, JSON.stringify(descriptors)],
    cwd: dir,
    stdin: "null",
  }).output();
  const err = new TextDecoder().decode(stderr);
  assert.equal(code, 0, err);
  return JSON.parse(new TextDecoder().decode(stdout)) as Record<string, string>;
}

Deno.test("permissionFlags grants exactly what deno run -P grants from deno.json", async () => {
  const dir = await Deno.makeTempDir({ prefix: "phone-eye-permissions-" });
  try {
    const set = production();
    const descriptors = [
      ...["adb", "sh", "deno", "curl"].map((command) => ({ name: "run", command })),
      ...[...(set.env as string[]), "USER", "SHELL", "AWS_SECRET_ACCESS_KEY"].map((variable) => ({
        name: "env",
        variable,
      })),
      ...[
        ...(set.net as string[]).filter((host) => !host.includes("/")),
        "10.1.2.3",
        "172.20.0.5",
        "172.32.0.1",
        "192.168.1.50:8080",
        "8.8.8.8",
        "example.com",
        "api.openai.com:443",
        "evil.api.openai.com",
      ].map((host) => ({ name: "net", host })),
      { name: "read", path: "/" },
      { name: "read", path: dir },
      { name: "write", path: dir },
      { name: "sys", kind: "hostname" },
      { name: "ffi" },
    ];
    const config = fileURLToPath(new URL("../../deno.json", import.meta.url));
    const fromConfig = await probe(["--config", config, "-P"], descriptors, dir);
    const fromFlags = await probe(["--no-config", ...permissionFlags(set)], descriptors, dir);
    assert.deepEqual(fromFlags, fromConfig);
    const state = (descriptor: unknown) => fromFlags[JSON.stringify(descriptor)];
    assert.equal(state({ name: "run", command: "adb" }), "granted");
    assert.equal(state({ name: "net", host: "10.1.2.3" }), "granted");
    for (
      const denied of [
        { name: "run", command: "sh" },
        { name: "env", variable: "USER" },
        { name: "net", host: "172.32.0.1" },
        { name: "net", host: "evil.api.openai.com" },
        { name: "read", path: "/" },
        { name: "write", path: dir },
      ]
    ) {
      assert.notEqual(state(denied), "granted", JSON.stringify(denied));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an integration-test set with 127.0.0.1 and a shots folder reaches nothing else", async () => {
  const dir = await Deno.makeTempDir({ prefix: "phone-eye-permissions-" });
  try {
    const shots = join(dir, "shots");
    const set = withShotsDir(withVisionHosts(production(), ["127.0.0.1"]), shots);
    const descriptors = [
      { name: "net", host: "127.0.0.1" },
      { name: "net", host: "localhost" },
      { name: "net", host: "api.openai.com" },
      { name: "read", path: join(shots, "shot.png") },
      { name: "write", path: join(shots, "shot.png") },
      { name: "read", path: join(dir, "probe.ts") },
      { name: "write", path: dir },
    ];
    const states = Object.values(
      await probe(["--no-config", ...permissionFlags(set)], descriptors, dir),
    );
    assert.deepEqual(states, [
      "granted",
      "prompt",
      "prompt",
      "granted",
      "granted",
      "prompt",
      "prompt",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
