// PNG containers: the chunk walk that proves a transfer whole, and every header check made before a
// byte is inflated (IHDR first and once, sizes, depths, colour profile bounds); the chunk writer.
import { errorText } from "../core/errors.ts";
import { crc32, inflateSync } from "node:zlib";
import { checkDimensions, ImageError } from "./frame.ts";

/**
 * Largest colour profile (iCCP) we let the decoder inflate. fast-png inflates it with no limit;
 * the profiles screenshots carry (sRGB, Display P3) are a few KiB.
 */
const MAX_ICC_BYTES = 1 << 20;

export const PNG_SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10] as const;

// Chunk types as big-endian u32s.
export const IHDR = 0x49484452;
export const IDAT = 0x49444154;
const ICCP = 0x69434350;
const PLTE = 0x504c5445;
const TRNS = 0x74524e53;
export const IEND = 0x49454e44;

function hasPngSignature(bytes: Uint8Array): boolean {
  if (bytes.length < PNG_SIGNATURE.length) return false;
  return PNG_SIGNATURE.every((b, i) => bytes[i] === b);
}

function u32be(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>>
    0;
}

/**
 * Offset just past the IEND chunk when the chunk chain runs unbroken from the signature to an
 * IEND; undefined when the chain runs off the end (a cut transfer) or the bytes are not a PNG.
 */
function pngEnd(bytes: Uint8Array): number | undefined {
  if (!hasPngSignature(bytes)) return undefined;
  let at: number = PNG_SIGNATURE.length;
  while (at + 12 <= bytes.length) {
    const length = u32be(bytes, at);
    if (length > 0x7fffffff) return undefined; // PNG caps chunk lengths at 2^31-1
    const end = at + 12 + length;
    if (end > bytes.length) return undefined;
    if (u32be(bytes, at + 4) === IEND) return end;
    at = end;
  }
  return undefined;
}

/**
 * True when the bytes are one PNG whose chunk chain runs unbroken from the signature to an IEND
 * chunk ending at the last byte. `adb exec-out screencap -p` exits 0 with a prefix of the PNG when
 * the link drops mid-transfer (adb 29 and 34 alike: docs/android.md, the adb client), so a whole tail
 * is the proof the frame is whole. Walking the chunk lengths (~150 steps for a phone screenshot in
 * 8 KiB IDATs, under a microsecond) also rejects a cut that happens to end in IEND-like bytes.
 */
export function isCompletePng(bytes: Uint8Array): boolean {
  return pngEnd(bytes) === bytes.length;
}

function printableExcerpt(bytes: Uint8Array): string {
  const head = bytes.subarray(0, 60);
  const text = Array.from(head, (b) => (b >= 32 && b < 127 ? String.fromCharCode(b) : "."))
    .join("");
  return JSON.stringify(text);
}

/** Bit depths the PNG specification allows per colour type (11.2.2), and channels per pixel. */
const PNG_COLOUR_TYPES: Record<number, { depths: number[]; channels: number }> = {
  0: { depths: [1, 2, 4, 8, 16], channels: 1 }, // greyscale
  2: { depths: [8, 16], channels: 3 }, // truecolour
  3: { depths: [1, 2, 4, 8], channels: 1 }, // palette index
  4: { depths: [8, 16], channels: 2 }, // greyscale + alpha
  6: { depths: [8, 16], channels: 4 }, // truecolour + alpha
};

/** Adam7's seven passes: first column, first row, column step, row step (PNG spec 8.2). */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/**
 * Bytes the image data inflates to, as IHDR declares it: per row a filter byte and the packed
 * samples; for Adam7, the same for each pass's sub-image (empty passes have no rows at all).
 */
function filteredSize(image: {
  width: number;
  height: number;
  bitsPerPixel: number;
  /** Interlaced (Adam7): seven passes, each its own sub-image. */
  adam7: boolean;
}): number {
  const { width, height, bitsPerPixel } = image;
  const rowsSize = (w: number, h: number) =>
    w === 0 ? 0 : h * (1 + Math.ceil(w * bitsPerPixel / 8));
  if (!image.adam7) return rowsSize(width, height);
  let total = 0;
  for (const [x0, y0, dx, dy] of ADAM7) {
    total += rowsSize(
      Math.ceil(Math.max(0, width - x0) / dx),
      Math.ceil(Math.max(0, height - y0) / dy),
    );
  }
  return total;
}

/**
 * Inflates a zlib stream, refusing to produce more than `limit` bytes: node:zlib stops at the
 * limit instead of growing its output, so a 1 MB stream of zeros cannot become gigabytes.
 * Returns the inflated length, or "over" when the stream holds more than `limit`.
 */
function boundedInflate(zlib: Uint8Array, limit: number): number | "over" {
  try {
    return inflateSync(zlib, { maxOutputLength: limit }).length;
  } catch (error) {
    if ((error as { code?: unknown }).code === "ERR_BUFFER_TOO_LARGE") return "over";
    const detail = errorText(error);
    throw new ImageError(
      "CORRUPT",
      `PNG is whole but its compressed data cannot be inflated (${detail}); take the screenshot again`,
      { cause: error },
    );
  }
}

/** A chunk type as text for a message, e.g. "tEXt"; bytes outside printable ASCII become "?". */
function chunkName(type: number): string {
  const bytes = [type >>> 24, (type >>> 16) & 255, (type >>> 8) & 255, type & 255];
  return JSON.stringify(String.fromCharCode(...bytes.map((b) => (b >= 32 && b < 127 ? b : 63))));
}

/** What checkPngBeforeDecoding read: the header, a tRNS chunk's presence, the joined IDAT data. */
export interface PngLayout {
  width: number;
  height: number;
  depth: number;
  colourType: number;
  interlace: number;
  /** A tRNS chunk is present (a key colour or palette alpha). */
  keyed: boolean;
  /** The IDAT chunks' zlib stream, joined. */
  zlib: Uint8Array;
  /** Bytes that stream must inflate to, exactly, as IHDR declares (filteredSize). */
  expected: number;
}

/**
 * Everything a decoder would trust, checked before anything is allocated: IHDR first and only
 * once, with a size, depth and colour type the specification allows, within MAX_SIDE and
 * MAX_PIXELS; a colour profile within MAX_ICC_BYTES. fast-png takes the last IHDR it meets and
 * inflates every IDAT and iCCP byte with no limit, so each of these was a way to make it allocate
 * gigabytes from a small file; the image data's own bound (exactly `expected` bytes) is enforced
 * where it is inflated (inflateImageData). `end` is where the chunk chain ends (pngEnd), so every
 * chunk read here lies within the bytes.
 */
export function checkPngBeforeDecoding(bytes: Uint8Array, end: number): PngLayout {
  const header = readHeader(bytes);
  const { width, height, depth, colourType, interlace } = header;
  const { keyed, idat } = readChunksAfterHeader(bytes, end);
  if (idat.length === 0) {
    throw new ImageError(
      "EMPTY",
      `PNG has a ${width}×${height} header but no image data (no IDAT chunk), as some builds write after long sessions: take it again, or fall back to raw screencap (without -p)`,
    );
  }
  const expected = filteredSize({
    width,
    height,
    bitsPerPixel: depth * header.channels,
    adam7: interlace === 1,
  });
  return { width, height, depth, colourType, interlace, keyed, zlib: joined(idat), expected };
}

/** The IHDR chunk, which must come first and be 13 bytes, with values the specification defines. */
function readHeader(bytes: Uint8Array) {
  const first = u32be(bytes, 12);
  if (first !== IHDR) {
    throw new ImageError(
      "CORRUPT",
      `PNG starts with a ${
        chunkName(first)
      } chunk, but the PNG specification requires the IHDR header chunk first; this is not a picture screencap wrote: take the screenshot again`,
    );
  }
  if (u32be(bytes, 8) !== 13) {
    throw new ImageError(
      "CORRUPT",
      `PNG's IHDR chunk is ${u32be(bytes, 8)} bytes instead of 13: take the screenshot again`,
    );
  }
  const width = u32be(bytes, 16);
  const height = u32be(bytes, 20);
  const ihdr = bytes.subarray(24, 29);
  const [depth = 0, colourType = 0, compression = 0, filter = 0, interlace = 0] = ihdr;
  if (width === 0 || height === 0) {
    throw new ImageError(
      "EMPTY",
      `PNG header says ${width}×${height}: the device gave no frame; take the screenshot again`,
    );
  }
  checkDimensions(width, height, "PNG");
  const colour = PNG_COLOUR_TYPES[colourType];
  if (!colour?.depths.includes(depth) || compression !== 0 || filter !== 0 || interlace > 1) {
    const declared =
      `colour type ${colourType} at ${depth} bits, compression ${compression}, filter ${filter}, interlace ${interlace}`;
    throw new ImageError(
      "CORRUPT",
      `PNG header declares ${declared}, which the PNG specification does not define: take the screenshot again`,
    );
  }
  return { width, height, depth, colourType, interlace, channels: colour.channels };
}

/**
 * The chunks after IHDR, up to `end`: whether a tRNS is present and the IDAT bodies in order.
 * Refuses a second IHDR and a colour profile that inflates beyond MAX_ICC_BYTES.
 */
function readChunksAfterHeader(bytes: Uint8Array, end: number) {
  let keyed = false;
  const idat: Uint8Array[] = [];
  for (let at = 8 + 25; at < end;) {
    const length = u32be(bytes, at);
    const type = u32be(bytes, at + 4);
    const body = bytes.subarray(at + 8, at + 8 + length);
    if (type === IHDR) {
      throw new ImageError(
        "CORRUPT",
        `PNG has a second IHDR header chunk at byte ${at}; the PNG specification allows one: take the screenshot again`,
      );
    }
    if (type === TRNS) keyed = true;
    if (type === IDAT) idat.push(body);
    if (type === ICCP) checkColourProfile(body);
    at += 12 + length;
  }
  return { keyed, idat };
}

function checkColourProfile(body: Uint8Array): void {
  // Keyword (1–79 bytes), NUL, compression method, then the zlib stream. fast-png refuses a
  // keyword of any other length before inflating, so only these profiles need the bound.
  const nul = body.subarray(0, 80).indexOf(0);
  if (nul > 0 && boundedInflate(body.subarray(nul + 2), MAX_ICC_BYTES) === "over") {
    throw new ImageError(
      "CORRUPT",
      `PNG's colour profile (iCCP) inflates to more than ${MAX_ICC_BYTES} bytes, far beyond any real profile: take the screenshot again`,
    );
  }
}

/** The IDAT bodies as one zlib stream; a single one is used as it is. */
function joined(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Throws unless `bytes` is one whole PNG; returns where its chunk chain ends. */
export function checkPngStream(bytes: Uint8Array): number {
  if (bytes.length === 0) {
    throw new ImageError(
      "EMPTY",
      "Screenshot is empty (0 bytes): screencap -p returned nothing, which some builds do after long sessions; take it again, or fall back to raw screencap (without -p)",
    );
  }
  if (!hasPngSignature(bytes)) {
    throw new ImageError(
      "NOT_PNG",
      `Expected a PNG from screencap -p but got ${bytes.length} bytes starting ${
        printableExcerpt(bytes)
      }; if that reads as an error, the device could not take the screenshot`,
    );
  }
  const end = pngEnd(bytes);
  if (end !== undefined && end < bytes.length) {
    throw new ImageError(
      "CORRUPT",
      `PNG ends at byte ${end} but ${
        bytes.length - end
      } more bytes follow it: something else wrote to the screenshot stream; take the screenshot again`,
    );
  }
  if (end === undefined) {
    throw new ImageError(
      "TRUNCATED",
      `PNG is truncated (${bytes.length} bytes, no IEND chunk at the end): the transfer was cut, usually by a dropped adb link; reconnect and take the screenshot again`,
    );
  }
  return end;
}

/**
 * The same PNG with only the chunks that make the picture: IHDR, PLTE, tRNS, IDAT and IEND, in
 * their order. Text, time, colour-profile and private chunks are metadata a phone may attach at
 * any size (a tEXt chunk of 40 MiB is a valid PNG); a saved screenshot keeps the image alone.
 * Returns the bytes unchanged when nothing is dropped, and undefined when they are not one whole
 * PNG (pngEnd).
 */
export function imageChunksOnly(bytes: Uint8Array): Uint8Array | undefined {
  const end = pngEnd(bytes);
  if (end !== bytes.length) return undefined;
  const kept: Array<[number, number]> = [];
  let size: number = PNG_SIGNATURE.length;
  for (let at: number = PNG_SIGNATURE.length; at < end;) {
    const next = at + 12 + u32be(bytes, at);
    const type = u32be(bytes, at + 4);
    if (type === IHDR || type === PLTE || type === TRNS || type === IDAT || type === IEND) {
      kept.push([at, next]);
      size += next - at;
    }
    at = next;
  }
  if (size === bytes.length) return bytes;
  const out = new Uint8Array(size);
  out.set(bytes.subarray(0, PNG_SIGNATURE.length));
  let to: number = PNG_SIGNATURE.length;
  for (const [from, until] of kept) {
    out.set(bytes.subarray(from, until), to);
    to += until - from;
  }
  return out;
}

/** One chunk: length, type, body, CRC over type and body. */
export function pngChunk(type: number, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + body.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, body.length);
  view.setUint32(4, type);
  out.set(body, 8);
  // PNG's chunk CRC (spec 5.5) is zlib's CRC-32, over the type and the body.
  view.setUint32(8 + body.length, crc32(out.subarray(4, 8 + body.length)) >>> 0);
  return out;
}
