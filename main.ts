// Entry point: flags + env → Config → real adb runner and device → createServer → MCP on stdio.
// Only this file, the adb runner and the vision clients touch the world.

import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { createDevice } from "./lib/adb/device.ts";
import { createAdbRunner } from "./lib/adb/runner.ts";
import {
  type Config,
  ConfigError,
  ENV_VARS,
  type EnvVar,
  loadConfig,
  parseCommandLine,
  USAGE,
  VERSION,
} from "./lib/config.ts";
import { createServer } from "./lib/server.ts";

const encoder = new TextEncoder();
const writeErr = (text: string) => Deno.stderr.writeSync(encoder.encode(`${text}\n`));
const writeOut = (text: string) => Deno.stdout.writeSync(encoder.encode(`${text}\n`));

/** Reads only the variables phone-eye documents; anything else is not ours to read. */
function readEnv(name: EnvVar): string | undefined {
  if (!ENV_VARS.includes(name)) return undefined;
  try {
    return Deno.env.get(name);
  } catch {
    return undefined; // not granted in this build: treated as unset
  }
}

function serve(config: Config): void {
  const device = createDevice({
    run: createAdbRunner(),
    serial: config.serial,
    timeoutMs: config.adbTimeoutMs,
    os: Deno.build.os,
  });
  const deps = { device, logError: (m: string) => writeErr(`phone-eye: ${m}`) };
  serveStdio(() => createServer(deps), {
    onerror: (error) => writeErr(`phone-eye: transport error: ${error.message}`),
  });
}

function main(argv: string[]): number | undefined {
  let config: Config;
  let command;
  try {
    const parsed = parseCommandLine(argv);
    command = parsed.command;
    if (command === "help") return writeOut(USAGE), 0;
    if (command === "version") return writeOut(`phone-eye ${VERSION}`), 0;
    config = loadConfig(readEnv, parsed.serial);
  } catch (error) {
    if (error instanceof ConfigError) return writeErr(`phone-eye: ${error.message}`), 2;
    throw error;
  }
  if (command === "doctor") {
    writeErr("phone-eye: --doctor is not available yet");
    return 1;
  }
  serve(config);
}

if (import.meta.main) {
  const code = main(Deno.args);
  if (code !== undefined) Deno.exit(code);
}
