// `deno task sim`: runs the simulated phone on 127.0.0.1 until Ctrl-C, so phone-eye (or plain
// adb) can be pointed at it by hand, and prints the MCP client configuration that does so.
// Flags: --port, --width, --height, --model, --android, --legacy, --adb-keyboard, --realistic.
//
// The default port is fixed (DEFAULT_PORT), so a client configured once keeps working after the
// phone restarts; a random port meant editing ANDROID_SERIAL each time. When it is taken the sim
// says so and stops rather than move elsewhere silently; --port 0 asks for any free port.

import { parseArgs } from "node:util";
import {
  INSTANT_MOTION,
  REALISTIC_MOTION,
  type SimPhone,
  type SimPhoneOptions,
  startSimPhone,
} from "./sim_phone.ts";
import { ANDROID_VERSIONS, type AndroidVersion, parseAndroidVersion } from "./android.ts";
import { claudeMcpAdd, mcpServersJson, serverCommand } from "./client_config.ts";

/** Outside 5555-5585, which every adb server on the machine scans for emulators by itself. */
export const DEFAULT_PORT = 15555;

const USAGE =
  `usage: deno task sim [--port N] [--width W] [--height H] [--android V] [--legacy] [--model NAME]
                     [--adb-keyboard] [--realistic]
  --port    TCP port on 127.0.0.1 (default ${DEFAULT_PORT}, the same on every start; 0 for any free
            one; 5555-5585 also appear as emulator-55xx in every adb server on this machine)
  --realistic  timed as a phone: each UI dump first waits until the screen has been quiet for ${REALISTIC_MOTION.dumpIdle?.quietMs} ms
            (the idle-state error after ${REALISTIC_MOTION.dumpIdle?.maxMs} ms of change), app switches take ${REALISTIC_MOTION.launch} ms to
            draw, and Notes' "Saved" shows ${REALISTIC_MOTION.snackbarDelay} ms after Save for ${REALISTIC_MOTION.snackbar} ms (default: all at
            once, dumps answer at once, "Saved" stays)
  --android the Android release its tools behave as: ${ANDROID_VERSIONS.join(", ")} (default 14)
  --legacy  no shell_v2: old-Android shell without exit codes or separate stderr
  --adb-keyboard  ADB Keyboard is installed, so phone_type can type any language`;

function positiveInt(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new Error(`--${name} must be a whole number, got "${value}"`);
  return Number(value);
}

/** What the flags ask for: a phone to start, or an exit status (help, or a flag refused). */
type Plan =
  | { exit: number }
  | {
    opts: SimPhoneOptions & { port: number; shellV2: boolean };
    androidVersion: AndroidVersion;
    realistic: boolean;
  };

function planFromFlags(args: string[]): Plan {
  let flags;
  try {
    flags = parseArgs({
      args,
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
    return refuse(`${e instanceof Error ? e.message : e}`);
  }
  if (flags.help) {
    // deno-lint-ignore no-console
    console.log(USAGE);
    return { exit: 0 };
  }
  const androidVersion = flags.android === undefined ? 14 : parseAndroidVersion(flags.android);
  if (androidVersion === null) {
    return refuse(
      `--android must be one of ${ANDROID_VERSIONS.join(", ")}, got "${flags.android}"`,
    );
  }
  let port: number | undefined;
  try {
    port = positiveInt("port", flags.port);
  } catch (e) {
    return refuse(`${e instanceof Error ? e.message : e}`);
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
  return { opts, androidVersion, realistic };
}

/** A flag refused: the reason and the usage on stderr, exit status 2. */
function refuse(why: string): Plan {
  // deno-lint-ignore no-console
  console.error(`${why}\n${USAGE}`);
  return { exit: 2 };
}

/** The phone, started; null (after saying why) when its port is taken. */
async function startOrExplain(opts: SimPhoneOptions & { port: number }): Promise<SimPhone | null> {
  try {
    return await startSimPhone(opts);
  } catch (e) {
    if (!(e instanceof Deno.errors.AddrInUse)) throw e;
    // deno-lint-ignore no-console
    console.error(
      `Cannot start the simulated phone: port ${opts.port} on 127.0.0.1 is in use (another ` +
        `"deno task sim"?). Stop that one, or pass --port N (--port 0 for any free port).`,
    );
    return null;
  }
}

/** What the sim prints once it listens: its phone, and the client configuration that uses it. */
async function howToConnect(
  sim: SimPhone,
  plan: Exclude<Plan, { exit: number }>,
): Promise<string> {
  const screen = sim.screen();
  const denoJson = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  const server = serverCommand(denoJson, {
    deno: Deno.execPath(),
    mainTs: `${root}/main.ts`,
    serial: sim.serial,
  });
  return [
    `Simulated phone listening on ${sim.serial} (${screen.width}x${screen.height}, ${
      plan.opts.shellV2 ? `Android ${plan.androidVersion}, shell_v2` : "legacy shell"
    }, ${plan.realistic ? "realistic" : "instant"} motion).`,
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
  ].join("\n");
}

/** Resolves on Ctrl-C or SIGTERM. */
async function untilSignalled(): Promise<void> {
  const stopped = Promise.withResolvers<void>();
  const stop = () => stopped.resolve();
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  await stopped.promise;
  Deno.removeSignalListener("SIGINT", stop);
  Deno.removeSignalListener("SIGTERM", stop);
}

async function main(): Promise<number> {
  const plan = planFromFlags(Deno.args);
  if ("exit" in plan) return plan.exit;
  const sim = await startOrExplain(plan.opts);
  if (sim === null) return 1;
  // deno-lint-ignore no-console
  console.log(await howToConnect(sim, plan));
  await untilSignalled();
  await sim.close();
  // deno-lint-ignore no-console
  console.log(`Simulated phone on ${sim.serial} stopped after ${sim.commands().length} commands.`);
  return 0;
}

Deno.exit(await main());
