// `deno task sim`: runs the simulated phone on 127.0.0.1 until Ctrl-C, so phone-eye (or plain
// adb) can be pointed at it by hand. Flags: --port, --width, --height, --model, --android,
// --legacy, --adb-keyboard.

import { parseArgs } from "node:util";
import { startSimPhone } from "./sim_phone.ts";
import { ANDROID_VERSIONS, parseAndroidVersion } from "./android.ts";

const USAGE =
  `usage: deno task sim [--port N] [--width W] [--height H] [--android V] [--legacy] [--model NAME]
                     [--adb-keyboard]
  --port    TCP port on 127.0.0.1 (default: a free one; 5555-5585 also appear as emulator-55xx
            in every adb server on this machine)
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
  const opts = {
    port: positiveInt("port", flags.port) ?? 0,
    androidVersion,
    shellV2: !flags.legacy,
    adbKeyboard: flags["adb-keyboard"] === true,
    ...(flags.width ? { width: positiveInt("width", flags.width) ?? 1080 } : {}),
    ...(flags.height ? { height: positiveInt("height", flags.height) ?? 2400 } : {}),
    ...(flags.model ? { model: flags.model } : {}),
  };
  const sim = await startSimPhone(opts);
  const screen = sim.screen();
  // deno-lint-ignore no-console
  console.log(
    [
      `Simulated phone listening on ${sim.serial} (${screen.width}x${screen.height}, ${
        opts.shellV2 ? `Android ${androidVersion}, shell_v2` : "legacy shell"
      }).`,
      "",
      "Point phone-eye at it:",
      `  adb connect ${sim.serial}`,
      `  ANDROID_SERIAL=${sim.serial} deno task start`,
      "",
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
