// A PNG writer shaped like the one on the phone (Skia: per-row adaptive filters, zlib level 6),
// so decode tests and benches see filtered rows the way screencap -p writes them.
import { crc32, deflateSync } from "node:zlib";
import { concatBytes } from "../lib/core/bytes.ts";
import type { RgbaImage } from "../lib/image/frame.ts";

/** One chunk: length, type, body, and the CRC-32 of type and body (PNG spec 5.3). */
export function pngChunk(type: string, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + body.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, body.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(body, 8);
  view.setUint32(8 + body.length, crc32(out.subarray(4, 8 + body.length)) >>> 0);
  return out;
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/**
 * Encodes RGBA8 (colour type 6) choosing, per row, the filter with the smallest sum of absolute
 * residuals: the libpng heuristic Skia uses. `filters` narrows the choice (one entry forces it).
 */
export function writeFilteredPng(
  img: RgbaImage,
  level = 6,
  filters: readonly number[] = [0, 1, 2, 3, 4],
): Uint8Array {
  const { width, height, data } = img;
  const stride = width * 4;
  const raw = new Uint8Array(height * (stride + 1));
  const candidate = new Uint8Array(stride);
  const best = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const row = y * stride;
    let bestScore = Infinity;
    let bestFilter = 0;
    for (const f of filters) {
      let score = 0;
      for (let i = 0; i < stride; i++) {
        const x = data[row + i]!;
        const a = i >= 4 ? data[row + i - 4]! : 0;
        const b = y > 0 ? data[row - stride + i]! : 0;
        const c = i >= 4 && y > 0 ? data[row - stride + i - 4]! : 0;
        const predicted = f === 0
          ? 0
          : f === 1
          ? a
          : f === 2
          ? b
          : f === 3
          ? (a + b) >> 1
          : paeth(a, b, c);
        const v = (x - predicted) & 0xff;
        candidate[i] = v;
        score += v < 128 ? v : 256 - v;
      }
      if (score < bestScore) {
        bestScore = score;
        bestFilter = f;
        best.set(candidate);
      }
    }
    raw[y * (stride + 1)] = bestFilter;
    raw.set(best, y * (stride + 1) + 1);
  }
  const ihdr = new Uint8Array(13);
  const view = new DataView(ihdr.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  ihdr.set([8, 6, 0, 0, 0], 8);
  const zlib = new Uint8Array(deflateSync(raw, { level }));
  const parts = [Uint8Array.of(137, 80, 78, 71, 13, 10, 26, 10), pngChunk("IHDR", ihdr)];
  // libpng (and so Skia) emits the zlib stream as 8 KiB IDAT chunks, not one big one.
  for (let at = 0; at < zlib.length; at += 8192) {
    parts.push(pngChunk("IDAT", zlib.subarray(at, at + 8192)));
  }
  parts.push(pngChunk("IEND", new Uint8Array(0)));
  return concatBytes(parts);
}

/**
 * A PNG made of exactly these chunks, in this order, CRCs included: for files no encoder writes
 * (a chunk before IHDR, a header that lies about the data), which is what a hostile phone sends.
 */
export function writePngChunks(chunks: Array<[type: string, body: Uint8Array]>): Uint8Array {
  const parts: Uint8Array[] = [Uint8Array.of(137, 80, 78, 71, 13, 10, 26, 10)];
  for (const [type, body] of chunks) parts.push(pngChunk(type, body));
  return concatBytes(parts);
}

/** An IHDR body: width, height, bit depth, colour type, then compression, filter, interlace. */
export function ihdrBody(
  width: number,
  height: number,
  depth = 8,
  colourType = 6,
  interlace = 0,
): Uint8Array {
  const body = new Uint8Array(13);
  const view = new DataView(body.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  body.set([depth, colourType, 0, 0, interlace], 8);
  return body;
}

/** Returns a copy of `png` with a chunk (CRC included) inserted before its first IDAT. */
export function insertChunkBeforeIdat(png: Uint8Array, type: string, body: Uint8Array): Uint8Array {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  let at = 8;
  while (String.fromCharCode(...png.subarray(at + 4, at + 8)) !== "IDAT") {
    at += 12 + view.getUint32(at);
  }
  const extra = pngChunk(type, body);
  const out = new Uint8Array(png.length + extra.length);
  out.set(png.subarray(0, at));
  out.set(extra, at);
  out.set(png.subarray(at), at + extra.length);
  return out;
}
