// Entry point: flags + env → Config → real deps → serve (stdio or HTTP), or --help, --version, --doctor.
// The wiring is lib/app/'s: real_deps.ts builds the resources, serve_stdio.ts and serve_http.ts serve.

import { type Config, ConfigError, type EnvVar, loadConfig, VERSION } from "./lib/config/config.ts";
import { type CommandLine, parseCommandLine } from "./lib/config/flags.ts";
import { type HttpSettings, loadHttpSettings } from "./lib/mcp/http_settings.ts";
import { doctorCommand } from "./lib/app/doctor_command.ts";
import { narrowNet } from "./lib/app/narrow_net.ts";
import { writeErr, writeOut } from "./lib/app/print.ts";
import { serveOnHttp } from "./lib/app/serve_http.ts";
import { serveOnStdio } from "./lib/app/serve_stdio.ts";

/** Reads one of the variables phone-eye documents (the type admits no other). */
function readEnv(name: EnvVar): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined; // not granted in this build: treated as unset
  }
}

/** Whether this process may read `name` at all: the stdio set does not grant the HTTP ones. */
function envGranted(name: EnvVar): boolean {
  return Deno.permissions.querySync({ name: "env", variable: name }).state === "granted";
}

async function main(argv: string[]): Promise<number | undefined> {
  let config: Config;
  let command;
  let parsed: CommandLine;
  let http: HttpSettings | undefined;
  try {
    parsed = await parseCommandLine(argv);
    command = parsed.command;
    // The help text is loaded for --help only: serving reads names, never their documentation.
    if (command === "help") return writeOut((await import("./lib/app/help.ts")).USAGE), 0;
    if (command === "version") return writeOut(`phone-eye ${VERSION}`), 0;
    // The export reads a file and writes YAML: no phone, no configuration.
    if (command === "maestro") {
      return await (await import("./lib/app/maestro_command.ts")).maestroCommand(parsed.maestro!);
    }
    // A key that would travel unencrypted stops phone-eye; the doctor prints it as a FAIL instead.
    config = loadConfig(readEnv, {
      serial: parsed.serial,
      journal: parsed.journal,
      keyInClear: command === "doctor" ? "report" : "refuse",
    });
    http = loadHttpSettings(readEnv, parsed, { granted: envGranted });
  } catch (error) {
    if (error instanceof ConfigError) return writeErr(`phone-eye: ${error.message}`), 2;
    throw error;
  }
  // Over HTTP the grants that listening needs are narrowed once the socket is bound.
  if (http !== undefined && command === "serve") return await serveOnHttp(config, http);
  narrowNet(config);
  if (command === "doctor") return await doctorCommand(config);
  if (command === "replay") {
    const { replayCommand } = await import("./lib/app/replay_command.ts");
    return await replayCommand(config, { file: parsed.replay!, device: parsed.device });
  }
  serveOnStdio(config);
}

if (import.meta.main) {
  const code = await main(Deno.args);
  if (code !== undefined) Deno.exit(code);
}
