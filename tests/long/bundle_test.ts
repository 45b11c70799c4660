import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import denoJson from "../../deno.json" with { type: "json" };
import { ADB_ENV_VARS } from "../../lib/config/env_vars.ts";
import { TOOLS } from "../../lib/tools/index.ts";
import {
  buildManifest,
  buildServerJson,
  type Manifest,
  MANIFEST_VERSION,
  MCPB_VALIDATE,
  parseReleaseUrl,
  platformOf,
  releaseEnvVars,
  SERVER_JSON_VALIDATE,
  SERVER_SCHEMA_URL,
  type ServerJson,
} from "../../scripts/bundle.ts";
import { writeZip } from "../../scripts/zip.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const RELEASE_URL = `https://github.com/acme/phone-eye/releases/download/v${denoJson.version}`;
const TARGETS = {
  "x86_64-unknown-linux-gnu": "linux",
  "aarch64-unknown-linux-gnu": "linux",
  "x86_64-apple-darwin": "darwin",
  "aarch64-apple-darwin": "darwin",
  "x86_64-pc-windows-msvc": "win32",
} as const;
/** The env grant of the set the release binaries bake: the names the bundle may pass on. */
const GRANTED: string[] = denoJson.permissions.default.env;

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

async function run(command: string, args: string[], cwd = ROOT) {
  const { code, stdout, stderr } = await new Deno.Command(command, {
    args,
    cwd,
    stdin: "null",
    env: { NO_UPDATE_NOTIFIER: "1", npm_config_update_notifier: "false", NO_COLOR: "1" },
  }).output();
  return { code, stdout: decode(stdout), stderr: decode(stderr) };
}

/** Runs one of the pinned validator command lines from scripts/bundle.ts with `path` appended. */
function validate(commandLine: string, path: string) {
  const [command = "", ...args] = commandLine.split(" ");
  return run(command, [...args, path]);
}

/** scripts/bundle.ts as `deno task bundle` runs it, but allowed to read and write only `dir`. */
function bundleScript(dir: string, ...args: string[]) {
  return run(Deno.execPath(), [
    "run",
    `--allow-read=${dir}`,
    `--allow-write=${dir}`,
    "--no-prompt",
    "scripts/bundle.ts",
    ...args,
  ]);
}

async function withTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "phone-eye-bundle-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

// ---- the variables, the release URL and the targets ----

Deno.test({
  name: "the bundle passes on every setting the release binaries may read, except the shots folder",
  permissions: "none",
  fn() {
    const vars = releaseEnvVars();
    assert.deepEqual(
      vars.map((v) => v.name),
      // adb's variables are granted only to be passed on to adb: no setting of phone-eye's.
      GRANTED.filter((name) =>
        name !== "PHONE_EYE_SHOTS" && name !== "PHONE_EYE_SHOTS_MAX_MB" &&
        name !== "PHONE_EYE_JOURNAL" &&
        !ADB_ENV_VARS.some((adb) => adb === name)
      ),
    );
    assert.deepEqual(vars.filter((v) => v.secret).map((v) => v.name), [
      "PHONE_EYE_VISION_API_KEY",
    ]);
    assert.deepEqual(vars.filter((v) => v.userConfig).map((v) => v.name), [
      "ANDROID_SERIAL",
      "PHONE_EYE_DEVICES",
      "PHONE_EYE_VISION_API_KEY",
      "PHONE_EYE_VISION_BASE_URL",
      "PHONE_EYE_VISION_MODEL",
      "PHONE_EYE_VISION_URL",
    ]);
    for (const v of vars) assert.match(v.description, /^[A-Z].*\. Leave empty for .+\.$/);
    // Setting the base URL selects the direct route, so a default for it would change behaviour.
    assert.equal(vars.find((v) => v.name === "PHONE_EYE_VISION_BASE_URL")?.default, undefined);
  },
});

Deno.test({
  name: "a variable granted without a presentation, or presented without a grant, stops the build",
  permissions: "none",
  fn() {
    const withEnv = (env: string[]) => ({
      permissions: { release: { run: ["adb"], env } },
      compile: { permissions: "release" },
    });
    assert.throws(
      () => releaseEnvVars(withEnv([...GRANTED, "PHONE_EYE_NEW"])),
      /PHONE_EYE_NEW is granted but has no description or presentation/,
    );
    assert.throws(
      () => releaseEnvVars(withEnv(GRANTED.filter((name) => name !== "PHONE_EYE_VISION_TOOL"))),
      /presented but not granted: PHONE_EYE_VISION_TOOL/,
    );
  },
});

Deno.test({
  name: "the release URL must be a GitHub release folder whose tag is the deno.json version",
  permissions: "none",
  fn() {
    assert.deepEqual(parseReleaseUrl(`${RELEASE_URL}/`), {
      owner: "acme",
      repo: "phone-eye",
      tag: `v${denoJson.version}`,
      url: RELEASE_URL,
    });
    const refused: [string, RegExp][] = [
      [RELEASE_URL.replace("v0", "v9"), /does not match deno.json version/],
      [RELEASE_URL.replace("https:", "http:"), /is not https:\/\/github.com\/OWNER/],
      [RELEASE_URL.replace("github.com", "example.com"), /is not https:\/\/github.com\/OWNER/],
      [`${RELEASE_URL}/phone-eye.mcpb`, /is not https:\/\/github.com\/OWNER/],
      ["https://github.com/-acme/phone-eye/releases/download/v0.1.0", /is not https:/],
    ];
    for (const [url, message] of refused) assert.throws(() => parseReleaseUrl(url), message, url);
  },
});

Deno.test({
  name: "each of the five release targets maps to its MCPB platform; other triples are refused",
  permissions: "none",
  fn() {
    for (const [target, platform] of Object.entries(TARGETS)) {
      assert.equal(platformOf(target), platform);
    }
    for (const target of ["x86_64-unknown-linux-musl", "i686-pc-windows-msvc", "linux", ""]) {
      assert.throws(() => platformOf(target), /is not a deno compile target phone-eye ships/);
    }
  },
});

// ---- manifest.json ----

Deno.test({
  name: "each target's manifest starts its binary through ${__dirname} with the user's settings",
  permissions: "none",
  fn() {
    const release = parseReleaseUrl(RELEASE_URL);
    for (const [target, platform] of Object.entries(TARGETS)) {
      const manifest = buildManifest(target, release);
      const entry = platform === "win32" ? "server/phone-eye.exe" : "server/phone-eye";
      assert.equal(manifest.manifest_version, MANIFEST_VERSION);
      assert.equal(manifest.version, denoJson.version);
      assert.deepEqual(manifest.compatibility, { platforms: [platform] });
      assert.equal(manifest.server.type, "binary");
      assert.equal(manifest.server.entry_point, entry);
      assert.deepEqual(manifest.server.mcp_config.command, `\${__dirname}/${entry}`);
      assert.deepEqual(manifest.server.mcp_config.args, []);
      assert.match(manifest.long_description, new RegExp(`binary for ${target}\\.`));
    }
    const manifest = buildManifest("aarch64-apple-darwin", release);
    assert.deepEqual(manifest.server.mcp_config.env, {
      ANDROID_SERIAL: "${user_config.android_serial}",
      PHONE_EYE_DEVICES: "${user_config.phone_devices}",
      PHONE_EYE_VISION_API_KEY: "${user_config.vision_api_key}",
      PHONE_EYE_VISION_BASE_URL: "${user_config.vision_base_url}",
      PHONE_EYE_VISION_MODEL: "${user_config.vision_model}",
      PHONE_EYE_VISION_URL: "${user_config.vision_mcp_url}",
    });
    for (const [key, option] of Object.entries(manifest.user_config)) {
      // MCPB substitutes a field the user left empty only when it has a default; without one the
      // literal "${user_config.KEY}" would reach phone-eye as the value.
      assert.equal(option.default, "", key);
      assert.equal(option.required, false, key);
      assert.equal(option.type, "string", key);
      assert.equal(option.sensitive, key === "vision_api_key" ? true : undefined, key);
    }
    assert.deepEqual(manifest.tools.map((t) => t.name), TOOLS.map((t) => t.name));
    for (const tool of manifest.tools) assert.match(tool.description, /^[A-Z].*[.)]$/);
    assert.equal(manifest.repository.url, "https://github.com/acme/phone-eye");
    assert.equal(manifest.author.name, "acme");
  },
});

// ---- server.json, from bundles made in memory ----

Deno.test({
  name: "server.json lists one mcpb package per bundle with its download URL and SHA-256",
  permissions: "none",
  async fn() {
    const release = parseReleaseUrl(RELEASE_URL);
    const zip = (text: string) =>
      writeZip([{ name: "x", data: new TextEncoder().encode(text), mode: 0o644 }]);
    const bundles = [
      { fileName: "phone-eye-x86_64-pc-windows-msvc.mcpb", bytes: zip("windows") },
      { fileName: "phone-eye-aarch64-apple-darwin.mcpb", bytes: zip("mac") },
    ];
    const doc: ServerJson = await buildServerJson(release, bundles);
    assert.equal(doc.$schema, SERVER_SCHEMA_URL);
    assert.equal(doc.name, "io.github.acme/phone-eye");
    assert.equal(doc.version, denoJson.version);
    assert.ok(doc.description.length <= 100, "the registry caps descriptions at 100 characters");
    assert.deepEqual(
      doc.packages.map((p) => [p.registryType, p.identifier, p.fileSha256, p.transport]),
      [bundles[1], bundles[0]].map((b) => [
        "mcpb",
        `${RELEASE_URL}/${b?.fileName}`,
        sha256(b?.bytes ?? new Uint8Array()),
        { type: "stdio" },
      ]),
    );
    const vars = doc.packages[0]?.environmentVariables ?? [];
    assert.deepEqual(vars.map((v) => v.name), releaseEnvVars().map((v) => v.name));
    assert.deepEqual(vars.filter((v) => v.isSecret).map((v) => v.name), [
      "PHONE_EYE_VISION_API_KEY",
    ]);
    assert.deepEqual(
      vars.filter((v) => v.format === "number").map((v) => [v.name, v.default]),
      [["PHONE_EYE_ADB_TIMEOUT_MS", "20000"], ["PHONE_EYE_VISION_TIMEOUT_MS", "30000"]],
    );

    const good = bundles[0] ?? assert.fail();
    await assert.rejects(buildServerJson(release, []), /needs at least one bundle/);
    await assert.rejects(
      buildServerJson(release, [{ ...good, fileName: "phone-eye-arm64-linux.mcpb" }]),
      /is not a deno compile target/,
    );
    await assert.rejects(
      buildServerJson(release, [{ ...good, fileName: "bundle.zip" }]),
      /is not named phone-eye-TARGET.mcpb/,
    );
    await assert.rejects(buildServerJson(release, [good, good]), /listed twice/);
    await assert.rejects(
      buildServerJson(release, [{ ...good, bytes: new TextEncoder().encode("#!/bin/sh\n") }]),
      /is not a zip archive; pass the .mcpb files/,
    );
  },
});

Deno.test("the vendored server.json schema is the registry's 2025-12-11 file, byte for byte", async () => {
  const bytes = await Deno.readFile(join(ROOT, "scripts/schemas/server.schema.json"));
  const hash = sha256(bytes);
  const readme = await Deno.readTextFile(join(ROOT, "scripts/schemas/README.md"));
  assert.match(readme, new RegExp(`SHA-256 \`${hash}\``), "README.md names another hash");
  assert.equal(hash, "3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0");
  assert.equal(JSON.parse(decode(bytes))["$id"], SERVER_SCHEMA_URL);
});

// ---- the real archive, through unzip and the MCPB CLI ----

Deno.test({
  name: "the zip writer refuses names that escape or repeat, and modes that are not permissions",
  permissions: "none",
  fn() {
    const data = new Uint8Array(1);
    const refusals: Array<[string, number, RegExp]> = [
      ["../x", 0o644, /is not a relative "\/"-separated file path/],
      ["/etc/x", 0o644, /is not a relative/],
      ["a\\b", 0o644, /is not a relative/],
      ["a//b", 0o644, /is not a relative/],
      ["7", 0o644, /is all digits/],
      ["x", 0o4755, /mode 2541 of x is not a permission set/],
      ["x", -1, /not a permission set/],
    ];
    for (const [name, mode, message] of refusals) {
      assert.throws(() => writeZip([{ name, data, mode }]), message, name);
    }
    assert.throws(
      () => writeZip([{ name: "x", data, mode: 0o644 }, { name: "x", data, mode: 0o644 }]),
      /x is listed twice/,
    );
  },
});

/** zipinfo's listing: permission string, method and name of each entry. */
async function zipEntries(zip: string) {
  const { code, stdout, stderr } = await run("unzip", ["-Z", zip]);
  assert.equal(code, 0, stderr);
  return stdout.split("\n").flatMap((line) => {
    const m = /^([-rwx]{10})\s+\S+\s+unx\s+\d+\s+\S+\s+(stor|defN)\s+\S+\s+\S+\s+(.+)$/.exec(line);
    return m ? [{ mode: m[1], method: m[2], name: m[3] }] : [];
  });
}

const STAND_IN = '#!/bin/sh\necho "phone-eye stand-in $*"\n';

Deno.test({
  name:
    "a bundle unzips with its binary executable, and the MCPB CLI unpacks it runnable and validates it",
  ignore: Deno.build.os === "windows", // the stand-in binary is a shell script
  async fn() {
    await withTempDir(async (dir) => {
      const target = "x86_64-unknown-linux-gnu";
      const binary = join(dir, `phone-eye-${target}`);
      // Not executable on disk: release artifacts lose their mode between jobs, so the bundle
      // must set the run bit itself.
      await Deno.writeTextFile(binary, STAND_IN, { mode: 0o644 });
      const bundle = join(dir, "out", `phone-eye-${target}.mcpb`);
      const args = ["mcpb", "--binary", binary, "--target", target, "--release-url", RELEASE_URL];
      const built = await bundleScript(dir, ...args, "--output", bundle);
      assert.equal(built.code, 0, built.stderr);
      const bytes = await Deno.readFile(bundle);
      assert.match(built.stdout, new RegExp(`${bytes.length} bytes {2}sha256 ${sha256(bytes)}`));

      // Info-ZIP's view: CRCs, modes, and the manifest the script meant to write.
      const tested = await run("unzip", ["-t", bundle]);
      assert.equal(tested.code, 0, tested.stdout);
      assert.match(tested.stdout, /No errors detected/);
      assert.deepEqual(await zipEntries(bundle), [
        { mode: "-rw-r--r--", method: "defN", name: "manifest.json" },
        // Deflated although the stand-in is too small to shrink: scripts/zip.ts says why.
        { mode: "-rwxr-xr-x", method: "defN", name: "server/phone-eye" },
      ]);
      const shown = await run("unzip", ["-p", bundle, "manifest.json"]);
      const manifest: Manifest = JSON.parse(shown.stdout);
      assert.deepEqual(manifest, buildManifest(target, parseReleaseUrl(RELEASE_URL)));
      const unzipped = join(dir, "unzipped");
      assert.equal((await run("unzip", ["-q", bundle, "-d", unzipped])).code, 0);
      assert.equal((await Deno.stat(join(unzipped, "server/phone-eye"))).mode! & 0o777, 0o755);
      assert.equal(
        (await run(join(unzipped, "server/phone-eye"), ["--version"])).stdout,
        "phone-eye stand-in --version\n",
      );

      // The MCPB CLI's own unpacker (the code Claude Desktop uses) restores the run bit.
      const [npx = "", ...mcpbArgs] = MCPB_VALIDATE.split(" ");
      const cli = mcpbArgs.slice(0, -1); // ["-y", "@anthropic-ai/mcpb@X"], without "validate"
      const unpacked = join(dir, "unpacked");
      const unpack = await run(npx, [...cli, "unpack", bundle, unpacked]);
      assert.equal(unpack.code, 0, unpack.stdout + unpack.stderr);
      assert.equal((await Deno.stat(join(unpacked, "server/phone-eye"))).mode! & 0o777, 0o755);
      const entry = join(unpacked, manifest.server.mcp_config.command.replace("${__dirname}/", ""));
      assert.equal((await run(entry, [])).stdout, "phone-eye stand-in \n");

      const valid = await validate(MCPB_VALIDATE, join(unpacked, "manifest.json"));
      assert.equal(valid.code, 0, valid.stdout + valid.stderr);
      assert.match(valid.stdout, /Manifest schema validation passes!/);
      // The same CLI refuses a manifest it should refuse, so the pass above means something.
      const broken = join(dir, "broken.json");
      await Deno.writeTextFile(
        broken,
        JSON.stringify({ ...manifest, server: { ...manifest.server, type: "docker" } }),
      );
      const refused = await validate(MCPB_VALIDATE, broken);
      assert.equal(refused.code, 1, refused.stdout);
      assert.match(refused.stdout, /server\.type: Invalid enum value/);

      // Same inputs, same bytes: a release bundle can be rebuilt and compared.
      const again = join(dir, "again.mcpb");
      assert.equal((await bundleScript(dir, ...args, "--output", again)).code, 0);
      assert.equal(sha256(await Deno.readFile(again)), sha256(bytes));
    });
  },
});

Deno.test({
  name: "server.json written by the bundle script passes the MCP Registry schema check CI runs",
  ignore: Deno.build.os === "windows",
  async fn() {
    await withTempDir(async (dir) => {
      const bundles: string[] = [];
      for (const target of ["x86_64-unknown-linux-gnu", "x86_64-pc-windows-msvc"]) {
        const binary = join(dir, `phone-eye-${target}`);
        await Deno.writeTextFile(binary, STAND_IN);
        const bundle = join(dir, `phone-eye-${target}.mcpb`);
        const built = await bundleScript(
          dir,
          ...["mcpb", "--binary", binary, "--target", target, "--release-url", RELEASE_URL],
          ...["--output", bundle],
        );
        assert.equal(built.code, 0, built.stderr);
        bundles.push(bundle);
      }
      const path = join(dir, "server.json");
      const written = await bundleScript(
        dir,
        ...["server-json", "--release-url", RELEASE_URL, "--output", path, ...bundles],
      );
      assert.equal(written.code, 0, written.stderr);
      const doc: ServerJson = JSON.parse(await Deno.readTextFile(path));
      for (const bundle of bundles) {
        const pkg = doc.packages.find((p) =>
          p.identifier.endsWith(`/${bundle.slice(dir.length + 1)}`)
        );
        assert.equal(pkg?.fileSha256, sha256(await Deno.readFile(bundle)));
      }

      const checked = await validate(SERVER_JSON_VALIDATE, path);
      assert.equal(checked.code, 0, checked.stdout + checked.stderr);
      assert.match(checked.stdout + checked.stderr, /server\.json valid/);
      // Three ways to be wrong, all reported, so the pass above means something.
      const bad = structuredClone(doc) as unknown as Record<string, unknown> & ServerJson;
      bad.description = "x".repeat(101);
      bad.websiteUrl = "not a URL";
      (bad.packages[0] as { fileSha256: string }).fileSha256 = "ABC";
      const badPath = join(dir, "bad.json");
      await Deno.writeTextFile(badPath, JSON.stringify(bad));
      const refused = await validate(SERVER_JSON_VALIDATE, badPath);
      assert.equal(refused.code, 1, refused.stdout + refused.stderr);
      for (const where of ["/description", "/websiteUrl", "/packages/0/fileSha256"]) {
        assert.ok((refused.stdout + refused.stderr).includes(where), `${where} not reported`);
      }
    });
  },
});

Deno.test("deno task bundle reads and writes only dist/, and says so when given another path", async () => {
  const task: string = denoJson.tasks.bundle;
  assert.equal(
    task,
    "deno run --allow-read=dist --allow-write=dist --no-prompt scripts/bundle.ts",
  );
  await withTempDir(async (dir) => {
    const binary = join(dir, "phone-eye");
    await Deno.writeTextFile(binary, STAND_IN);
    const [, ...taskArgs] = task.split(" ");
    const outside = await run(Deno.execPath(), [
      ...taskArgs,
      ...["mcpb", "--binary", binary, "--target", "x86_64-apple-darwin"],
      ...["--release-url", RELEASE_URL],
    ]);
    assert.equal(outside.code, 1);
    assert.match(outside.stderr, /may read and write only under dist\//);
    const noUrl = await run(Deno.execPath(), [...taskArgs, "mcpb"]);
    assert.equal(noUrl.code, 2);
    assert.match(noUrl.stderr, /--release-url is required\n\nUsage:/);
  });
});

Deno.test("the bundle script adds no npm package to the ones the server itself loads", async () => {
  const npmPackages = async (entry: string) => {
    const { code, stdout, stderr } = await run(Deno.execPath(), ["info", "--json", entry]);
    assert.equal(code, 0, stderr);
    return Object.keys((JSON.parse(stdout) as { npmPackages: Record<string, unknown> }).npmPackages)
      .sort();
  };
  const server = await npmPackages("main.ts");
  assert.ok(server.some((name) => name.startsWith("@modelcontextprotocol/server@")));
  const script = await npmPackages("scripts/bundle.ts");
  assert.deepEqual(script.filter((name) => !server.includes(name)), []);
  // Deno downloads every package deno.lock lists on each start (denoland/deno#21261), so the
  // validators CI runs through npx must never be locked.
  const lock = await Deno.readTextFile(join(ROOT, "deno.lock"));
  assert.doesNotMatch(lock, /"(?:npm:)?(?:ajv|ajv-cli|ajv-formats|@anthropic-ai\/mcpb)@/);
});
