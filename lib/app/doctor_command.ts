// phone-eye --doctor over the real world: checks adb, the phones, vision and the grants, prints the
// report on stdout and turns it into the exit code. The checks themselves load on first use.

import { type Config, VERSION } from "../config/config.ts";
import { BUILD } from "./build_info.ts";
import { writeOut } from "./print.ts";
import { phonesAndVision } from "./real_deps.ts";

/** Runs the checks and prints them; 0 when every one passed, else 1. */
export async function doctorCommand(config: Config): Promise<number> {
  const { phones, vision } = phonesAndVision(config);
  // Loaded here, not at start-up: the doctor pulls in the image encoder for its vision probe.
  const { formatChecks, runDoctor } = await import("./doctor.ts");
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
