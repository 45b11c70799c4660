// Writes a zip archive with fflate (already in the graph under fast-png), recording each entry's
// unix mode so a bundled binary stays executable when unpacked.

import { type ZipOptions, zipSync } from "fflate";

/** One file to put in the archive. */
export interface ZipEntry {
  /** Path inside the archive: relative, "/"-separated, no "." or ".." segments. */
  name: string;
  data: Uint8Array;
  /** Unix permission bits, e.g. 0o755 for an executable, 0o644 for data. */
  mode: number;
}

/**
 * "Version made by" 3 = UNIX (PKWARE's APPNOTE.TXT 6.3.10, 4.4.2), which tells unzip to read the
 * mode from the upper 16 bits of the external attributes, where Info-ZIP keeps the whole st_mode.
 */
const UNIX = 3;
/** S_IFREG: the file type beside the permission bits in that st_mode. */
const REGULAR_FILE = 0o100000;
/** fflate's default deflate level (zlib's too). */
const LEVEL = 6;
/**
 * 1980-01-01 00:00:00, the earliest MS-DOS date, as the local time fflate writes it: a fixed stamp
 * makes the archive a function of its inputs alone, so a release bundle can be rebuilt from the
 * same binary and compared byte for byte.
 */
const MTIME = new Date(1980, 0, 1);
/** Past this, offsets or sizes need ZIP64, which fflate does not write. */
const MAX_U32 = 0xffff_ffff;

/**
 * The zip archive holding `entries` in the given order, each deflated, even one deflate cannot
 * shrink (it grows by a few bytes): a bundle's manifest and binary always shrink, and choosing
 * would cost a second deflate of the ~100 MB binary, as zipSync deflates by itself. Throws on a bad
 * or repeated name, a mode outside 0o000-0o777, or an archive that would need ZIP64 (4 GiB).
 */
export function writeZip(entries: readonly ZipEntry[]): Uint8Array {
  const files: Record<string, [Uint8Array, ZipOptions]> = {};
  let total = 0;
  for (const entry of entries) {
    checkName(entry.name);
    if (Object.hasOwn(files, entry.name)) throw new Error(`zip: ${entry.name} is listed twice`);
    if (!Number.isInteger(entry.mode) || entry.mode < 0 || entry.mode > 0o777) {
      throw new Error(`zip: mode ${entry.mode} of ${entry.name} is not a permission set`);
    }
    // Deflate adds at most 5 bytes per 64 KiB block it cannot shrink (RFC 1951, 3.2.4).
    total += entry.data.length * 1.001 + 64 + 2 * (46 + entry.name.length);
    if (total > MAX_U32) throw new Error("zip: the archive would need ZIP64 (over 4 GiB)");
    files[entry.name] = [entry.data, {
      level: LEVEL,
      os: UNIX,
      attrs: ((REGULAR_FILE | entry.mode) << 16) >>> 0,
      mtime: MTIME,
    }];
  }
  return zipSync(files);
}

function checkName(name: string): void {
  const segments = name.split("/");
  if (
    name === "" || name.includes("\\") || name.includes("\0") ||
    segments.some((s) => s === "" || s === "." || s === "..")
  ) {
    throw new Error(`zip: ${JSON.stringify(name)} is not a relative "/"-separated file path`);
  }
  // zipSync takes an object, which puts integer-like keys first whatever order they came in.
  if (/^(0|[1-9]\d*)$/.test(name)) {
    throw new Error(`zip: ${JSON.stringify(name)} is all digits, which would not keep its place`);
  }
}
