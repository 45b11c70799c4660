// Carries out sandbox.ts's plan at start-up: revokes every baked net grant the configuration does
// not use, so the running process can reach its vision host and nothing else.

import type { Config } from "../config/config.ts";
import { BUILD } from "./build_info.ts";
import { planNetNarrowing, visionHost, visionPort } from "./sandbox.ts";

/**
 * Revokes the grants in `granted` (the build's, by default) that the vision route does not need.
 * Grants can only ever be narrowed at run time, never widened.
 */
export function narrowNet(config: Config, granted: readonly string[] = BUILD.net): void {
  const plan = planNetNarrowing(granted, visionHost(config.vision), visionPort(config.vision));
  // Synchronous: some twenty revocations cost ~1.5 ms as awaited promises, all of it at start-up.
  for (const host of plan.revoke) Deno.permissions.revokeSync({ name: "net", host });
}
