// The screenshot folder (PHONE_EYE_SHOTS): each shot its image alone, at most 8 MiB, phone-eye's own
// files kept under PHONE_EYE_SHOTS_MAX_MB (oldest removed first), and the words for a refused save.

import { mib, releaseBytes } from "../core/bytes.ts";

/**
 * The image steps a save needs, loaded on the first save: start-up loads no image code
 * (tests/app/module_graph_test.ts), and a save follows a capture, which has loaded them already.
 */
const loadImage = () =>
  Promise.all([
    import("../image/png_chunks.ts"),
    import("../image/png_decode.ts"),
    import("../image/encode.ts"),
    import("../image/frame.ts"),
  ]);

/**
 * The most one saved screenshot may take. A 1440×3200 phone's screen is some 0.2–3 MB as the
 * phone compresses it; 8 MiB leaves room for a photo-heavy screen of the largest phones while a
 * 40 MiB text chunk, or image data padded with empty deflate blocks, cannot reach the disk.
 */
export const MAX_SAVED_SHOT_BYTES = 8 * 1024 * 1024;

/** The file system operations the saver needs; main.ts passes Deno's, tests a temp folder's. */
export interface ShotFiles {
  /** Creates the folder and its parents; no error when it exists. */
  mkdir(dir: string): Promise<void>;
  /** Creates a new file (O_EXCL: an existing name or a symlink fails), private to its owner. */
  writeNew(path: string, bytes: Uint8Array): Promise<void>;
  /** The names of the folder's entries. */
  list(dir: string): Promise<string[]>;
  /** What the entry itself is (a symlink is not followed) and its size. */
  lstat(path: string): Promise<{ isFile: boolean; isSymlink: boolean; size: number }>;
  remove(path: string): Promise<void>;
}

export interface ShotSaverOptions {
  dir: string;
  /** What phone-eye's files in `dir` may take together, in bytes. */
  maxBytes: number;
  files: ShotFiles;
  /** Wall-clock time in milliseconds since the epoch, for the file name. */
  now: () => number;
  /** Eight lowercase hex digits, fresh for every file. */
  randomId: () => string;
}

/**
 * The names phone-eye gives its files: `phone-eye-<ISO time with - for : and .>-<8 hex>.png`. Only
 * a regular file with such a name is ever removed; the stamp sorts as the time it was taken.
 */
const OWN_NAME = /^phone-eye-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z-[0-9a-f]{8}\.png$/;

export function ownShotName(epochMs: number, id: string): string {
  return `phone-eye-${new Date(epochMs).toISOString().replace(/[:.]/g, "-")}-${id}.png`;
}

/**
 * The bytes to keep for a screenshot: its image chunks alone (imageChunksOnly), or, when those
 * still pass MAX_SAVED_SHOT_BYTES (an uncompressed PNG, or image data padded out), the pixels
 * re-encoded (lib/image/encode.ts). A string says why nothing can be kept.
 */
export async function boundedShot(png: Uint8Array): Promise<Uint8Array | string> {
  const [{ imageChunksOnly }, { readPngStream }, { encodePng }, { ImageError }] = await loadImage();
  const image = imageChunksOnly(png);
  if (image === undefined) return "the screenshot is not one whole PNG";
  if (image.length <= MAX_SAVED_SHOT_BYTES) return image;
  let again: Uint8Array;
  try {
    const frame = await readPngStream(image);
    again = encodePng(frame.image);
    releaseBytes(frame.image.data);
  } catch (error) {
    if (!(error instanceof ImageError)) throw error;
    return `its image is ${mib(image.length)}, over the ${
      mib(MAX_SAVED_SHOT_BYTES)
    } a saved screenshot may take, and could not be re-encoded (${error.message})`;
  }
  if (again.length <= MAX_SAVED_SHOT_BYTES) return again;
  return `its image is ${mib(again.length)} even re-encoded, over the ${
    mib(MAX_SAVED_SHOT_BYTES)
  } a saved screenshot may take`;
}

/**
 * Keeps screenshots in `dir`. Each file gets a fresh random name and is created with createNew
 * (O_EXCL), so a symlink planted in the folder is never followed. Before a file is written, the
 * oldest of phone-eye's own files (OWN_NAME, regular files; never a symlink, never another name)
 * are removed until the new one fits under `maxBytes`, so the folder never holds more than that of
 * phone-eye's. Saves run one at a time, so two never count the same room. A failure to save is
 * reported in the tool's text; it never costs the agent its screenshot.
 */
export function createShotSaver(
  options: ShotSaverOptions,
): (png: Uint8Array) => Promise<string> {
  const { files, maxBytes } = options;
  const dir = options.dir.replace(/[\\/]+$/, "");
  const refused = (why: string) => notSaved(options.dir, why);

  async function save(png: Uint8Array): Promise<string> {
    const bytes = await boundedShot(png);
    if (typeof bytes === "string") return refused(bytes);
    try {
      await files.mkdir(dir);
      await makeRoom(bytes.length);
      const path = `${dir}/${ownShotName(options.now(), options.randomId())}`;
      await files.writeNew(path, bytes);
      return `Saved to ${path}.`;
    } catch (error) {
      return notSavedMessage(options.dir, error);
    }
  }

  /** Removes phone-eye's oldest files until `incoming` more bytes fit under maxBytes. */
  async function makeRoom(incoming: number): Promise<void> {
    const own: Array<{ name: string; size: number }> = [];
    for (const name of await files.list(dir)) {
      if (!OWN_NAME.test(name)) continue;
      const info = await files.lstat(`${dir}/${name}`).catch(() => undefined);
      if (info?.isFile && !info.isSymlink) own.push({ name, size: info.size });
    }
    own.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    let total = own.reduce((sum, f) => sum + f.size, 0);
    for (const file of own) {
      if (total + incoming <= maxBytes) break;
      // Gone already (another phone-eye on the same folder): its room is free all the same.
      await files.remove(`${dir}/${file.name}`).catch((error) => {
        if ((error as Error).name !== "NotFound") throw error;
      });
      total -= file.size;
    }
  }

  let last: Promise<unknown> = Promise.resolve();
  return (png) => {
    const run = last.then(() => save(png));
    last = run;
    return run;
  };
}

/** How to let this process use `dir`: both grants, scoped to that folder alone. */
export function shotsGrantFix(dir: string): string {
  return `build a binary for it with "deno task compile --shots-dir ${dir}", or from source add --allow-read=${dir} --allow-write=${dir}`;
}

/**
 * What phone_shot and phone_look say when a screenshot could not be kept. Deno's own refusal
 * ("Requires write access to …, run again with the --allow-write flag") names one flag, unscoped;
 * a save needs both, for that folder only, so it is said in phone-eye's words.
 */
export function notSavedMessage(dir: string, error: unknown): string {
  const refused = error instanceof Error && error.name === "NotCapable";
  const why = refused
    ? `this phone-eye may not use that folder (its permissions do not grant it); ${
      shotsGrantFix(dir)
    }`
    : error instanceof Error
    ? error.message
    : String(error);
  return notSaved(dir, why);
}

/** The one wording of a screenshot that was not kept, whatever the reason. */
function notSaved(dir: string, why: string): string {
  return `Not saved to PHONE_EYE_SHOTS (${dir}): ${why}.`;
}
