// Runs main.ts as a subprocess under the production permission set from deno.json (vision net
// swapped for 127.0.0.1), driven by the SDK's real Client over stdio: tier-3 tests.

import { Client } from "@modelcontextprotocol/client";
import { DenoStdioClientTransport } from "./deno_stdio_transport.ts";
import {
  permissionFlags,
  type PermissionSet,
  readPermissionSet,
  withJournalDir,
  withShotsDir,
  withVisionHosts,
} from "../../scripts/permissions.ts";
import { runtimeFlags } from "../../scripts/runtime_flags.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

/** deno.json's production set, as the binaries and `deno task start` get it. */
export async function productionSet(): Promise<PermissionSet> {
  const denoJson = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  return readPermissionSet(denoJson, "default");
}

/** deno.json's start task's runtime flags (export conditions, V8 settings): as production runs. */
export async function startFlags(): Promise<string[]> {
  return runtimeFlags(JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)));
}

/** The production set with its vision hosts swapped for loopback (and the shots folder, if any). */
export async function testPermissionFlags(
  shotsDir?: string,
  journalDir?: string,
): Promise<string[]> {
  let set = withVisionHosts(await productionSet(), ["127.0.0.1"]);
  if (shotsDir !== undefined) set = withShotsDir(set, shotsDir);
  if (journalDir !== undefined) set = withJournalDir(set, journalDir);
  return permissionFlags(set);
}

export interface PhoneEyeProcess extends AsyncDisposable {
  client: Client;
  /** The deno process running main.ts (for /proc/<pid>/status). */
  pid: number;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** Closes the client, ends the server's stdin and waits for it to exit. Safe to call twice. */
  close(): Promise<void>;
}

export interface PhoneEyeOptions {
  /** ANDROID_ADB_SERVER_PORT, HOME, ANDROID_SERIAL, PHONE_EYE_* … */
  env: Record<string, string>;
  args?: string[];
  shotsDir?: string;
  /** The journal's folder, granted as the screenshot folder is (scripts/permissions.ts). */
  journalDir?: string;
  /** Replaces the permission flags entirely (for refusal tests). */
  flags?: string[];
  /** Replaces the start task's runtime flags (benches compare start-up without them). */
  runtimeFlags?: string[];
  /** Another entry point than main.ts, from the repository root (a bench's reference server). */
  entry?: string;
}

/**
 * Deno's cache of this test run. The server gets a temporary HOME (for adb's keys), and without
 * this it would look for its npm packages under that empty HOME and fetch them again.
 */
export async function denoDir(): Promise<string> {
  const fromEnv = Deno.env.get("DENO_DIR");
  if (fromEnv) return fromEnv;
  // Deno's default on Linux; asking `deno info` costs a process start, so only when it is absent.
  const xdg = Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME")}/.cache`;
  if (await Deno.stat(`${xdg}/deno/npm`).then(() => true, () => false)) return `${xdg}/deno`;
  const { stdout } = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdin: "null",
    stderr: "null",
  }).output();
  return JSON.parse(new TextDecoder().decode(stdout)).denoDir;
}

/** The whole environment a deno child of the tests starts from (with clearEnv): PATH, the cache. */
export async function denoEnv(): Promise<Record<string, string>> {
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    DENO_DIR: await denoDir(),
    NO_COLOR: "1",
  };
}

export async function startPhoneEye(options: PhoneEyeOptions): Promise<PhoneEyeProcess> {
  const flags = options.flags ?? await testPermissionFlags(options.shotsDir, options.journalDir);
  const transport = new DenoStdioClientTransport({
    command: Deno.execPath(),
    args: [
      "run",
      "--no-prompt",
      ...(options.runtimeFlags ?? await startFlags()),
      ...flags,
      `${ROOT}${options.entry ?? "main.ts"}`,
      ...(options.args ?? []),
    ],
    env: {
      ...await denoEnv(),
      ...options.env,
    },
    cwd: ROOT,
  });
  const client = new Client({ name: "phone-eye-test", version: "0" });
  try {
    await client.connect(transport);
  } catch (error) {
    await transport.close();
    throw new Error(`phone-eye did not start: ${transport.stderrText().trim()}`, { cause: error });
  }
  let closing: Promise<void> | undefined;
  const close = () =>
    closing ??= (async () => {
      await client.close();
      // The client skips its transport when the server already exited; the pipes still need it.
      await transport.close();
    })();
  return {
    client,
    pid: transport.pid!,
    stderr: () => transport.stderrText(),
    close,
    [Symbol.asyncDispose]: close,
  };
}
