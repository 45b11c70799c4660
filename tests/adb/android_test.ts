// Tier 3 across what users run: the simulated phone as each Android version where the phone's
// answers differ, driven through the adb on PATH (the same through any client), and adb's own
// errors through each adb client available (tests/helpers/adb_clients.ts: the adb on PATH, and
// adb 34).
//
// Only what differs between versions runs per version (docs/android.md, versions at a glance; the
// rows are in tests/helpers/android_version_rows.ts): secure screens and am's exit status. Android
// 10 to 14 answer those rows alike, so this file runs one version per behaviour: 10 (the oldest,
// refusing a secure capture, am exiting 0) and 15 (a black frame, am exiting 1);
// tests/long/android_versions_test.ts runs 10, 12, 14 and 15.
//
// Once per adb client, on the default Android 14: which adb phone-eye runs, an unknown package
// (monkey's 252), a package with no launcher activity, data without an action, and two devices
// answering one serial, whose texts differ between adb 29 and 34. adb's other errors (no device,
// a link dropped mid-tap) run per client in e2e_hand_test.ts.

import assert from "node:assert/strict";
import { adbClients, systemClient } from "../helpers/adb_clients.ts";
import { textOf } from "../helpers/in_process.ts";
import { denoDir, startPhoneEye, testPermissionFlags } from "../helpers/phone_eye.ts";
import { adbServerPerClient, startRig } from "../helpers/rig.ts";
import { testAndroidVersionsTogether } from "../helpers/android_version_rows.ts";

const { clients, missing } = await adbClients();
/** One adb server per client for the whole file; each test connects its phones and disconnects them. */
const adbServer = adbServerPerClient(clients.map((c) => c.binary));

// Both versions' phones behind one phone-eye, each version's rows its own test.
for (const client of systemClient(clients)) {
  testAndroidVersionsTogether(client, [10, 15], adbServer);
}

for (const client of clients) {
  Deno.test(`${client.name}: packages, links, and adb's own errors`, async (t) => {
    await using r = await startRig({
      phones: [{}, {}],
      adbBinary: client.binary,
      adbServer: adbServer(client.binary),
      phoneEye: false,
    });
    // One phone-eye for every step: the first phone by its serial, and "model:SimPhone", which
    // adb matches against both phones' model, as a second listed serial (ANDROID_SERIAL takes the
    // same listed path).
    const ambiguous = "model:SimPhone";
    await using eye = await startPhoneEye({
      env: { ...r.env, PHONE_EYE_DEVICES: `${r.sim.serial},${ambiguous}` },
    });
    const on = async (device: string, name: string, args: Record<string, unknown>) => {
      const result = await eye.client.callTool({ name, arguments: { ...args, device } });
      return { isError: result.isError === true, text: textOf(result) };
    };
    /** A call to the first phone. */
    const said = (name: string, args: Record<string, unknown>) => on(r.sim.serial, name, args);

    await t.step(`phone-eye itself runs ${client.name} (--doctor says which)`, async () => {
      const { stdout } = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--no-prompt", ...await testPermissionFlags(), "main.ts", "--doctor"],
        cwd: new URL("../..", import.meta.url),
        clearEnv: true,
        env: { ...r.env, DENO_DIR: await denoDir(), NO_COLOR: "1" },
        stdin: "null",
        stderr: "null",
      }).output();
      const report = new TextDecoder().decode(stdout);
      assert.ok(report.includes(client.name.replace(/^adb /, "Version ")), report);
      assert.match(report, /SimPhone, Android 14, screen 1080×2400/);
    });

    await t.step("an unknown package: not installed, and the closest installed ones", async () => {
      const failed = await said("phone_intent", {
        package: "com.android.setings",
        settle: false,
      });
      assert.equal(failed.isError, true);
      assert.match(
        failed.text,
        /^Cannot start the intent: no package "com\.android\.setings" is installed on the phone; the closest installed packages are com\.android\.settings, /,
      );
      assert.doesNotMatch(failed.text, /args:|bash arg|exit code/);
    });

    await t.step("an installed package with no launcher activity says so", async () => {
      const failed = await said("phone_intent", {
        package: "com.android.systemui",
        settle: false,
      });
      assert.match(failed.text, /"com\.android\.systemui" is installed but has no launcher/);
    });

    await t.step("data without an action opens the link (VIEW)", async () => {
      const url = "https://example.com/a?b=1";
      const opened = await said("phone_intent", { data: url, settle: false });
      assert.equal(opened.isError, false, opened.text);
      assert.deepEqual([r.sim.screen().name, r.sim.screen().url], ["browser", url]);
    });

    await t.step(
      "a serial two phones answer to asks for an exact one in PHONE_EYE_DEVICES, naming only the listed phones",
      async () => {
        // adb matches -s against model: names too; both phones are model SimPhone, and only the
        // first is listed by its serial: the second is a phone outside PHONE_EYE_DEVICES.
        const { isError, text } = await on(ambiguous, "phone_key", { key: "home", settle: false });
        assert.equal(isError, true);
        assert.match(text, /more than one Android device answers to "model:SimPhone"/);
        assert.ok(text.includes(`of PHONE_EYE_DEVICES, adb sees: ${r.sims[0]!.serial}`), text);
        assert.ok(!text.includes(r.sims[1]!.serial), text);
        assert.match(text, /one exact serial from "adb devices" in PHONE_EYE_DEVICES/);
      },
    );
  });
}

if (missing !== null) {
  Deno.test({ name: `adb 34 rows not run: ${missing}`, ignore: true, fn() {} });
}
