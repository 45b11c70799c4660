// A lab runs the release: every target gets phone-eye-http beside phone-eye, compiled with the set
// and flags of `deno task serve-http`, audited like the stdio binary (deno task compile refuses a
// set unfit for either), smoked over HTTP with a token, while phone-eye must refuse --http.
// `deno compile` cannot run here (its runtime downloads from dl.deno.land), so the plan is tested,
// the workflow's text is checked step by step, and the plan's flags are run as `deno run` flags.

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import denoJson from "../../deno.json" with { type: "json" };
import { HTTP_ENV_VARS } from "../../lib/config/env_vars.ts";
import { HTTP_BINARY, HTTP_LISTEN_GRANTS, HTTP_TASK } from "../../lib/mcp/http_settings.ts";
import {
  BINARIES,
  binaryOutput,
  binarySetName,
  binarySetProblems,
  taskPermissionSetName,
} from "../../scripts/binaries.ts";
import { planCompile } from "../../scripts/compile.ts";
import {
  checkProductionSet,
  compilePermissionSetName,
  describePermissions,
  permissionFlags,
  readPermissionSet,
} from "../../scripts/permissions.ts";
import { runtimeFlags } from "../../scripts/runtime_flags.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const RELEASE = join(ROOT, ".github/workflows/release.yml");
const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
];

// ---- the plan ----

Deno.test({
  name: "phone-eye-http bakes the set and the flags deno task serve-http runs with",
  permissions: "none",
  fn() {
    assert.equal(taskPermissionSetName(denoJson, "serve-http"), "http");
    assert.equal(binarySetName(denoJson, "http"), "http");
    // The stdio binary's set is the start task's, as deno.json's compile.permissions says.
    assert.equal(taskPermissionSetName(denoJson, "start"), compilePermissionSetName(denoJson));
    assert.equal(HTTP_TASK, `deno task ${BINARIES.http.task}`);
    assert.equal(BINARIES.http.stem, HTTP_BINARY);

    const http = denoJson.permissions.http;
    for (const target of TARGETS) {
      const exe = target.includes("windows") ? ".exe" : "";
      const plan = planCompile(denoJson, { http: true, target }, "linux", ROOT);
      assert.equal(plan.output, `dist/phone-eye-http-${target}${exe}`);
      assert.deepEqual(plan.args, [
        "compile",
        "--no-prompt",
        `--allow-run=${http.run.join(",")}`,
        `--allow-env=${http.env.join(",")}`,
        `--allow-net=${http.net.join(",")}`,
        "--import-map",
        `dist/.phone-eye-http-${target}${exe}.build/import_map.json`,
        ...runtimeFlags(denoJson, "serve-http"),
        "--target",
        target,
        "--output",
        `dist/phone-eye-http-${target}${exe}`,
        "main.ts",
      ]);
      assert.ok(plan.args.includes("--unstable-no-legacy-abort"), "as serve-http runs");
    }
    assert.equal(planCompile(denoJson, { http: true }, "linux").output, "dist/phone-eye-http");
    assert.equal(
      planCompile(denoJson, { http: true }, "windows").output,
      "dist/phone-eye-http.exe",
    );
    assert.equal(binaryOutput("stdio", undefined, false), "dist/phone-eye");
  },
});

Deno.test({
  name:
    "deno task compile refuses a stdio set that could read the token and an http set that could not",
  permissions: "none",
  fn() {
    const stdio = readPermissionSet(denoJson, "default");
    const httpSet = readPermissionSet(denoJson, "http");
    assert.deepEqual(checkProductionSet(httpSet), [], "the http set is a production set");
    assert.deepEqual(binarySetProblems(stdio, "stdio"), []);
    assert.deepEqual(binarySetProblems(httpSet, "http"), []);
    // deno.json's sets swapped: each binary refuses the other's.
    const swapped = {
      ...denoJson,
      permissions: { ...denoJson.permissions, default: denoJson.permissions.http },
    };
    assert.throws(
      () => planCompile(swapped, {}, "linux"),
      (error: Error) =>
        /^Refusing to compile: /.test(error.message) &&
        error.message.includes(
          "env: grants PHONE_EYE_HTTP_TOKEN, which only phone-eye-http reads: the stdio binary never serves the network",
        ) &&
        error.message.includes("net: grants 0.0.0.0 (listening on every interface)"),
    );
    const deaf = {
      ...denoJson,
      permissions: { ...denoJson.permissions, http: denoJson.permissions.default },
    };
    assert.throws(
      () => planCompile(deaf, { http: true }, "linux"),
      /env: PHONE_EYE_HTTP_TOKEN is not granted, so phone-eye-http could not read it and --http would be refused/,
    );
    assert.throws(
      () => taskPermissionSetName({ tasks: { "serve-http": "deno run main.ts" } }, "serve-http"),
      /must run "deno run -P\[=SET\] … main\.ts"/,
    );
  },
});

Deno.test({
  name: "describePermissions gives every grant of the http set a reason, listening said as such",
  permissions: "none",
  fn() {
    const lines = describePermissions(readPermissionSet(denoJson, "http"));
    for (const name of HTTP_ENV_VARS) {
      assert.ok(lines.some((line) => line.startsWith(`env ${name}: the `)), name);
    }
    const listen = lines.find((line) => line.startsWith(`net ${HTTP_LISTEN_GRANTS.join(", ")}: `));
    assert.match(listen ?? "", /listening on every interface, for --http/);
    assert.ok(!lines.some((line) => /0\.0\.0\.0.*hosted vision/.test(line)));
  },
});

// ---- the release workflow, read as text step by step ----
// tests/app/workflows_test.ts reads the workflows with a YAML reader; these checks need only the
// build job's steps and matrix, so they split the text on its fixed indentation.

interface Step {
  name: string;
  run: string;
  env: Record<string, string>;
  text: string;
}

async function buildJob(): Promise<{ steps: Step[]; matrix: string[][]; source: string }> {
  const source = await Deno.readTextFile(RELEASE);
  const job = /\n {2}build:\n([\s\S]*?)\n {2}[\w-]+:\n/.exec(source)?.[1];
  assert.ok(job, "the release has a build job");
  const steps = job.split(/\n {6}- /).slice(1).map((text) => {
    const env: Record<string, string> = {};
    const block = /\n {8}env:\n((?: {10}\S.*(?:\n|$))+)/.exec(text)?.[1] ?? "";
    for (const [, key, value] of block.matchAll(/^ {10}([\w-]+): (.+)$/gm)) env[key!] = value!;
    return {
      name: /^name: (.+)$/m.exec(text)?.[1] ?? "",
      run: /^ {8}run: (?!\|)(.+)$/m.exec(text)?.[1] ?? "",
      env,
      text,
    };
  });
  const matrix = [
    ...job.matchAll(
      /\n {10}- target: (\S+)\n {12}runner: (\S+)\n {12}asset: (\S+)\n {12}http_asset: (\S+)/g,
    ),
  ].map((m) => m.slice(1));
  return { steps, matrix, source };
}

Deno.test("the release compiles phone-eye-http for the five targets and smokes it over HTTP, and phone-eye must refuse --http", async () => {
  const { steps, matrix } = await buildJob();
  assert.deepEqual(
    matrix.map(([target, , asset, httpAsset]) => [target, asset, httpAsset]),
    TARGETS.map((target) => {
      const exe = target.includes("windows") ? ".exe" : "";
      return [
        target,
        binaryOutput("stdio", target, exe !== "").slice("dist/".length),
        binaryOutput("http", target, exe !== "").slice("dist/".length),
      ];
    }),
  );
  const at = (run: string) => {
    const index = steps.findIndex((step) => step.run === run);
    assert.ok(index >= 0, `no step runs ${run}:\n${steps.map((s) => s.run).join("\n")}`);
    return index;
  };
  const compile = at('deno task compile --http --target "$TARGET" --output "dist/$HTTP_ASSET"');
  assert.deepEqual(steps[compile]!.env, {
    TARGET: "${{ matrix.target }}",
    HTTP_ASSET: "${{ matrix.http_asset }}",
  });
  const smokeHttp = at('deno task smoke --binary "dist/$HTTP_ASSET" --http');
  assert.deepEqual(steps[smokeHttp]!.env, { HTTP_ASSET: "${{ matrix.http_asset }}" });
  const smokeStdio = at('deno task smoke --binary "dist/$ASSET" --refuses-http');
  assert.deepEqual(steps[smokeStdio]!.env, { ASSET: "${{ matrix.asset }}" });
  const upload = steps.findIndex((step) =>
    step.text.includes("uses: actions/upload-artifact@") &&
    step.text.includes("name: ${{ matrix.http_asset }}") &&
    step.text.includes("path: dist/${{ matrix.http_asset }}") &&
    step.text.includes("if-no-files-found: error")
  );
  assert.ok(upload >= 0, "phone-eye-http is uploaded as its own artifact");
  assert.ok(compile < smokeHttp && smokeHttp < upload, "compiled, smoked, then uploaded");
  assert.ok(at('deno task compile --target "$TARGET" --output "dist/$ASSET"') < smokeStdio);
});

Deno.test("the release checksums and publishes the ten binaries, the five bundles and server.json", async () => {
  const { source } = await buildJob();
  // phone-eye-http-* matches the phone-eye-* the checksum and the release take.
  assert.ok(BINARIES.http.stem.startsWith("phone-eye-"));
  const files = TARGETS.length * 2 + TARGETS.length + 1;
  assert.match(source, /sha256sum phone-eye-\* server\.json > SHA256SUMS\.txt/);
  assert.ok(source.includes(`test "$(wc -l < SHA256SUMS.txt)" -eq ${files}`), `${files} files`);
  assert.match(source, /gh release create "\$TAG" --verify-tag .*dist\/\*/);
});

// ---- the plan's flags, run ----

/**
 * A stand-in for the binary a plan compiles: main.ts run with exactly the plan's permission and
 * runtime flags, which is what `deno compile` bakes (the import map only names the build).
 */
async function standIn(dir: string, options: { http: boolean }): Promise<string> {
  const plan = planCompile(denoJson, options, "linux", ROOT);
  const flags = [
    ...permissionFlags(plan.permissions),
    ...runtimeFlags(denoJson, options.http ? "serve-http" : "start"),
  ];
  for (const flag of flags) assert.ok(plan.args.includes(flag), flag);
  const path = join(dir, options.http ? "phone-eye-http" : "phone-eye");
  const argv = [Deno.execPath(), "run", "-q", "--no-prompt", ...flags, join(ROOT, "main.ts")];
  await Deno.writeTextFile(
    path,
    `#!/bin/sh\nexec ${argv.map((arg) => `'${arg}'`).join(" ")} "$@"\n`,
    { mode: 0o755 },
  );
  return path;
}

async function smoke(...args: string[]): Promise<{ code: number; out: string }> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "-P=test", "--no-prompt", "scripts/smoke.ts", ...args],
    cwd: ROOT,
    stdin: "null",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code, out: decode(stdout) + decode(stderr) };
}

Deno.test({
  name:
    "the smoke passes phone-eye-http over HTTP with a token, and phone-eye only when it refuses --http",
  // The stand-ins are shell scripts; four smokes of two servers each: `deno task test:long`.
  ignore: Deno.build.os === "windows" || Deno.env.get("PHONE_EYE_LONG") !== "1",
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "phone-eye-release-" });
    try {
      const http = await standIn(dir, { http: true });
      const stdio = await standIn(dir, { http: false });
      const served = await smoke("--binary", http, "--http");
      assert.equal(served.code, 0, served.out);
      assert.match(served.out, /^smoke: ok .*phone-eye-http over HTTP: phone_look, /m);
      const refused = await smoke("--binary", stdio, "--refuses-http");
      assert.equal(refused.code, 0, refused.out);
      assert.match(refused.out, /--http refused, naming phone-eye-http/);
      // The stdio binary cannot be made to serve: the same smoke over HTTP fails, saying why.
      const cannot = await smoke("--binary", stdio, "--http");
      assert.equal(cannot.code, 1, cannot.out);
      assert.match(
        cannot.out,
        /smoke: FAIL .*exited before serving: phone-eye: --http needs the "http" permission set/,
      );
      // And phone-eye-http serves, so it fails the check that a stdio build refuses --http.
      const serves = await smoke("--binary", http, "--refuses-http");
      assert.equal(serves.code, 1, serves.out);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
