// `deno task bundle`: packs a compiled phone-eye binary into an MCP Bundle (.mcpb) for one target,
// and writes the MCP Registry's server.json listing a release's bundles with their SHA-256.
// deno-lint-ignore-file no-console -- a CLI script: the terminal is its only output

import { basename, dirname } from "node:path";
import { parseArgs } from "node:util";
import denoJson from "../deno.json" with { type: "json" };
import {
  DEFAULT_ADB_TIMEOUT_MS,
  DEFAULT_BASE_URL,
  DEFAULT_MODEL,
  DEFAULT_VISION_TIMEOUT_MS,
  DEFAULT_VISION_TOOL,
} from "../lib/config/config.ts";
import { ADB_ENV_VARS } from "../lib/config/env_vars.ts";
import { grantReason } from "./env_grants.ts";
import { compilePermissionSetName, readPermissionSet } from "./permissions.ts";
import { TOOLS } from "../lib/tools/index.ts";
import { writeZip } from "./zip.ts";

const USAGE = `Usage:
  deno task bundle mcpb --binary PATH --target TRIPLE --release-url URL [--output PATH]
  deno task bundle server-json --release-url URL [--output PATH] BUNDLE.mcpb...

  mcpb         pack the compiled binary for TRIPLE into an MCP Bundle
               (default output: dist/phone-eye-TRIPLE.mcpb)
  server-json  write the MCP Registry's server.json for the release's bundles
               (default output: dist/server.json)

  --release-url  the release's download folder,
                 https://github.com/OWNER/REPO/releases/download/vVERSION
                 (VERSION is deno.json "version")

The task may read and write only under dist/.`;

// The two validators run through npx, never from Deno: Deno downloads every npm package its
// lockfile lists whenever it starts a program (denoland/deno#21261), so a validator in deno.lock
// would be fetched by `deno task start` too. CI and tests/long/bundle_test.ts append a path to these.

/** The MCPB CLI (2.1.2 knows manifest versions 0.1 to 0.4) validating a manifest.json. */
export const MCPB_VALIDATE = "npx -y @anthropic-ai/mcpb@2.1.2 validate";
/**
 * Ajv (draft-07, with ajv-formats for "uri") checking a server.json against the vendored MCP
 * Registry schema. Strict mode is off because the schema carries OpenAPI's "example" annotation,
 * which Ajv's strict mode refuses as an unknown keyword.
 */
export const SERVER_JSON_VALIDATE = "npx -y -p ajv-cli@5.0.0 -p ajv-formats@3.0.1 ajv validate " +
  "--spec=draft7 --strict=false --all-errors -c ajv-formats " +
  "-s scripts/schemas/server.schema.json -d";
/**
 * The newest manifest version MCPB's MANIFEST.md calls current ("Current version: 0.3",
 * modelcontextprotocol/mcpb at 27083dcf93c4d1c589af6b539ec746e50d6068e7); 0.4 is marked
 * experimental there.
 */
export const MANIFEST_VERSION = "0.3";
/** The schema server.json declares; scripts/schemas/server.schema.json is this file, vendored. */
export const SERVER_SCHEMA_URL =
  "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";
export const VERSION: string = denoJson.version;

const NAME = "phone-eye";
const DESCRIPTION =
  "Let an AI agent see and drive a real Android phone through adb, with the vision model you pick.";
/** Over this, the file is not a phone-eye build (they are about 100 MB); refuse before reading. */
const MAX_BINARY_BYTES = 1024 * 1024 * 1024;

// ---- the environment variables, from one place ----

/** One environment variable a release binary reads, as the bundle and the registry present it. */
export interface ReleaseEnvVar {
  name: string;
  description: string;
  secret: boolean;
  format: "string" | "number";
  /** phone-eye's own default, given only where setting it is the same as leaving it unset. */
  default?: string;
  /** When the bundle's install dialog asks for it: the user_config key and the field's title. */
  userConfig?: { key: string; title: string };
}

type Presentation =
  | Omit<ReleaseEnvVar, "name" | "description" | "secret" | "format">
    & { secret?: boolean; format?: "string" | "number"; whenEmpty: string }
  | { leftOut: string };

/**
 * How the bundle and server.json present each variable. The names come from deno.json (below);
 * this table only adds what a user needs to fill them in, and a name without an entry stops the
 * build, so a new variable cannot ship unpresented.
 */
const PRESENTATION: Readonly<Record<string, Presentation>> = {
  ANDROID_SERIAL: {
    whenEmpty: "adb's only device",
    userConfig: { key: "android_serial", title: "Phone serial (ip:port for Wi-Fi)" },
  },
  PHONE_EYE_DEVICES: {
    whenEmpty: "the phone ANDROID_SERIAL names, or adb's only device",
    userConfig: {
      key: "phone_devices",
      title: "Phones to drive (serials separated by commas, or * for any)",
    },
  },
  PHONE_EYE_VISION_API_KEY: {
    secret: true,
    whenEmpty: "no key (a keyless local server needs only the base URL)",
    userConfig: { key: "vision_api_key", title: "Vision API key" },
  },
  PHONE_EYE_VISION_BASE_URL: {
    // No default: setting it selects the direct route, so it is not the same as leaving it unset.
    whenEmpty: `${DEFAULT_BASE_URL} when a key is set`,
    userConfig: { key: "vision_base_url", title: "Vision base URL (OpenAI-compatible)" },
  },
  PHONE_EYE_VISION_MODEL: {
    default: DEFAULT_MODEL,
    whenEmpty: DEFAULT_MODEL,
    userConfig: { key: "vision_model", title: "Vision model" },
  },
  PHONE_EYE_VISION_URL: {
    whenEmpty: "no MCP vision route; it is used only when neither key nor base URL is set",
    userConfig: { key: "vision_mcp_url", title: "Vision MCP server URL" },
  },
  PHONE_EYE_VISION_TOOL: { default: DEFAULT_VISION_TOOL, whenEmpty: DEFAULT_VISION_TOOL },
  // Not asked in the install dialog: sending a key unencrypted is opted into by hand, knowingly.
  PHONE_EYE_VISION_ALLOW_HTTP: { whenEmpty: "the key goes over https:// or to this machine only" },
  PHONE_EYE_SHOTS: {
    leftOut: "a release binary may not write files (deno task compile --shots-dir bakes one " +
      "folder into a custom build), so setting it only gets a refusal",
  },
  PHONE_EYE_SHOTS_MAX_MB: {
    leftOut: "it bounds PHONE_EYE_SHOTS, which a release binary may not use",
  },
  PHONE_EYE_JOURNAL: {
    leftOut: "a release binary may not write files (deno task compile --journal-dir bakes one " +
      "folder into a custom build), so setting it only gets a refusal",
  },
  PHONE_EYE_ADB_TIMEOUT_MS: {
    format: "number",
    default: String(DEFAULT_ADB_TIMEOUT_MS),
    whenEmpty: `${DEFAULT_ADB_TIMEOUT_MS} ms`,
  },
  PHONE_EYE_VISION_TIMEOUT_MS: {
    format: "number",
    default: String(DEFAULT_VISION_TIMEOUT_MS),
    whenEmpty: `${DEFAULT_VISION_TIMEOUT_MS} ms`,
  },
};

/**
 * The variables a release binary reads and a user may set, in deno.json order. The names are
 * the env grant of the permission set the binaries bake (deno.json "compile.permissions"), the
 * descriptions the grant reasons of scripts/env_grants.ts. Throws when a granted name has no
 * presentation or a presentation no grant.
 */
export function releaseEnvVars(config: unknown = denoJson): ReleaseEnvVar[] {
  const granted = readPermissionSet(config, compilePermissionSetName(config)).env;
  if (!Array.isArray(granted)) {
    throw new Error("the compile permission set must grant a list of environment variables");
  }
  const stale = Object.keys(PRESENTATION).filter((name) => !granted.includes(name));
  if (stale.length > 0) throw new Error(`presented but not granted: ${stale.join(", ")}`);
  return granted.flatMap((name): ReleaseEnvVar[] => {
    // Granted only so that phone-eye can pass them on to adb: not settings a user gives phone-eye.
    if (ADB_ENV_VARS.some((adb) => adb === name)) return [];
    const shown = PRESENTATION[name];
    const reason = grantReason(name);
    if (shown === undefined || reason === undefined) {
      throw new Error(`${name} is granted but has no description or presentation for bundles`);
    }
    if ("leftOut" in shown) return [];
    const { whenEmpty, secret = false, format = "string", ...rest } = shown;
    const description = `${reason[0]?.toUpperCase()}${
      reason.slice(1)
    }. Leave empty for ${whenEmpty}.`;
    return [{ name, description, secret, format, ...rest }];
  });
}

// ---- targets and the release ----

export type Platform = "linux" | "darwin" | "win32";

/** The `deno compile --target` triples a bundle can be made for, and MCPB's platform for each. */
export function platformOf(target: string): Platform {
  const match = /^(?:x86_64|aarch64)-(unknown-linux-gnu|apple-darwin|pc-windows-msvc)$/.exec(
    target,
  );
  if (!match) {
    throw new Error(
      `"${target}" is not a deno compile target phone-eye ships; use e.g. x86_64-unknown-linux-gnu, aarch64-apple-darwin, x86_64-pc-windows-msvc`,
    );
  }
  return match[1] === "unknown-linux-gnu"
    ? "linux"
    : match[1] === "apple-darwin"
    ? "darwin"
    : "win32";
}

export const bundleFileName = (target: string): string => `${NAME}-${target}.mcpb`;

export interface Release {
  owner: string;
  repo: string;
  tag: string;
  /** The download folder, without a trailing slash. */
  url: string;
}

/**
 * Parses a GitHub release download folder and checks its tag is v`version`: the registry takes
 * MCPB packages only from GitHub or GitLab releases, and this workflow publishes on GitHub.
 */
export function parseReleaseUrl(url: string, version: string = VERSION): Release {
  const match =
    /^https:\/\/github\.com\/([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)\/([A-Za-z0-9._-]+)\/releases\/download\/([^/?#\s]+)$/
      .exec(url.replace(/\/+$/, ""));
  if (!match) {
    throw new Error(
      `release URL ${
        JSON.stringify(url)
      } is not https://github.com/OWNER/REPO/releases/download/TAG`,
    );
  }
  const [, owner = "", repo = "", tag = ""] = match;
  if (tag !== `v${version}`) {
    throw new Error(
      `release tag ${tag} does not match deno.json version ${version}; expected v${version}`,
    );
  }
  return { owner, repo, tag, url: `https://github.com/${owner}/${repo}/releases/download/${tag}` };
}

// ---- the bundle ----

/** What a phone-eye bundle's manifest.json holds: the part of MCPB's MANIFEST.md 0.3 it uses. */
export interface Manifest {
  manifest_version: string;
  name: string;
  display_name: string;
  version: string;
  description: string;
  long_description: string;
  author: { name: string; url: string };
  repository: { type: string; url: string };
  homepage: string;
  documentation: string;
  support: string;
  server: {
    type: "binary";
    entry_point: string;
    mcp_config: { command: string; args: string[]; env: Record<string, string> };
  };
  tools: { name: string; description: string }[];
  keywords: string[];
  compatibility: { platforms: Platform[] };
  user_config: Record<string, UserConfigOption>;
}

interface UserConfigOption {
  type: "string";
  title: string;
  description: string;
  required: boolean;
  default: string;
  sensitive?: boolean;
}

/** The manifest.json of the bundle for `target`. */
export function buildManifest(
  target: string,
  release: Release,
  version: string = VERSION,
): Manifest {
  const platform = platformOf(target);
  const entryPoint = `server/${NAME}${platform === "win32" ? ".exe" : ""}`;
  const vars = releaseEnvVars();
  const repository = `https://github.com/${release.owner}/${release.repo}`;
  const asked = vars.flatMap((v) => v.userConfig ? [{ ...v, userConfig: v.userConfig }] : []);
  return {
    manifest_version: MANIFEST_VERSION,
    name: NAME,
    display_name: NAME,
    version,
    description: DESCRIPTION,
    long_description: [
      `phone-eye is an MCP server that lets an AI agent look at an Android phone's screen and tap, swipe, type, press keys and open apps, through the real \`adb\`.`,
      "",
      "- `adb` must be on the PATH the app starts phone-eye with, and the phone attached over USB or Wi-Fi with USB debugging allowed.",
      "- Screenshots go only to the vision model you configure here; with none, `phone_look` still returns the phone's UI tree.",
      `- This bundle holds the binary for ${target}. Its Deno sandbox lets it run only \`adb\`, read only its own settings and the ones it passes on to \`adb\`, and reach only loopback, private networks and a fixed list of vision providers.`,
    ].join("\n"),
    author: { name: release.owner, url: `https://github.com/${release.owner}` },
    repository: { type: "git", url: repository },
    homepage: repository,
    documentation: `${repository}#readme`,
    support: `${repository}/issues`,
    server: {
      type: "binary" as const,
      entry_point: entryPoint,
      mcp_config: {
        command: `\${__dirname}/${entryPoint}`,
        args: [],
        env: Object.fromEntries(asked.map((v) => [v.name, `\${user_config.${v.userConfig.key}}`])),
      },
    },
    tools: TOOLS.map((tool) => ({ name: tool.name, description: firstSentence(tool.description) })),
    keywords: ["android", "adb", "phone", "mobile", "automation", "vision"],
    compatibility: { platforms: [platform] },
    user_config: Object.fromEntries(
      asked.map((v): [string, UserConfigOption] => [v.userConfig.key, {
        type: "string",
        title: v.userConfig.title,
        description: v.description,
        required: false,
        // An optional field with no value and no default keeps its "${user_config.KEY}" text in
        // the env (getMcpConfigForManifest in modelcontextprotocol/mcpb src/shared/config.ts, at
        // 27083dcf93c4d1c589af6b539ec746e50d6068e7); "" reaches phone-eye, which treats it as unset.
        default: "",
        ...(v.secret ? { sensitive: true } : {}),
      }]),
    ),
  };
}

function firstSentence(text: string): string {
  return /^.*?[.!?](?=\s|$)/.exec(text)?.[0] ?? text;
}

/** The .mcpb for `target`: manifest.json plus the binary, whose run bit the zip records. */
export function buildBundle(
  binary: Uint8Array,
  target: string,
  release: Release,
): { fileName: string; manifest: Manifest; bytes: Uint8Array } {
  const manifest = buildManifest(target, release);
  const bytes = writeZip([
    {
      name: "manifest.json",
      data: new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`),
      mode: 0o644,
    },
    { name: manifest.server.entry_point, data: binary, mode: 0o755 },
  ]);
  return { fileName: bundleFileName(target), manifest, bytes };
}

// ---- server.json ----

/** What phone-eye's server.json holds, in the MCP Registry's 2025-12-11 format. */
export interface ServerJson {
  $schema: string;
  name: string;
  title: string;
  description: string;
  version: string;
  repository: { url: string; source: string };
  websiteUrl: string;
  packages: {
    registryType: "mcpb";
    identifier: string;
    version: string;
    fileSha256: string;
    transport: { type: "stdio" };
    environmentVariables: {
      name: string;
      description: string;
      isRequired: boolean;
      isSecret: boolean;
      format: "string" | "number";
      default?: string;
    }[];
  }[];
}

/** The MCP Registry entry for the release's bundles: one mcpb package per file. */
export async function buildServerJson(
  release: Release,
  bundles: readonly { fileName: string; bytes: Uint8Array }[],
  version: string = VERSION,
): Promise<ServerJson> {
  if (bundles.length === 0) throw new Error("server.json needs at least one bundle");
  const names = bundles.map((b) => b.fileName);
  for (const name of names) {
    const target = /^phone-eye-(.+)\.mcpb$/.exec(name)?.[1];
    if (target === undefined) throw new Error(`${name} is not named phone-eye-TARGET.mcpb`);
    platformOf(target);
  }
  for (const { fileName, bytes } of bundles) {
    // "PK\x03\x04": every bundle starts with a local file header (see scripts/zip.ts).
    if (bytes[0] !== 0x50 || bytes[1] !== 0x4b || bytes[2] !== 3 || bytes[3] !== 4) {
      throw new Error(
        `${fileName} is not a zip archive; pass the .mcpb files deno task bundle mcpb wrote`,
      );
    }
  }
  if (new Set(names).size !== names.length) throw new Error("a bundle is listed twice");
  const environmentVariables = releaseEnvVars().map((v) => ({
    name: v.name,
    description: v.description,
    isRequired: false,
    isSecret: v.secret,
    format: v.format,
    ...(v.default === undefined ? {} : { default: v.default }),
  }));
  const packages = await Promise.all(
    [...bundles].sort((a, b) => a.fileName.localeCompare(b.fileName)).map(async (bundle) => ({
      registryType: "mcpb" as const,
      identifier: `${release.url}/${bundle.fileName}`,
      version,
      fileSha256: await sha256Hex(bundle.bytes),
      transport: { type: "stdio" as const },
      environmentVariables,
    })),
  );
  return {
    $schema: SERVER_SCHEMA_URL,
    name: `io.github.${release.owner}/${release.repo}`,
    title: NAME,
    description: DESCRIPTION,
    version,
    repository: { url: `https://github.com/${release.owner}/${release.repo}`, source: "github" },
    websiteUrl: `https://github.com/${release.owner}/${release.repo}#readme`,
    packages,
  };
}

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

// ---- the command line ----

async function readBinary(path: string): Promise<Uint8Array> {
  const { size, isFile } = await Deno.stat(path);
  if (!isFile) throw new Error(`${path} is not a file`);
  if (size > MAX_BINARY_BYTES) {
    throw new Error(`${path} is ${size} bytes; a phone-eye build is far smaller`);
  }
  return await Deno.readFile(path);
}

async function write(path: string, bytes: Uint8Array): Promise<void> {
  await Deno.mkdir(dirname(path), { recursive: true });
  await Deno.writeFile(path, bytes);
  console.log(`${path}  ${bytes.length} bytes  sha256 ${await sha256Hex(bytes)}`);
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: {
        binary: { type: "string" },
        target: { type: "string" },
        "release-url": { type: "string" },
        output: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const [command, ...files] = positionals;
  const releaseUrl = values["release-url"];
  const usage = (why: string) => {
    console.error(`${why}\n\n${USAGE}`);
    return 2;
  };
  if (releaseUrl === undefined) return usage("--release-url is required");
  try {
    const release = parseReleaseUrl(releaseUrl);
    if (command === "mcpb") {
      if (values.binary === undefined || values.target === undefined || files.length > 0) {
        return usage("mcpb takes --binary and --target, and no file arguments");
      }
      const bundle = buildBundle(await readBinary(values.binary), values.target, release);
      await write(values.output ?? `dist/${bundle.fileName}`, bundle.bytes);
      return 0;
    }
    if (command === "server-json") {
      if (values.binary !== undefined || values.target !== undefined || files.length === 0) {
        return usage("server-json takes the bundle files, and neither --binary nor --target");
      }
      const bundles = await Promise.all(
        files.map(async (path) => ({ fileName: basename(path), bytes: await readBinary(path) })),
      );
      const doc = await buildServerJson(release, bundles);
      await write(
        values.output ?? "dist/server.json",
        new TextEncoder().encode(`${JSON.stringify(doc, null, 2)}\n`),
      );
      return 0;
    }
    return usage(command === undefined ? "name a command" : `unknown command ${command}`);
  } catch (err) {
    if (err instanceof Deno.errors.NotCapable) {
      console.error(`${err.message}\ndeno task bundle may read and write only under dist/`);
    } else {
      console.error((err as Error).message);
    }
    return 1;
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
