// `deno task sim`: runs the simulated phone on 127.0.0.1 until Ctrl-C, so phone-eye (or plain
// adb) can be pointed at it by hand, and prints the MCP client configuration that does so.
// Flags: --port, --width, --height, --model, --android, --legacy, --adb-keyboard, --realistic.
//
// The default port is fixed (DEFAULT_PORT), so a client configured once keeps working after the
// phone restarts; a random port meant editing ANDROID_SERIAL each time. When it is taken the sim
// says so and stops rather than move elsewhere silently; --port 0 asks for any free port.

import { parseArgs } from "node:util";
import { INSTANT_MOTION, REALISTIC_MOTION, startSimPhone } from "./sim_phone.ts";
import { ANDROID_VERSIONS, parseAndroidVersion } from "./android.ts";
import { claudeMcpAdd, mcpServersJson, serverCommand } from "./client_config.ts";

/** Outside 5555-5585, which every adb server on the machine scans for emulators by itself. */
export const DEFAULT_PORT = 15555;

const USAGE =
  `usage: deno task sim [--port N] [--width W] [--height H] [--android V] [--legacy] [--model NAME]
                     [--adb-keyboard] [--realistic]
  --port    TCP port on 127.0.0.1 (default ${DEFAULT_PORT}, the same on every start; 0 for any free
            one; 5555-5585 also appear as emulator-55xx in every adb server on this machine)
  --realistic  app switches take ${REALISTIC_MOTION.launch} ms to draw (the UI dump then answers "could not
            get idle state"), and Notes' "Saved" shows ${REALISTIC_MOTION.snackbarDelay} ms after Save for ${REALISTIC_MOTION.snackbar} ms
            (default: all at once, "Saved" stays)
  --android the Android release its tools behave as: ${ANDROID_VERSIONS.join(", ")} (default 14)
  --legacy  no shell_v2: old-Android shell without exit codes or separate stderr
  --adb-keyboard  ADB Keyboard is installed, so phone_type can type any language`;

function positiveInt(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new Error(`--${name} must be a whole number, got "${value}"`);
  return Number(value);
}

async function main(): Promise<number> {
  let flags;
  try {
    flags = parseArgs({
      args: Deno.args,
      options: {
        port: { type: "string" },
        width: { type: "string" },
        height: { type: "string" },
        model: { type: "string" },
        android: { type: "string" },
        legacy: { type: "boolean" },
        "adb-keyboard": { type: "boolean" },
        realistic: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }).values;
  } catch (e) {
    // deno-lint-ignore no-console
    console.error(`${e instanceof Error ? e.message : e}\n${USAGE}`);
    return 2;
  }
  if (flags.help) {
    // deno-lint-ignore no-console
    console.log(USAGE);
    return 0;
  }
  const androidVersion = flags.android === undefined ? 14 : parseAndroidVersion(flags.android);
  if (androidVersion === null) {
    // deno-lint-ignore no-console
    console.error(
      `--android must be one of ${ANDROID_VERSIONS.join(", ")}, got "${flags.android}"\n${USAGE}`,
    );
    return 2;
  }
  let port: number | undefined;
  try {
    port = positiveInt("port", flags.port);
  } catch (e) {
    // deno-lint-ignore no-console
    console.error(`${e instanceof Error ? e.message : e}\n${USAGE}`);
    return 2;
  }
  const realistic = flags.realistic === true;
  const opts = {
    port: port ?? DEFAULT_PORT,
    motion: realistic ? REALISTIC_MOTION : INSTANT_MOTION,
    androidVersion,
    shellV2: !flags.legacy,
    adbKeyboard: flags["adb-keyboard"] === true,
    ...(flags.width ? { width: positiveInt("width", flags.width) ?? 1080 } : {}),
    ...(flags.height ? { height: positiveInt("height", flags.height) ?? 2400 } : {}),
    ...(flags.model ? { model: flags.model } : {}),
  };
  let sim;
  try {
    sim = await startSimPhone(opts);
  } catch (e) {
    if (!(e instanceof Deno.errors.AddrInUse)) throw e;
    // deno-lint-ignore no-console
    console.error(
      `Cannot start the simulated phone: port ${opts.port} on 127.0.0.1 is in use (another ` +
        `"deno task sim"?). Stop that one, or pass --port N (--port 0 for any free port).`,
    );
    return 1;
  }
  const screen = sim.screen();
  const denoJson = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  const server = serverCommand(denoJson, Deno.execPath(), `${root}/main.ts`, sim.serial);
  // deno-lint-ignore no-console
  console.log(
    [
      `Simulated phone listening on ${sim.serial} (${screen.width}x${screen.height}, ${
        opts.shellV2 ? `Android ${androidVersion}, shell_v2` : "legacy shell"
      }, ${realistic ? "realistic" : "instant"} motion).`,
      "",
      `Point phone-eye at it with ANDROID_SERIAL=${sim.serial}; phone-eye connects adb to it by`,
      "itself, and your MCP client starts phone-eye. Claude Code:",
      "",
      `  ${claudeMcpAdd(server)}`,
      "",
      "Any client that takes the mcpServers JSON (Cursor, Claude Desktop…):",
      "",
      mcpServersJson(server),
      "",
      `Check it from a shell: cd ${root} && ANDROID_SERIAL=${sim.serial} deno task doctor`,
      `Device storage lives in ${sim.root}. Ctrl-C stops the phone.`,
    ].join("\n"),
  );
  const stopped = Promise.withResolvers<void>();
  const stop = () => stopped.resolve();
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  await stopped.promise;
  Deno.removeSignalListener("SIGINT", stop);
  Deno.removeSignalListener("SIGTERM", stop);
  await sim.close();
  // deno-lint-ignore no-console
  console.log(`Simulated phone on ${sim.serial} stopped after ${sim.commands().length} commands.`);
  return 0;
}

Deno.exit(await main());
