// Writes a zip archive with built-ins only (deflate-raw from CompressionStream, CRC-32 from
// node:zlib), recording each entry's unix mode so a bundled binary stays executable when unpacked.

import { crc32 } from "node:zlib";

/** One file to put in the archive. */
export interface ZipEntry {
  /** Path inside the archive: relative, "/"-separated, no "." or ".." segments. */
  name: string;
  data: Uint8Array;
  /** Unix permission bits, e.g. 0o755 for an executable, 0o644 for data. */
  mode: number;
}

// Field layouts and numbers from PKWARE's APPNOTE.TXT 6.3.10: 4.3.7 local file header,
// 4.3.12 central directory header, 4.3.16 end of central directory record, 4.4.2 "version made
// by" (upper byte 3 = UNIX, which tells unzip to read the mode from the external attributes),
// 4.4.4 bit 11 (names are UTF-8), 4.4.5 methods 0 (stored) and 8 (deflated).
const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL = 0x06054b50;
const VERSION_NEEDED = 20; // 2.0: deflate
const VERSION_MADE_BY = (3 << 8) | VERSION_NEEDED;
const FLAG_UTF8 = 1 << 11;
const STORED = 0;
const DEFLATED = 8;
/** S_IFREG: Info-ZIP stores the whole st_mode in the upper 16 bits, file type included. */
const REGULAR_FILE = 0o100000;
/** Past these, the sizes, offsets or entry count need ZIP64, which this writer does not do. */
const MAX_U32 = 0xffff_ffff;
const MAX_ENTRIES = 0xffff;
/**
 * 1980-01-01 00:00:00, the earliest MS-DOS date: a fixed stamp makes the archive a function of
 * its inputs alone, so a release bundle can be rebuilt from the same binary and compared byte for
 * byte.
 */
const DOS_DATE = (0 << 9) | (1 << 5) | 1;
const DOS_TIME = 0;

/**
 * The zip archive holding `entries` in the given order. Each is deflated unless that does not
 * make it smaller, in which case it is stored. Throws on a bad or repeated name, a mode outside
 * 0o000-0o777, or an archive that would need ZIP64 (4 GiB or 65535 entries).
 */
export async function writeZip(entries: readonly ZipEntry[]): Promise<Uint8Array> {
  if (entries.length > MAX_ENTRIES) throw new Error(`zip: ${entries.length} entries need ZIP64`);
  const seen = new Set<string>();
  const encoder = new TextEncoder();
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const entry of entries) {
    checkName(entry.name);
    if (seen.has(entry.name)) throw new Error(`zip: ${entry.name} is listed twice`);
    seen.add(entry.name);
    if (!Number.isInteger(entry.mode) || entry.mode < 0 || entry.mode > 0o777) {
      throw new Error(`zip: mode ${entry.mode} of ${entry.name} is not a permission set`);
    }
    if (entry.data.length > MAX_U32) throw new Error(`zip: ${entry.name} needs ZIP64`);
    const name = encoder.encode(entry.name);
    const deflated = await deflateRaw(entry.data);
    const [method, body] = deflated.length < entry.data.length
      ? [DEFLATED, deflated]
      : [STORED, entry.data];
    const crc = crc32(entry.data) >>> 0;

    const local = new Uint8Array(30 + name.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, LOCAL_HEADER, true);
    lv.setUint16(4, VERSION_NEEDED, true);
    lv.setUint16(6, FLAG_UTF8, true);
    lv.setUint16(8, method, true);
    lv.setUint16(10, DOS_TIME, true);
    lv.setUint16(12, DOS_DATE, true);
    lv.setUint32(14, crc, true);
    lv.setUint32(18, body.length, true);
    lv.setUint32(22, entry.data.length, true);
    lv.setUint16(26, name.length, true);
    lv.setUint16(28, 0, true); // extra field length
    local.set(name, 30);

    const central = new Uint8Array(46 + name.length);
    const cv = new DataView(central.buffer);
    cv.setUint32(0, CENTRAL_HEADER, true);
    cv.setUint16(4, VERSION_MADE_BY, true);
    cv.setUint16(6, VERSION_NEEDED, true);
    cv.setUint16(8, FLAG_UTF8, true);
    cv.setUint16(10, method, true);
    cv.setUint16(12, DOS_TIME, true);
    cv.setUint16(14, DOS_DATE, true);
    cv.setUint32(16, crc, true);
    cv.setUint32(20, body.length, true);
    cv.setUint32(24, entry.data.length, true);
    cv.setUint16(28, name.length, true);
    // 30: extra length, 32: comment length, 34: disk number, 36: internal attributes, all 0.
    cv.setUint32(38, ((REGULAR_FILE | entry.mode) << 16) >>> 0, true);
    cv.setUint32(42, offset, true);
    central.set(name, 46);

    locals.push(local, body);
    centrals.push(central);
    offset += local.length + body.length;
    if (offset > MAX_U32) throw new Error("zip: the archive would need ZIP64 (over 4 GiB)");
  }
  const centralSize = centrals.reduce((sum, c) => sum + c.length, 0);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, END_OF_CENTRAL, true);
  // 4: this disk, 6: disk with the central directory, both 0.
  ev.setUint16(8, entries.length, true);
  ev.setUint16(10, entries.length, true);
  ev.setUint32(12, centralSize, true);
  ev.setUint32(16, offset, true);
  // 20: comment length 0.
  return concat([...locals, ...centrals, end]);
}

function checkName(name: string): void {
  const segments = name.split("/");
  if (
    name === "" || name.includes("\\") || name.includes("\0") ||
    segments.some((s) => s === "" || s === "." || s === "..")
  ) {
    throw new Error(`zip: ${JSON.stringify(name)} is not a relative "/"-separated file path`);
  }
}

async function deflateRaw(data: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([data as Uint8Array<ArrayBuffer>]).stream()
    .pipeThrough(new CompressionStream("deflate-raw"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, p) => sum + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
