// `phone-eye --doctor`: a checklist of adb, the phone, the vision route, the permissions in force
// and the screenshot policy, each failure with its fix. Runs the checks in order; prints the report.

import type { Phones } from "../adb/phones.ts";
import type { Vision } from "../vision/route.ts";
import type { Check, ExitGate } from "./doctor_check.ts";
import {
  checkPermissions,
  journalPolicy,
  type PermissionDeps,
  shotsPolicy,
} from "./doctor_permissions.ts";
import { checkAdb, checkPhones } from "./doctor_phone.ts";
import { checkVision, keyTransport } from "./doctor_vision.ts";

/** The world the doctor reads, as arguments: main.ts passes the real ones, tests their own. */
export interface DoctorDeps extends PermissionDeps {
  phones: Phones;
  vision: Vision;
}

/** Runs every check; the phone and vision checks run at once since they are independent. */
export async function runDoctor(deps: DoctorDeps): Promise<Check[]> {
  const { notOnPath, ...adb } = await checkAdb(deps.phones);
  const [phoneChecks, vision] = await Promise.all([
    adb.ok ? checkPhones(deps.phones) : Promise.resolve<Check[]>([{
      ok: false,
      title: "phone not checked",
      detail: ["adb must work first"],
    }]),
    checkVision(deps.vision, deps.config),
  ]);
  const { shotsUsable, journalUsable, ...permissions } = await checkPermissions({
    ...deps,
    adbNotOnPath: notOnPath,
  });
  const gated = (check: Check, gate: ExitGate): Check => ({ ...check, gate });
  return [
    gated(adb, "adb"),
    ...phoneChecks.map((check) => check.info ? check : gated(check, "the phone")),
    gated(vision, "the vision route (when one is configured)"),
    ...[keyTransport(deps.config)].filter((c) => c !== null),
    gated(permissions, "the permissions"),
    gated(
      shotsPolicy(deps.config, { usable: shotsUsable }),
      "the screenshot folder (when PHONE_EYE_SHOTS is set)",
    ),
    ...[journalPolicy(deps.config, { usable: journalUsable })].filter((c) => c !== null),
  ];
}

/** The report as printed: one headline per check, its details indented beneath. */
export function formatChecks(checks: Check[]): string {
  return checks.map((c) =>
    [
      `[${c.info ? "info" : c.ok ? "ok" : "FAIL"}] ${c.title}`,
      ...c.detail.map((d) => `       ${d}`),
    ].join("\n")
  ).join("\n");
}
