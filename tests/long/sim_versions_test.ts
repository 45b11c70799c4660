// The simulated phone's Android versions that tests/sim/sim_test.ts leaves out of its sample
// (tests/sim/version_checks.ts, OTHER_VERSIONS): the same checks, so that the fast suite and this
// file together check every version the sim models.

import { type AdbHarness, startAdbHarness } from "../helpers/adb_harness.ts";
import {
  amMonkeyPm,
  inputErrors,
  OTHER_VERSIONS,
  secureWindow,
  withVersions,
} from "../sim/version_checks.ts";

let adbServer: AdbHarness | undefined;
Deno.test.beforeAll(async () => {
  adbServer = await startAdbHarness();
});
Deno.test.afterAll(async () => {
  await adbServer?.close();
});

const versions = OTHER_VERSIONS.join(", ");

Deno.test(`Android ${versions} report input's bad command lines as their releases do`, async () => {
  await withVersions(OTHER_VERSIONS, adbServer!, inputErrors);
});

Deno.test(`Android ${versions}: am start, monkey and package manager answer as AOSP's do`, async () => {
  await withVersions(OTHER_VERSIONS, adbServer!, amMonkeyPm);
});

Deno.test(`Android ${versions}: a secure window's capture as each release answers it`, async () => {
  await withVersions(OTHER_VERSIONS, adbServer!, secureWindow);
});
