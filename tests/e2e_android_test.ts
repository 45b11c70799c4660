// Tier 3 across what users run: the simulated phone as Android 10, 12, 14 and 15, driven through
// the adb on PATH (the rows below are the phone's answers, the same through any client), and adb's
// own errors through each adb client available (tests/helpers/adb_clients.ts: the adb on PATH, and
// adb 34).
//
// Only what differs between versions runs per version (ANDROID.md, "Android shell tools"):
//
// | row                                   | 10             | 12             | 14             | 15            |
// | ------------------------------------- | -------------- | -------------- | -------------- | ------------- |
// | phone_shot on a secure window         | no image: why  | no image: why  | no image: why  | image, black  |
// | phone_look on a secure window         | tree + why     | tree + why     | tree + why     | tree + vision |
// | intent no app handles (am exit)       | said (0)       | said (0)       | said (0)       | said (1)      |
// | bad component (am exit)               | said (0)       | said (0)       | said (0)       | said (1)      |
//
// Once per adb client, on the default Android 14: an unknown package (monkey's 252), a package
// with no launcher activity, data without an action, and adb's own errors (no device, two
// devices answering one serial, a link dropped mid-tap), whose texts differ between adb 29 and 34.

import assert from "node:assert/strict";
import { decode as jpegDecode } from "jpeg-js";
import { adbClients, systemClient } from "./helpers/adb_clients.ts";
import { textOf } from "./helpers/in_process.ts";
import { denoDir, startPhoneEye, testPermissionFlags } from "./helpers/phone_eye.ts";
import { adbServerPerClient, closing, type Rig, startRig, type ToolResult } from "./helpers/rig.ts";
import { startOpenAiServer } from "./fixtures/openai_server.ts";
import { androidTraits, type AndroidVersion } from "./sim/android.ts";
import type { RgbaImage } from "../lib/image/frame.ts";
import { decodePng } from "./fixtures/images/pipeline.ts";

const VERSIONS: readonly AndroidVersion[] = [10, 12, 14, 15];
const { clients, missing } = await adbClients();
/** One adb server per client for the whole file; each test connects its phones and disconnects them. */
const adbServer = adbServerPerClient(clients.map((c) => c.binary));

async function image(result: ToolResult): Promise<RgbaImage> {
  const part = result.content.find((c) => c.type === "image");
  assert.ok(part?.data, textOf(result));
  const bytes = Uint8Array.fromBase64(part.data);
  if (part.mimeType === "image/png") return await decodePng(bytes);
  const { width, height, data } = jpegDecode(bytes, { useTArray: true, formatAsRGBA: true });
  return { width, height, data };
}

/** The mean of the RGB channels over a band of rows, as fractions of the height. */
function brightness(img: RgbaImage, from: number, to: number): number {
  let sum = 0;
  let n = 0;
  for (let y = Math.floor(img.height * from); y < Math.floor(img.height * to); y++) {
    for (let x = 0; x < img.width; x++) {
      const p = (y * img.width + x) * 4;
      sum += img.data[p]! + img.data[p + 1]! + img.data[p + 2]!;
      n += 3;
    }
  }
  return sum / n;
}

function section(text: string, name: string): string {
  const start = text.indexOf(`[${name}]\n`);
  assert.ok(start >= 0, `no [${name}] in:\n${text}`);
  const rest = text.slice(start + name.length + 3);
  const end = rest.search(/\n\n\[[a-z-]+\]\n/);
  return end < 0 ? rest : rest.slice(0, end);
}

async function said(r: Rig, name: string, args: Record<string, unknown> = {}) {
  const result = await r.call(name, args);
  return { isError: result.isError === true, text: textOf(result), result };
}

for (const client of systemClient(clients)) {
  for (const version of VERSIONS) {
    const traits = androidTraits(version);
    Deno.test(`Android ${version} through ${client.name}: secure screens and am's errors`, async (t) => {
      await using vision = closing(startOpenAiServer({ apiKey: "sk-test-versions", model: "m" }));
      await using r = await startRig({
        phones: [{ androidVersion: version }],
        adbBinary: client.binary,
        adbServer: adbServer(client.binary),
        env: {
          PHONE_EYE_VISION_API_KEY: "sk-test-versions",
          PHONE_EYE_VISION_BASE_URL: vision.url,
          PHONE_EYE_VISION_MODEL: "m",
        },
      });

      await t.step(
        "a secure window: the screenshot says why, phone_look keeps the tree",
        async () => {
          await r.sim.setScreen({ app: "notes", notesText: "1234", secureWindow: true });
          const shot = await said(r, "phone_shot");
          const look = await said(r, "phone_look");
          assert.equal(look.isError, false, look.text);
          assert.match(section(look.text, "ui-tree"), /^1234 @ /m);
          if (traits.secureCapture === "refuse") {
            assert.equal(shot.isError, true);
            assert.match(
              shot.text,
              /^Cannot take a screenshot: the phone returned no image at all, .*secure window is showing \(FLAG_SECURE: banking apps, password, payment and DRM video screens\), and while the screen is off or locked\. phone_look's \[ui-tree\] still lists/,
            );
            assert.doesNotMatch(shot.text, /MIUI|reboot/);
            assert.match(section(look.text, "vision"), /^Vision unavailable: .*no image at all/);
            // Both routes were tried, once each: nothing to replay in an empty answer.
            assert.deepEqual(r.sim.commands().filter((c) => c.startsWith("screencap")), [
              "screencap -p",
              "screencap",
              "screencap -p",
              "screencap",
            ]);
          } else {
            // Android 15 paints the secure window black and keeps the System UI bars.
            assert.equal(shot.isError, false, shot.text);
            const img = await image(shot.result);
            assert.ok(brightness(img, 0.2, 0.8) < 1, "the secure area is black");
            assert.ok(brightness(img, 0.96, 1) > 1, "the navigation bar still shows");
            assert.match(section(look.text, "vision"), /^A chat screen/);
          }
          await r.sim.setScreen({ secureWindow: false });
        },
      );

      await t.step(
        `an intent no app handles is reported (am exits ${traits.amErrorExit})`,
        async () => {
          const failed = await said(r, "phone_intent", { action: "com.nope.GO" });
          assert.equal(failed.isError, true);
          assert.match(
            failed.text,
            /^Cannot start the intent: am is unable to resolve Intent \{ act=com\.nope\.GO flg=0x10000000 \}: no app on the phone handles it\./,
          );
        },
      );

      await t.step(
        `a bad component says the class does not exist and where the app opens (am exits ${traits.amErrorExit})`,
        async () => {
          const failed = await said(r, "phone_intent", {
            component: "com.android.settings/.Nope",
          });
          assert.equal(failed.isError, true);
          assert.equal(
            failed.text,
            'Cannot start the intent: the activity class {com.android.settings/.Nope} does not exist; "com.android.settings" opens at com.android.settings/.Settings: give that as component, or the package alone',
          );
          // The suggestion works.
          const opened = await said(r, "phone_intent", {
            component: "com.android.settings/.Settings",
          });
          assert.equal(opened.isError, false, opened.text);
          assert.equal(r.sim.screen().name, "settings");
        },
      );
    });
  }
}

for (const client of clients) {
  Deno.test(`${client.name}: packages, links, and adb's own errors`, async (t) => {
    await using r = await startRig({
      phones: [{}, {}],
      adbBinary: client.binary,
      adbServer: adbServer(client.binary),
    });

    await t.step(`phone-eye itself runs ${client.name} (--doctor says which)`, async () => {
      const { stdout } = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--no-prompt", ...await testPermissionFlags(), "main.ts", "--doctor"],
        cwd: new URL("..", import.meta.url),
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
      const failed = await said(r, "phone_intent", { package: "com.android.setings" });
      assert.equal(failed.isError, true);
      assert.match(
        failed.text,
        /^Cannot start the intent: no package "com\.android\.setings" is installed on the phone; the closest installed packages are com\.android\.settings, /,
      );
      assert.doesNotMatch(failed.text, /args:|bash arg|exit code/);
    });

    await t.step("an installed package with no launcher activity says so", async () => {
      const failed = await said(r, "phone_intent", { package: "com.android.systemui" });
      assert.match(failed.text, /"com\.android\.systemui" is installed but has no launcher/);
    });

    await t.step("data without an action opens the link (VIEW)", async () => {
      const url = "https://example.com/a?b=1";
      const opened = await said(r, "phone_intent", { data: url });
      assert.equal(opened.isError, false, opened.text);
      assert.deepEqual([r.sim.screen().name, r.sim.screen().url], ["browser", url]);
    });

    await t.step("a serial two phones answer to names them and asks for an exact one", async () => {
      // adb matches -s against model: names too; both phones are model SimPhone.
      await using eye = await startPhoneEye({
        env: { ...r.env, ANDROID_SERIAL: "model:SimPhone" },
      });
      const result = await eye.client.callTool({ name: "phone_key", arguments: { key: "home" } });
      assert.equal(result.isError, true);
      const text = textOf(result);
      assert.match(text, /more than one Android device answers to "model:SimPhone"/);
      assert.ok(text.includes(r.sims[0]!.serial) && text.includes(r.sims[1]!.serial), text);
    });

    await t.step(
      "a dead Wi-Fi address: no device reachable, with the adb connect hint",
      async () => {
        const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
        const port = (closed.addr as Deno.NetAddr).port;
        closed.close();
        await using eye = await startPhoneEye({
          env: { ...r.env, ANDROID_SERIAL: `127.0.0.1:${port}` },
        });
        const result = await eye.client.callTool({ name: "phone_tap", arguments: { x: 1, y: 1 } });
        assert.equal(result.isError, true);
        assert.match(
          textOf(result),
          new RegExp(`no Android device reachable at 127\\.0\\.0\\.1:${port}.*adb connect`),
        );
      },
    );

    await t.step("a link dropped mid-tap: reconnected, the tap not repeated", async () => {
      r.sim.faults.dropAfterNext("input");
      const tap = await said(r, "phone_tap", { x: 540, y: 1200 });
      assert.equal(tap.isError, true);
      assert.match(tap.text, /reconnected but did not repeat the command/);
      assert.equal(r.sim.toolCalls("input").filter((c) => c[0] === "tap").length, 1);
      assert.equal((await said(r, "phone_key", { key: "home" })).isError, false);
    });
  });
}

if (missing !== null) {
  Deno.test({ name: `adb 34 rows not run: ${missing}`, ignore: true, fn() {} });
}
