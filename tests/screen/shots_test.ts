// The screenshot folder (lib/screen/shots.ts) on a real temp folder: a shot is saved as its image alone and
// at most 8 MiB, and phone-eye's own files are kept under the cap, oldest first, never another file.

import assert from "node:assert/strict";
import { join } from "node:path";
import type { RgbaImage } from "../../lib/image/frame.ts";
import { readPngStream } from "../../lib/image/png_decode.ts";
import { MAX_SAVED_SHOT_BYTES, ownShotName } from "../../lib/screen/shots.ts";
import { ihdrBody, writePngChunks } from "../../sim/png_writer.ts";
import { noiseScreen, uniformScreen } from "../fixtures/images/synthetic_screen.ts";
import { textOf } from "../helpers/in_process.ts";
import { startRig, tempDir } from "../helpers/rig.ts";
import { deflateSync } from "node:zlib";
import { savedPath, saverOn, screenPng, textChunkIsStripped } from "../helpers/shot_saver.ts";

const names = async (dir: string) =>
  (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort();

/**
 * `img` as a PNG whose image data is stored, not compressed (deflate level 0, filter 0 on every
 * row): what no phone sends, but large at no cost to make.
 */
function storedPng(img: RgbaImage): Uint8Array {
  const { width, height } = img;
  const rows = new Uint8Array((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) {
    rows.set(img.data.subarray(y * width * 4, (y + 1) * width * 4), y * (width * 4 + 1) + 1);
  }
  return writePngChunks([
    ["IHDR", ihdrBody(width, height)],
    ["IDAT", deflateSync(rows, { level: 0 })],
    ["IEND", new Uint8Array()],
  ]);
}

// The 40 MiB chunk runs in tests/long/shots_large_test.ts; 9 MiB here is the same case,
// a chunk bigger than a saved shot may be, at a quarter of the copying and CRC work.
Deno.test("a phone PNG carrying a 9 MiB tEXt chunk is saved as its image alone, byte for byte", async () => {
  await textChunkIsStripped(9);
});

Deno.test("a screenshot over 8 MiB after stripping is re-encoded, with the same pixels", async () => {
  await using folder = await tempDir("phone_eye_shots_");
  // An uncompressed (stored) PNG: 1600×1400 RGBA is 8.96 MB of image data.
  const width = 1600, height = 1400;
  const img = uniformScreen(width, height, [200, 40, 90]);
  img.data.fill(0, 0, width * 4 * 10); // ten black rows
  const stored = storedPng(img);
  assert.ok(stored.length > MAX_SAVED_SHOT_BYTES);
  const path = savedPath(await saverOn(folder.path, 256 * 1024 * 1024)(stored));
  const saved = await Deno.readFile(path);
  assert.ok(saved.length <= MAX_SAVED_SHOT_BYTES, `${saved.length} bytes`);
  const back = await readPngStream(saved);
  assert.equal(back.image.width, width);
  assert.deepEqual(back.image.data, img.data);
});

Deno.test("a screenshot over 8 MiB even re-encoded is not saved, and the text says why", async () => {
  await using folder = await tempDir("phone_eye_shots_");
  // Noise does not compress: 2000×1500 opaque pixels are 9 MB as RGB however they are encoded.
  // Stored (12 MB as RGBA) rather than compressed here: the saver's own re-encoding is the test.
  const noise = storedPng(noiseScreen(2000, 1500));
  assert.ok(noise.length > MAX_SAVED_SHOT_BYTES);
  const text = await saverOn(folder.path, 256 * 1024 * 1024)(noise);
  assert.match(
    text,
    /^Not saved to PHONE_EYE_SHOTS \(.*\): its image is \d+(\.\d)? MiB even re-encoded, over the 8 MiB a saved screenshot may take\.$/,
  );
  assert.deepEqual(await names(folder.path), []);
});

Deno.test("the folder cap removes phone-eye's oldest files, never a foreign file, a symlink or its target", async () => {
  await using folder = await tempDir("phone_eye_shots_");
  await using outside = await tempDir("phone_eye_outside_");
  const shots = folder.path;
  const target = join(outside.path, "precious.png");
  await Deno.writeFile(target, new Uint8Array(50_000));
  // Older than anything the saver writes, named like phone-eye's files, but a link, a folder, and
  // a file with another name: none is phone-eye's to remove.
  const oldLink = ownShotName(Date.parse("2020-01-01T00:00:00Z"), "0badf00d");
  await Deno.symlink(target, join(shots, oldLink));
  const oldDir = ownShotName(Date.parse("2020-01-01T00:00:01Z"), "0badf00e");
  await Deno.mkdir(join(shots, oldDir));
  await Deno.writeFile(join(shots, "notes.png"), new Uint8Array(300_000));
  await Deno.writeFile(join(shots, "phone-eye-latest.png"), new Uint8Array(300_000));

  const png = screenPng();
  const cap = png.length * 3; // room for three shots
  const save = saverOn(shots, cap);
  const saved: string[] = [];
  for (let i = 0; i < 7; i++) saved.push(savedPath(await save(png)));

  const own = (await names(shots)).filter((n) => /^phone-eye-2026-/.test(n));
  assert.deepEqual(own, saved.slice(-3).map((p) => p.slice(shots.length + 1)), "the newest three");
  const sizes = await Promise.all(own.map(async (n) => (await Deno.lstat(join(shots, n))).size));
  assert.ok(sizes.reduce((a, b) => a + b, 0) <= cap);
  assert.deepEqual(
    (await names(shots)).filter((n) => !own.includes(n)),
    [oldLink, oldDir, "notes.png", "phone-eye-latest.png"].sort(),
    "every other entry stays",
  );
  assert.equal(await Deno.readLink(join(shots, oldLink)), target);
  assert.equal((await Deno.stat(target)).size, 50_000);
});

Deno.test("saves at once take turns, so the cap holds for each", async () => {
  await using folder = await tempDir("phone_eye_shots_");
  const png = screenPng();
  const save = saverOn(folder.path, png.length * 2);
  const texts = await Promise.all(Array.from({ length: 6 }, () => save(png)));
  assert.ok(texts.every((t) => t.startsWith("Saved to ")), texts.join("\n"));
  assert.equal((await names(folder.path)).length, 2);
});

Deno.test("a folder that cannot be made is reported in the text, not thrown", async () => {
  await using folder = await tempDir("phone_eye_shots_");
  const file = join(folder.path, "a-file");
  await Deno.writeFile(file, new Uint8Array(1));
  const text = await saverOn(join(file, "shots"), 256 * 1024 * 1024)(screenPng());
  assert.match(text, /^Not saved to PHONE_EYE_SHOTS \(.*a-file\/shots\): .+\.$/);
});

/**
 * 9 MiB, more than a saved shot may take: the sim moves some 5 MB/s on a busy machine, so the
 * 40 MiB of the finding is the in-process test above, and this one shows the same path
 * through main.ts, real adb and the phone.
 */
const TEXT_MIB = 9;

Deno.test(`end to end: a phone PNG with a ${TEXT_MIB} MiB tEXt chunk is saved small, and PHONE_EYE_SHOTS_MAX_MB makes room`, async () => {
  await using folder = await tempDir("phone_eye_shots_");
  const shots = folder.path;
  await Deno.writeFile(join(shots, "notes.txt"), new Uint8Array(3 * 1024 * 1024));
  // Three earlier shots of 3 MiB: with 8 MiB allowed, the next save must first remove the oldest.
  const earlier = [1, 2, 3].map((d) =>
    ownShotName(Date.parse(`2026-01-0${d}T00:00:00Z`), "0000000" + d)
  );
  for (const name of earlier) await Deno.writeFile(join(shots, name), new Uint8Array(3 << 20));
  // Half a phone's size each way: the tEXt chunk is the point, and each frame of the sim is
  // rendered, decoded and encoded for the agent.
  await using r = await startRig({
    shotsDir: shots,
    env: { PHONE_EYE_SHOTS_MAX_MB: "8" },
    phones: [{ width: 540, height: 1200 }],
  });
  const plain = await r.adb.adbBytes("-s", r.sim.serial, "exec-out", "screencap -p");
  r.sim.faults.pngTextChunk(TEXT_MIB * 1024 * 1024);
  const bloated = await r.adb.adbBytes("-s", r.sim.serial, "exec-out", "screencap -p");
  assert.equal(bloated.stdout.length, plain.stdout.length + TEXT_MIB * 1024 * 1024 + 12);
  const shot = await r.call("phone_shot");
  assert.notEqual(shot.isError, true, textOf(shot));
  const path = savedPath(textOf(shot).split("\n").find((l) => l.startsWith("Saved to ")) ?? "");
  assert.deepEqual(await Deno.readFile(path), plain.stdout, "the phone's image chunks alone");
  assert.deepEqual(
    await names(shots),
    [...earlier.slice(1), path.slice(shots.length + 1), "notes.txt"].sort(),
  );
});
