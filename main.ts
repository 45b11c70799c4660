// Entry point: flags + env → Config → real adb runner and device → createServer → MCP on stdio.
// Only this file, the adb runner and the vision clients touch the world.

import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { createDevice } from "./lib/adb/device.ts";
import { createAdbRunner } from "./lib/adb/runner.ts";
import { createPhones } from "./lib/phones.ts";
import { realClock } from "./lib/clock.ts";
import {
  type Config,
  ConfigError,
  type EnvVar,
  loadConfig,
  parseCommandLine,
  TERMINAL_HINT,
  VERSION,
} from "./lib/config.ts";
import { planNetNarrowing, visionHost, visionPort } from "./lib/sandbox.ts";
import { BUILD } from "./lib/build_info.ts";
import { createServer, preloadAfterFirstAnswer, preloadTools } from "./lib/server.ts";
import { StdioWire } from "./lib/stdio_wire.ts";
import { createGarbageCollector } from "./lib/memory.ts";
import { createVision } from "./lib/vision/vision.ts";

const encoder = new TextEncoder();
const writeErr = (text: string) => Deno.stderr.writeSync(encoder.encode(`${text}\n`));
const writeOut = (text: string) => Deno.stdout.writeSync(encoder.encode(`${text}\n`));

/** Reads one of the variables phone-eye documents (the type admits no other). */
function readEnv(name: EnvVar): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined; // not granted in this build: treated as unset
  }
}

/**
 * Keeps screenshots in PHONE_EYE_SHOTS. Each file gets a fresh random name and is created with
 * createNew (O_EXCL), so a symlink planted in the folder is never followed. A failure to save is
 * reported in the tool's text; it never costs the agent its screenshot.
 */
function shotSaver(dir: string | undefined): ((png: Uint8Array) => Promise<string>) | undefined {
  if (dir === undefined) return undefined;
  return async (png) => {
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    const path = `${dir.replace(/[\\/]+$/, "")}/phone-eye-${stamp}-${
      crypto.randomUUID().slice(0, 8)
    }.png`;
    try {
      await Deno.mkdir(dir, { recursive: true });
      await Deno.writeFile(path, png, { createNew: true, mode: 0o600 });
      return `Saved to ${path}.`;
    } catch (error) {
      return `Not saved to PHONE_EYE_SHOTS (${dir}): ${(error as Error).message}.`;
    }
  };
}

/**
 * Revokes every baked net grant the configuration does not use, so the running process can reach
 * its vision host and nothing else. Grants can only ever be narrowed at run time, never widened.
 */
function narrowNet(config: Config): void {
  const plan = planNetNarrowing(BUILD.net, visionHost(config.vision), visionPort(config.vision));
  // Synchronous: some twenty revocations cost ~1.5 ms as awaited promises, all of it at start-up.
  for (const host of plan.revoke) Deno.permissions.revokeSync({ name: "net", host });
}

function world(config: Config) {
  const run = createAdbRunner();
  const timeoutMs = config.adbTimeoutMs;
  return {
    phones: createPhones({
      set: config.phones,
      run,
      timeoutMs,
      makeDevice: (serial, connects) =>
        createDevice({ run, serial, timeoutMs, os: Deno.build.os, connects }),
    }),
    vision: createVision(config.vision, { fetch: globalThis.fetch, clock: realClock }),
  };
}

function serve(config: Config): void {
  if (Deno.stdin.isTerminal()) writeErr(TERMINAL_HINT);
  const memory = createGarbageCollector();
  const logError = (m: string) => writeErr(`phone-eye: ${m}`);
  const deps = {
    ...world(config),
    saveShot: shotSaver(config.shotsDir),
    lookBudgetMs: config.lookBudgetMs,
    clock: realClock,
    memory,
    logError,
  };
  const preload = preloadAfterFirstAnswer(() => preloadTools(logError));
  // Answers every line that is not a JSON-RPC message, and survives one that is too long.
  const wire = new StdioWire(Deno.stdin, Deno.stdout, {
    afterSend(message) {
      // A screenshot's garbage, collected once its answer has been written (lib/memory.ts).
      memory.afterSend();
      // The eyes, loaded once the client has its tool list, so the first look is not slower.
      preload(message);
    },
  });
  serveStdio(() => createServer(deps), {
    transport: wire,
    onerror: (error) => writeErr(`phone-eye: transport error: ${error.message}`),
  });
}

async function doctor(config: Config): Promise<number> {
  const { phones, vision } = world(config);
  // Loaded here, not at start-up: the doctor pulls in the image encoder for its vision probe.
  const { formatChecks, runDoctor } = await import("./lib/doctor.ts");
  const checks = await runDoctor({
    config,
    phones,
    vision,
    build: BUILD,
    query: async (descriptor) => (await Deno.permissions.query(descriptor)).state === "granted",
  });
  await vision.close();
  writeOut(`phone-eye ${VERSION} --doctor\n${formatChecks(checks)}`);
  return checks.every((c) => c.ok) ? 0 : 1;
}

async function main(argv: string[]): Promise<number | undefined> {
  let config: Config;
  let command;
  try {
    const parsed = await parseCommandLine(argv);
    command = parsed.command;
    // The help text is loaded for --help only: serving reads names, never their documentation.
    if (command === "help") return writeOut((await import("./lib/help.ts")).USAGE), 0;
    if (command === "version") return writeOut(`phone-eye ${VERSION}`), 0;
    config = loadConfig(readEnv, parsed.serial);
  } catch (error) {
    if (error instanceof ConfigError) return writeErr(`phone-eye: ${error.message}`), 2;
    throw error;
  }
  narrowNet(config);
  if (command === "doctor") return await doctor(config);
  serve(config);
}

if (import.meta.main) {
  const code = await main(Deno.args);
  if (code !== undefined) Deno.exit(code);
}
