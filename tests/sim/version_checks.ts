// What each Android version's tools answer (sim/android.ts; docs/android.md,
// versions at a glance), checked through the real adb client. tests/sim/sim_test.ts runs the checks for a sample of
// versions, one on each side of every behaviour boundary in android.ts's table (SAMPLE_VERSIONS);
// tests/long/sim_versions_test.ts runs them for the others, so together they cover every version.

import assert from "node:assert/strict";
import { readPngStream } from "../../lib/image/png_decode.ts";
import type { AdbHarness } from "../helpers/adb_harness.ts";
import { startRig } from "../helpers/rig.ts";
import { ANDROID_VERSIONS, androidTraits, type AndroidVersion } from "../../sim/android.ts";
import type { SimPhone } from "../../sim/sim_phone.ts";

/**
 * 11 and 12 sit on either side of `input`'s change (app_process, then `cmd input`); 12 and 15 on
 * either side of `am start`'s error exit (0, then 1) and of the secure window's capture (refused,
 * then black). 10, 13 and 14 behave as their neighbours do; the long suite checks them.
 */
export const SAMPLE_VERSIONS: readonly AndroidVersion[] = [11, 12, 15];

/** The versions SAMPLE_VERSIONS leaves out. */
export const OTHER_VERSIONS: readonly AndroidVersion[] = ANDROID_VERSIONS.filter(
  (v) => !SAMPLE_VERSIONS.includes(v),
);

export type VersionCheck = (v: AndroidVersion, sim: SimPhone, adb: AdbHarness) => Promise<void>;

/** One phone per version on the shared adb server; `check` runs for each in turn. */
export async function withVersions(
  versions: readonly AndroidVersion[],
  adbServer: AdbHarness,
  check: VersionCheck,
): Promise<void> {
  await using rig = await startRig({
    phones: versions.map((androidVersion) => ({ androidVersion })),
    phoneEye: false,
    adbServer,
  });
  for (const [i, v] of versions.entries()) await check(v, rig.sims[i]!, rig.adb);
}

export function shell(
  adb: AdbHarness,
  sim: SimPhone,
  command: string,
): ReturnType<AdbHarness["adb"]> {
  return adb.adb("-s", sim.serial, "shell", command);
}

export function execOut(
  adb: AdbHarness,
  sim: SimPhone,
  command: string,
): ReturnType<AdbHarness["adbBytes"]> {
  return adb.adbBytes("-s", sim.serial, "exec-out", command);
}

/** POSIX single quoting, the way phone-eye quotes for the device shell. */
export function quote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

async function dump(adb: AdbHarness, sim: SimPhone): Promise<string> {
  const r = await shell(
    adb,
    sim,
    "uiautomator dump /data/local/tmp/ui.xml >/dev/null && cat /data/local/tmp/ui.xml",
  );
  assert.equal(r.code, 0, r.stderr);
  return r.stdout;
}

function endsWithIend(png: Uint8Array): boolean {
  const tail = new TextDecoder("latin1").decode(png.subarray(png.length - 8, png.length - 4));
  return tail === "IEND";
}

/** The width in a PNG's IHDR (after the 8-byte signature and the chunk's length and type). */
function pngWidth(png: Uint8Array): number {
  return new DataView(png.buffer, png.byteOffset + 16, 4).getUint32(0);
}

const USAGE_HEAD = "Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]\n";

/** `input`'s bad command lines: a stack trace or usage on Android 10-11, the banner on 12+. */
export async function inputErrors(
  v: AndroidVersion,
  sim: SimPhone,
  adb: AdbHarness,
): Promise<void> {
  const at = `Android ${v}`;
  const app = androidTraits(v).input === "app_process";
  assert.equal((await shell(adb, sim, "getprop ro.build.version.release")).stdout, `${v}\n`, at);
  assert.equal(
    (await shell(adb, sim, "getprop ro.build.version.sdk")).stdout,
    `${androidTraits(v).sdk}\n`,
    at,
  );

  // Non-ASCII text: nothing typed at all; A10-11 a stack trace and exit 1, A12+ the banner, 255.
  await sim.setScreen({ app: "notes", notesText: "" });
  const text = await shell(adb, sim, `input text ${quote("naïve")}`);
  assert.equal(sim.screen().text, "", at);
  assert.equal(text.code, app ? 1 : 255, at);
  assert.equal(text.stdout, "", at);
  assert.ok(
    text.stderr.startsWith(
      app
        ? "java.lang.NullPointerException: Attempt to get length of null array\n\tat "
        : "\nException occurred while executing 'text':\njava.lang.NullPointerException: Attempt to get length of null array\n\tat ",
    ),
    `${at}: ${text.stderr}`,
  );

  // A malformed number: A10-11 usage + "Error: Error: …" with exit 0; A12+ the banner, 255.
  const bad = await shell(adb, sim, "input tap 1 x");
  const missing = await shell(adb, sim, "input tap 1");
  const unknown = await shell(adb, sim, "input foo 1");
  if (app) {
    assert.equal(bad.code, 0, at);
    assert.ok(bad.stderr.startsWith(USAGE_HEAD), at);
    assert.ok(bad.stderr.endsWith("\n\nError: Error: Invalid arguments for command: tap\n"), at);
    assert.equal(missing.code, 0, at);
    assert.ok(missing.stderr.endsWith('\n\nError: Argument expected after "1"\n'), at);
    assert.deepEqual([unknown.code, unknown.stdout], [0, ""], at);
    assert.ok(unknown.stderr.endsWith("\n\nError: Error: Unknown command: foo\n"), at);
  } else {
    assert.equal(bad.code, 255, at);
    assert.ok(
      bad.stderr.startsWith(
        "\nException occurred while executing 'tap':\njava.lang.IllegalArgumentException: Error: Invalid arguments for command: tap\n\tat ",
      ),
      at,
    );
    assert.equal(missing.code, 255, at);
    assert.ok(
      missing.stderr.startsWith(
        `\nException occurred while executing 'tap':\njava.lang.IllegalArgumentException: Argument expected after "1"\n`,
      ),
      at,
    );
    assert.deepEqual(unknown, { code: 0, stdout: "Unknown command: foo\n", stderr: "" }, at);
  }
  assert.deepEqual(sim.toolCalls("input").slice(-4), [
    ["text", "naïve"],
    ["tap", "1", "x"],
    ["tap", "1"],
    ["foo", "1"],
  ]);
  const none = await shell(adb, sim, "input");
  assert.deepEqual([none.code, none.stderr], [0, ""], at);
  assert.ok(none.stdout.startsWith(USAGE_HEAD), at);
  // Float.parseFloat takes decimals and exponents: a proper tap goes through silently.
  const tap = await shell(adb, sim, "input tap 1.5 2e2");
  assert.deepEqual(tap, { code: 0, stdout: "", stderr: "" }, at);
}

/** `am start`'s errors (exit 0, or 1 on Android 15), monkey's abort and `pm`'s lists. */
export async function amMonkeyPm(
  v: AndroidVersion,
  sim: SimPhone,
  adb: AdbHarness,
): Promise<void> {
  const at = `Android ${v}`;
  const exit = androidTraits(v).amErrorExit;
  assert.deepEqual(
    await shell(adb, sim, "am start -a com.nope.ACTION"),
    {
      code: exit,
      stdout: "Starting: Intent { act=com.nope.ACTION }\n",
      stderr:
        "Error: Activity not started, unable to resolve Intent { act=com.nope.ACTION flg=0x10000000 }\n",
    },
    at,
  );
  assert.deepEqual(
    await shell(adb, sim, "am start -n com.android.settings/.Nope"),
    {
      code: exit,
      stdout: "Starting: Intent { cmp=com.android.settings/.Nope }\n",
      stderr: "Error type 3\nError: Activity class {com.android.settings/.Nope} does not exist.\n",
    },
    at,
  );
  // Monkey.java: the abort line on stdout, run() returns -4, so exit status 252; the monkey
  // script echoes each argument, Monkey.java logs them on stderr.
  const missing = await shell(
    adb,
    sim,
    "monkey -p com.example.gone -c android.intent.category.LAUNCHER 1",
  );
  assert.equal(missing.code, 252, at);
  assert.equal(
    missing.stdout,
    [
      "  bash arg: -p",
      "  bash arg: com.example.gone",
      "  bash arg: -c",
      "  bash arg: android.intent.category.LAUNCHER",
      "  bash arg: 1",
      "** No activities found to run, monkey aborted.",
      "",
    ].join("\n"),
  );
  assert.equal(
    missing.stderr,
    [
      "args: [-p, com.example.gone, -c, android.intent.category.LAUNCHER, 1]",
      ' arg: "-p"',
      ' arg: "com.example.gone"',
      ' arg: "-c"',
      ' arg: "android.intent.category.LAUNCHER"',
      ' arg: "1"',
      'data="com.example.gone"',
      'data="android.intent.category.LAUNCHER"',
      "",
    ].join("\n"),
  );
  // Installed, but nothing to launch: the same abort.
  const systemui = await shell(
    adb,
    sim,
    "monkey -p com.android.systemui -c android.intent.category.LAUNCHER 1",
  );
  assert.equal(systemui.code, 252, at);
  const list = await shell(adb, sim, "pm list packages");
  assert.equal(list.code, 0);
  assert.ok(list.stdout.includes("package:com.android.systemui\n"), list.stdout);
  assert.ok(list.stdout.includes("package:com.android.settings\n"), list.stdout);
  assert.equal(
    (await shell(adb, sim, "pm list packages provider")).stdout,
    "package:com.android.providers.settings\npackage:com.android.providers.media.module\n",
  );
  assert.deepEqual(
    await shell(
      adb,
      sim,
      "cmd package resolve-activity --brief -c android.intent.category.LAUNCHER com.android.settings",
    ),
    {
      code: 0,
      stdout:
        "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true\ncom.android.settings/.Settings\n",
      stderr: "",
    },
  );
  assert.deepEqual(
    await shell(adb, sim, "cmd package resolve-activity --brief com.android.systemui"),
    { code: 0, stdout: "No activity found\n", stderr: "" },
  );
}

/** A secure window's capture: refused silently up to Android 14, black on 15. */
export async function secureWindow(
  v: AndroidVersion,
  sim: SimPhone,
  adb: AdbHarness,
): Promise<void> {
  const at = `Android ${v}`;
  await sim.setScreen({ app: "notes", secureWindow: true });
  const png = await execOut(adb, sim, "screencap -p");
  const raw = await execOut(adb, sim, "screencap");
  const viaShell = await shell(adb, sim, "screencap -p");
  const toFile = await shell(adb, sim, "screencap -p /sdcard/s.png; echo $?; cat /sdcard/s.png");
  if (androidTraits(v).secureCapture === "refuse") {
    // exec-out loses the status: empty and 0, for the PNG and the raw frame alike.
    assert.deepEqual([png.code, png.stdout.length, png.stderr], [0, 0, ""], at);
    assert.deepEqual([raw.code, raw.stdout.length], [0, 0], at);
    assert.deepEqual(viaShell, { code: 1, stdout: "", stderr: "" }, at);
    // The file is opened before the capture fails: it is left there, empty.
    assert.deepEqual(toFile, { code: 0, stdout: "1\n", stderr: "" }, at);
  } else {
    const img = (await readPngStream(png.stdout)).image;
    const [statusBar, navBar] = [Math.round(2400 * 0.03), Math.round(2400 * 0.05)];
    const rowBlack = (y: number) =>
      img.data.subarray(y * 1080 * 4, (y + 1) * 1080 * 4).every((b, i) => i % 4 === 3 || b === 0);
    for (const y of [statusBar + 1, 1200, 2400 - navBar - 1]) {
      assert.ok(rowBlack(y), `${at} y=${y}`);
    }
    // The System UI bars are not the secure window's: they still show.
    assert.ok(!rowBlack(2400 - Math.round(navBar / 2)), at);
    assert.equal(raw.stdout.length, 16 + 1080 * 2400 * 4, at);
    assert.equal(viaShell.code, 0, at);
    assert.match(toFile.stdout, /^0\n.PNG/, at); // \x89 is not UTF-8
  }
  // The UI tree comes through accessibility, which FLAG_SECURE does not hide.
  assert.match(await dump(adb, sim), /com\.android\.notes:id\/note_text/, at);
  await sim.setScreen({ secureWindow: false });
  const again = (await execOut(adb, sim, "screencap -p")).stdout;
  assert.ok(endsWithIend(again), at);
  assert.equal(pngWidth(again), 1080, at);
}
