// Every Android version the end-to-end rows of tests/helpers/android_version_rows.ts were written
// for, through the adb on PATH; the fast suite (e2e_android_test.ts) runs one version per branch.

import { adbClients, systemClient } from "../helpers/adb_clients.ts";
import { adbServerPerClient } from "../helpers/rig.ts";
import { testAndroidVersion } from "../helpers/android_version_rows.ts";

const { clients } = await adbClients();
const adbServer = adbServerPerClient(clients.map((c) => c.binary));

for (const client of systemClient(clients)) {
  for (const version of [10, 12, 14, 15] as const) testAndroidVersion(client, version, adbServer);
}
