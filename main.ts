// Entry point: flags + env → Config → real adb runner and device → createServer → MCP on stdio.
// Only this file, the adb runner and the vision clients touch the world.

import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { createDevice } from "./lib/adb/device.ts";
import { createAdbRunner } from "./lib/adb/runner.ts";
import { createLink } from "./lib/adb/link.ts";
import { createPhones } from "./lib/adb/phones.ts";
import { realClock } from "./lib/core/clock.ts";
import {
  type Config,
  ConfigError,
  type EnvVar,
  loadConfig,
  parseCommandLine,
  TERMINAL_HINT,
  VERSION,
} from "./lib/config/config.ts";
import { planNetNarrowing, visionHost, visionPort } from "./lib/app/sandbox.ts";
import { BUILD } from "./lib/app/build_info.ts";
import { createServer, preloadAfterFirstAnswer, preloadTools } from "./lib/mcp/server.ts";
import { StdioWire } from "./lib/mcp/stdio_wire.ts";
import { createGarbageCollector } from "./lib/core/memory.ts";
import { createScreens } from "./lib/screen/phone_screen.ts";
import { createShotSaver } from "./lib/screen/shots.ts";
import { createVision } from "./lib/vision/vision.ts";
import {
  bindHostname,
  HTTP_LISTEN_GRANTS,
  type HttpSettings,
  loadHttpSettings,
  mcpUrl,
} from "./lib/mcp/http_settings.ts";

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

/** The screenshot saver over the real file system, or undefined when PHONE_EYE_SHOTS is unset. */
function shotSaver(config: Config): ((png: Uint8Array) => Promise<string>) | undefined {
  if (config.shotsDir === undefined) return undefined;
  return createShotSaver({
    dir: config.shotsDir,
    maxBytes: config.shotsMaxBytes,
    files: {
      mkdir: (dir) => Deno.mkdir(dir, { recursive: true }),
      writeNew: (path, bytes) => Deno.writeFile(path, bytes, { createNew: true, mode: 0o600 }),
      list: async (dir) => (await Array.fromAsync(Deno.readDir(dir))).map((entry) => entry.name),
      lstat: (path) => Deno.lstat(path),
      remove: (path) => Deno.remove(path),
    },
    now: Date.now,
    randomId: () => crypto.randomUUID().slice(0, 8),
  });
}

/**
 * Revokes every baked net grant the configuration does not use, so the running process can reach
 * its vision host and nothing else. Grants can only ever be narrowed at run time, never widened.
 */
function narrowNet(config: Config, granted: readonly string[] = BUILD.net): void {
  const plan = planNetNarrowing(granted, visionHost(config.vision), visionPort(config.vision));
  // Synchronous: some twenty revocations cost ~1.5 ms as awaited promises, all of it at start-up.
  for (const host of plan.revoke) Deno.permissions.revokeSync({ name: "net", host });
}

function world(config: Config, running?: Set<Deno.ChildProcess>) {
  const run = createAdbRunner({ running });
  const timeoutMs = config.adbTimeoutMs;
  const os = Deno.build.os;
  // Host-wide adb calls (devices, connect) share one bound across the server's phones (link.ts).
  const link = createLink({ run, timeoutMs, os });
  return {
    phones: createPhones({
      set: config.phones,
      link,
      makeDevice: (phone) => createDevice({ run, timeoutMs, os, ...phone }),
    }),
    // What the screen layer keeps per phone (the screen before an action), for the process's life.
    screens: createScreens(),
    vision: createVision(config.vision, { fetch: globalThis.fetch, clock: realClock }),
  };
}

/** The resources every MCP server of this process shares: its phones, one vision, one memory. */
function toolDeps(config: Config) {
  const memory = createGarbageCollector();
  const logError = (m: string) => writeErr(`phone-eye: ${m}`);
  const running = new Set<Deno.ChildProcess>();
  const deps = {
    ...world(config, running),
    saveShot: shotSaver(config),
    lookBudgetMs: config.lookBudgetMs,
    clock: realClock,
    memory,
    logError,
  };
  return { deps, memory, logError, running };
}

function serve(config: Config): void {
  if (Deno.stdin.isTerminal()) writeErr(TERMINAL_HINT);
  const { deps, memory, logError, running } = toolDeps(config);
  const preload = preloadAfterFirstAnswer(() => preloadTools(logError));
  // Answers every line that is not a JSON-RPC message, and survives one that is too long.
  const wire = new StdioWire(Deno.stdin, Deno.stdout, {
    afterSend(message) {
      // A screenshot's garbage, collected once its answer has been written (lib/core/memory.ts).
      memory.afterSend();
      // The eyes, loaded once the client has its tool list, so the first look is not slower.
      preload(message);
    },
    // At the end of input each call still in flight is answered first: the longest one is a look
    // (its budget) whose device may first need one adb call to come back (its deadline).
    drainLimitMs: config.lookBudgetMs + config.adbTimeoutMs,
  });
  // Every answer is out (or the drain limit passed): what adb still runs has no one to answer to.
  void wire.closed.then(() => {
    for (const child of running) {
      try {
        child.kill("SIGKILL");
      } catch {
        // It exited on its own in the meantime.
      }
    }
    Deno.exit(0);
  });
  serveStdio(() => createServer(deps), {
    transport: wire,
    onerror: (error) => writeErr(`phone-eye: transport error: ${error.message}`),
  });
}

/**
 * Serves MCP over Streamable HTTP until the process is stopped. The net grants that listening
 * needed are revoked once the socket is bound (an accepted connection asks for none), so the
 * running server reaches its vision host and nothing else, as on stdio.
 */
async function serveHttp(config: Config, http: HttpSettings): Promise<number> {
  let tls: { cert: string; key: string } | undefined;
  if (http.tls !== undefined) {
    try {
      tls = {
        cert: await Deno.readTextFile(http.tls.certFile),
        key: await Deno.readTextFile(http.tls.keyFile),
      };
    } catch (error) {
      writeErr(
        `phone-eye: cannot read the TLS files (${http.tls.certFile}, ${http.tls.keyFile}): ${
          (error as Error).message
        }; run with the http permission set and --allow-read for both files`,
      );
      return 2;
    }
  }
  const { deps, memory, logError } = toolDeps(config);
  // Loaded here, not at start-up: stdio never needs the HTTP face.
  const { createHttpHandler } = await import("./lib/mcp/http_serve.ts");
  let preloaded = false;
  const handler = createHttpHandler({
    settings: http,
    server: () => createServer(deps),
    logError,
    afterResponse() {
      memory.afterSend();
      if (preloaded) return;
      preloaded = true;
      preloadTools(logError).catch(() => {});
    },
  });
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve({
      hostname: bindHostname(http.listen),
      port: http.listen.port,
      ...tls,
      onListen() {},
      onError(error) {
        logError(`http: ${(error as Error).message}`);
        return new Response("Internal error", { status: 500 });
      },
    }, (request, info) => handler.fetch(request, info.remoteAddr.hostname));
  } catch (error) {
    writeErr(
      `phone-eye: cannot listen on ${http.listen.hostname}:${http.listen.port}: ${
        (error as Error).message
      }`,
    );
    return 1;
  }
  narrowNet(config, [...BUILD.net, ...HTTP_LISTEN_GRANTS]);
  const url = mcpUrl({ ...http.listen, port: server.addr.port }, tls !== undefined);
  writeErr(
    `phone-eye ${VERSION} serving MCP at ${url} (${
      http.token === undefined ? "no token: loopback only" : "bearer token required"
    })`,
  );
  await server.finished;
  await handler.close();
  return 0;
}

async function doctor(config: Config): Promise<number> {
  const { phones, vision } = world(config);
  // Loaded here, not at start-up: the doctor pulls in the image encoder for its vision probe.
  const { formatChecks, runDoctor } = await import("./lib/app/doctor.ts");
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
  let http: HttpSettings | undefined;
  try {
    const parsed = await parseCommandLine(argv);
    command = parsed.command;
    // The help text is loaded for --help only: serving reads names, never their documentation.
    if (command === "help") return writeOut((await import("./lib/app/help.ts")).USAGE), 0;
    if (command === "version") return writeOut(`phone-eye ${VERSION}`), 0;
    // A key that would travel unencrypted stops phone-eye; the doctor prints it as a FAIL instead.
    config = loadConfig(readEnv, parsed.serial, {
      keyInClear: command === "doctor" ? "report" : "refuse",
    });
    http = loadHttpSettings(readEnv, parsed);
  } catch (error) {
    if (error instanceof ConfigError) return writeErr(`phone-eye: ${error.message}`), 2;
    throw error;
  }
  if (http !== undefined && command === "serve") return await serveHttp(config, http);
  narrowNet(config);
  if (command === "doctor") return await doctor(config);
  serve(config);
}

if (import.meta.main) {
  const code = await main(Deno.args);
  if (code !== undefined) Deno.exit(code);
}
