// The screenshot saver on Deno's file system, as tests/screen/shots_test.ts and its long companion
// tests/long/shots_large_test.ts drive it, and the case both run at their own chunk size.

import assert from "node:assert/strict";
import { encodePng } from "../../lib/image/encode.ts";
import { createShotSaver, type ShotFiles } from "../../lib/screen/shots.ts";
import { insertChunkBeforeIdat } from "../../sim/png_writer.ts";
import { uniformScreen } from "../fixtures/images/synthetic_screen.ts";
import { tempDir } from "./rig.ts";

/** Deno's file system, as main.ts passes it. */
const DENO_FILES: ShotFiles = {
  mkdir: (dir) => Deno.mkdir(dir, { recursive: true }),
  writeNew: (path, bytes) => Deno.writeFile(path, bytes, { createNew: true, mode: 0o600 }),
  list: async (dir) => (await Array.fromAsync(Deno.readDir(dir))).map((entry) => entry.name),
  lstat: (path) => Deno.lstat(path),
  remove: (path) => Deno.remove(path),
};

/** A saver on `dir` whose clock moves one second per file, so names sort in the order saved. */
export function saverOn(dir: string, maxBytes: number): ReturnType<typeof createShotSaver> {
  let t = Date.parse("2026-12-02T10:00:00.000Z");
  let n = 0;
  return createShotSaver({
    dir,
    maxBytes,
    files: DENO_FILES,
    now: () => (t += 1000),
    randomId: () => (n++).toString(16).padStart(8, "0"),
  });
}

export const savedPath = (text: string): string => {
  const path = /^Saved to (.+\.png)\.$/.exec(text)?.[1];
  assert.ok(path, text);
  return path;
};

const names = async (dir: string) =>
  (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort();

/** A small screen's PNG with text, time and private chunks beside the image, as a phone may add. */
export function screenPng(): Uint8Array {
  const img = uniformScreen(64, 48, [30, 120, 200]);
  img.data.fill(255, 0, 64 * 4); // one white row, so it is not flat
  return encodePng(img);
}

/** A phone PNG carrying a `mib` MiB tEXt chunk (and small private chunks) is saved three times,
 * each time as its image alone, byte for byte. */
export async function textChunkIsStripped(mib: number): Promise<void> {
  await using folder = await tempDir("phone_eye_shots_");
  const plain = screenPng();
  const text = new Uint8Array(mib * 1024 * 1024).fill(0x61);
  text.set(new TextEncoder().encode("Comment\0"));
  // The small chunks first, so the big one is copied once.
  let bloated = insertChunkBeforeIdat(plain, "tIME", Uint8Array.of(7, 234, 12, 2, 10, 0, 0));
  bloated = insertChunkBeforeIdat(bloated, "prVt", new Uint8Array(1000));
  bloated = insertChunkBeforeIdat(bloated, "tEXt", text);
  assert.ok(bloated.length > mib * 1024 * 1024);
  const save = saverOn(folder.path, 256 * 1024 * 1024);
  for (let i = 0; i < 3; i++) {
    const path = savedPath(await save(bloated));
    assert.deepEqual(await Deno.readFile(path), plain);
  }
  assert.equal((await names(folder.path)).length, 3);
}
