// What differs between Android versions, end to end: the simulated phone as one version, the adb
// on PATH, main.ts under the production set. e2e_android_test.ts registers one version per
// behaviour branch (sim/android.ts); tests/long/android_versions_test.ts registers them all.
//
// | row                                   | 10             | 12             | 14             | 15            |
// | ------------------------------------- | -------------- | -------------- | -------------- | ------------- |
// | phone_shot on a secure window         | no image: why  | no image: why  | no image: why  | image, black  |
// | phone_look on a secure window         | tree + why     | tree + why     | tree + why     | tree + vision |
// | intent no app handles (am exit)       | said (0)       | said (0)       | said (0)       | said (1)      |
// | bad component (am exit)               | said (0)       | said (0)       | said (0)       | said (1)      |

import assert from "node:assert/strict";
import { decode as jpegDecode } from "jpeg-js";
import type { AdbClient } from "./adb_clients.ts";
import type { AdbHarness } from "./adb_harness.ts";
import { lookSection as section, textOf } from "./in_process.ts";
import { closing, type Rig, SMALL_PHONE, startRig, type ToolResult } from "./rig.ts";
import { startPhoneEye } from "./phone_eye.ts";
import { sharedFixture } from "./shared_fixture.ts";
import { startOpenAiServer } from "../fixtures/openai_server.ts";
import { decodePng } from "../fixtures/images/pipeline.ts";
import { androidTraits, type AndroidVersion } from "../../sim/android.ts";
import type { RgbaImage } from "../../lib/image/frame.ts";

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

/** A tool call's verdict, text and whole result. */
export async function said(
  r: Pick<Rig, "call">,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ isError: boolean; text: string; result: ToolResult }> {
  const result = await r.call(name, args);
  return { isError: result.isError === true, text: textOf(result), result };
}

/** One version's phone as the rows drive it: the simulated phone and phone-eye's calls to it. */
type VersionPhone = Pick<Rig, "sim" | "call">;

const VISION = { apiKey: "sk-test-versions", model: "m" };

/** phone-eye's vision settings for the local server the rows' looks go to. */
function visionEnv(url: string): Record<string, string> {
  return {
    PHONE_EYE_VISION_API_KEY: VISION.apiKey,
    PHONE_EYE_VISION_BASE_URL: url,
    PHONE_EYE_VISION_MODEL: VISION.model,
  };
}

function testName(client: AdbClient, version: AndroidVersion): string {
  return `Android ${version} through ${client.name}: secure screens and am's errors`;
}

/**
 * Registers the rows above for `version` as one test through `client`, on the adb server the
 * file shares (helpers/rig.ts, adbServerPerClient). Acting calls answer without settling: each
 * row reads the bare reply or the phone's state.
 */
export function testAndroidVersion(
  client: AdbClient,
  version: AndroidVersion,
  adbServer: (binary: string) => AdbHarness,
): void {
  Deno.test(testName(client, version), async (t) => {
    await using vision = closing(startOpenAiServer(VISION));
    await using r = await startRig({
      phones: [{ androidVersion: version }],
      adbBinary: client.binary,
      adbServer: adbServer(client.binary),
      env: visionEnv(vision.url),
    });
    await versionRows(t, version, r);
  });
}

/**
 * The same rows for each of `versions`, one test each, all served by one phone-eye: one simulated
 * phone per version, each listed in PHONE_EYE_DEVICES (the listed path ANDROID_SERIAL takes too),
 * and every call naming its version's phone. What differs between versions is the phone's answer,
 * so one server reads each phone as it would read it alone, and the file pays one phone-eye start
 * instead of one per version. The phones are small ones (SMALL_PHONE): the rows are about words
 * and a black window, not pixels.
 */
export function testAndroidVersionsTogether(
  client: AdbClient,
  versions: readonly AndroidVersion[],
  adbServer: (binary: string) => AdbHarness,
): void {
  const together = sharedFixture(async () => {
    const stack = new AsyncDisposableStack();
    try {
      const vision = stack.use(closing(startOpenAiServer(VISION)));
      const r = stack.use(
        await startRig({
          phones: versions.map((androidVersion) => ({ ...SMALL_PHONE, androidVersion })),
          adbBinary: client.binary,
          adbServer: adbServer(client.binary),
          serial: null,
          phoneEye: false,
        }),
      );
      const eye = stack.use(
        await startPhoneEye({
          env: {
            ...r.env,
            ...visionEnv(vision.url),
            PHONE_EYE_DEVICES: r.sims.map((sim) => sim.serial).join(","),
          },
        }),
      );
      const phones = new Map(versions.map((version, n): [AndroidVersion, VersionPhone] => {
        const sim = r.sims[n]!;
        return [version, {
          sim,
          call: async (name, args = {}) =>
            await eye.client.callTool({
              name,
              arguments: { ...args, device: sim.serial },
            }) as ToolResult,
        }];
      }));
      const moved = stack.move();
      return { phones, [Symbol.asyncDispose]: () => moved.disposeAsync() };
    } catch (error) {
      await stack.disposeAsync();
      throw error;
    }
  });
  for (const version of versions) {
    together.test(
      testName(client, version),
      (fixture, t) => versionRows(t, version, fixture.phones.get(version)!),
    );
  }
}

async function versionRows(
  t: Deno.TestContext,
  version: AndroidVersion,
  r: VersionPhone,
): Promise<void> {
  const traits = androidTraits(version);
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
      const failed = await said(r, "phone_intent", { action: "com.nope.GO", settle: false });
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
        settle: false,
      });
      assert.equal(failed.isError, true);
      assert.equal(
        failed.text,
        'Cannot start the intent: the activity class {com.android.settings/.Nope} does not exist; "com.android.settings" opens at com.android.settings/.Settings: give that as component, or the package alone',
      );
      // The suggestion works.
      const opened = await said(r, "phone_intent", {
        component: "com.android.settings/.Settings",
        settle: false,
      });
      assert.equal(opened.isError, false, opened.text);
      assert.equal(r.sim.screen().name, "settings");
    },
  );
}
