// Encoding a frame for its audience: PNG (Up-filtered, native zlib) when the screen is flat UI and
// PNG is no bigger, else JPEG; quality, then size, stepped down until the base64 fits the budget.
import { encode as jpegJsEncode } from "jpeg-js";
import { deflateSync } from "node:zlib";
import { concatBytes, releaseBytes } from "../core/bytes.ts";
import { type Frame, ImageError, type RgbaImage } from "./frame.ts";
import { IDAT, IEND, IHDR, PNG_SIGNATURE, pngChunk } from "./png_chunks.ts";
import { downscale } from "./row_reducer.ts";
import { type AgentImage, firstEdge, fitToEdge, MIN_EDGE, type Sizing } from "./sizing.ts";

/** A PNG's image data before deflating (upFiltered), and what the pass saw on the way. */
interface FilteredRows {
  width: number;
  height: number;
  rows: Uint8Array;
  /** 3 (RGB) when every pixel is opaque, else 4. */
  channels: 3 | 4;
  /**
   * Share of pixels equal in colour to their left neighbour. Flat UI (settings, chats, lists) sits
   * above 0.9 after downscaling and is smaller as PNG than as JPEG; a screen with a photo area
   * drops to ~0.67 and its PNG is 6× the JPEG (bench/image_bench.ts): encodeFrame tries PNG only
   * above FLAT_SHARE.
   */
  flatShare: number;
}

const FLAT_SHARE = 0.85;

/**
 * PNG's filtered image data, and the flatness and opacity encodeFrame reads from the same pixels.
 * Every row uses the Up filter (the difference from the row above): UI screens are mostly rows
 * that repeat the one above, which Up turns into runs of zeros, and it costs one subtraction where
 * libpng's per-row search costs five filters (bench/image_bench.ts compares the sizes). Opaque
 * images (every screenshot) are written as RGB: a quarter less data to compress, so smaller and
 * faster than RGBA. A byte at a time: reading a pixel as one u32 word saved 0.5 % of the capture
 * path in bench/image_bench.ts (its capture-path note), under the 10 % a trick must earn.
 */
function upFiltered(img: RgbaImage): FilteredRows {
  const { width, height, data } = img;
  let channels: 3 | 4 = 3;
  for (let i = 3; i < data.length; i += 4) {
    if (data[i] !== 255) {
      channels = 4;
      break;
    }
  }
  const rowIn = width * 4;
  const rows = new Uint8Array((width * channels + 1) * height);
  let same = 0;
  for (let y = 0, o = 0; y < height; y++) {
    rows[o++] = 2; // Up
    for (let p = y * rowIn, end = p + rowIn; p < end; p += 4, o += channels) {
      for (let c = 0; c < channels; c++) {
        rows[o + c] = data[p + c]! - (y === 0 ? 0 : data[p + c - rowIn]!);
      }
      if (
        p > 0 && data[p] === data[p - 4] && data[p + 1] === data[p - 3] &&
        data[p + 2] === data[p - 2]
      ) {
        same++;
      }
    }
  }
  return { width, height, rows, channels, flatShare: same / (width * height) };
}

/** Lossless PNG (upFiltered tells its layout); the runtime's native zlib does the deflating. */
export function encodePng(img: RgbaImage): Uint8Array {
  return deflatedPng(upFiltered(img));
}

/** The PNG of filtered rows; their megabytes are handed back once deflated. */
function deflatedPng({ width, height, rows, channels }: FilteredRows): Uint8Array {
  const ihdr = new Uint8Array(13);
  const view = new DataView(ihdr.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  ihdr.set([8, channels === 3 ? 2 : 6, 0, 0, 0], 8); // depth, colour type, compression, filter, interlace
  const parts = [
    Uint8Array.from(PNG_SIGNATURE),
    pngChunk(IHDR, ihdr),
    pngChunk(IDAT, deflateSync(rows, { level: 6 })),
    pngChunk(IEND, new Uint8Array(0)),
  ];
  releaseBytes(rows); // the next encode reuses these pages at once
  return concatBytes(parts);
}

/** Baseline JPEG, 4:4:4 (jpeg-js does not subsample chroma, which keeps coloured text sharp). */
export function encodeJpeg(img: RgbaImage, quality: number): Uint8Array {
  const out = jpegJsEncode({ width: img.width, height: img.height, data: img.data }, quality);
  // jpeg-js hands back a Node Buffer; callers get a plain array over the same bytes (no copy).
  const { buffer, byteOffset, byteLength } = out.data;
  return new Uint8Array(buffer, byteOffset, byteLength);
}

/** Length of standard padded base64 for `n` bytes. */
export function base64Length(n: number): number {
  return Math.ceil(n / 3) * 4;
}

/**
 * The fewest bytes any JPEG of `width`×`height` from encodeJpeg can take: jpeg-js writes 4:4:4
 * baseline with the standard Huffman tables (ITU T.81 Annex K.3), so each 8×8 MCU costs at least
 * a DC difference of 0 and an end-of-block in each of its three blocks: 2 + 4 bits for luma,
 * 2 + 2 for each chroma block. Headers not counted, so this is a true floor: a PNG no larger than
 * it is no larger than the JPEG would be, and the JPEG need not be encoded to know.
 */
export function jpegMinBytes(width: number, height: number): number {
  const mcus = Math.ceil(width / 8) * Math.ceil(height / 8);
  return Math.floor((mcus * 14) / 8);
}

/**
 * Encodes a frame for `sizing`'s audience. `frame.image` may be the full frame or already reduced
 * to fitFor(sizing) (a capture decoded straight to it); the factor always refers to the frame's
 * own size. PNG when the screen is flat UI and PNG comes out no bigger than JPEG (lossless text
 * for free), else JPEG. Base64 stays within the budget: quality, then size, stepped down until
 * it fits (each smaller size area-averaged from the pixels at hand); TOO_LARGE rather than exceed.
 */
export function encodeFrame(frame: Frame, sizing: Sizing): AgentImage {
  const { maxEdge, maxBase64Bytes, quality, snap } = sizing;
  const source = { width: frame.width, height: frame.height };
  if (source.width < 1 || source.height < 1) {
    throw new ImageError(
      "CORRUPT",
      `Cannot send a ${source.width}×${source.height} image: it has no pixels`,
    );
  }
  if (!(maxEdge >= 1) || !(maxBase64Bytes >= 1)) {
    throw new RangeError(
      `prepare: maxEdge ${maxEdge} and maxBase64Bytes ${maxBase64Bytes} must be >= 1`,
    );
  }
  let edge = firstEdge(sizing, source.width, source.height);
  let lastSize = 0;
  let lastTry = "";
  // A round shrinks the edge by at least 15%, from at most 2000 px down to MIN_EDGE: the loop
  // ends within 12 rounds; 24 is only a backstop.
  for (let round = 0; round < 24; round++) {
    const { width, height, scale } = fitToEdge(source, { maxEdge: edge, snap });
    using resized = pixelsInHand(frame.image, downscale(frame.image, width, height));
    const result = (bytes: Uint8Array, mimeType: AgentImage["mimeType"]): AgentImage => ({
      bytes,
      mimeType,
      width,
      height,
      scale,
      sourceWidth: source.width,
      sourceHeight: source.height,
    });
    // Lossless wins whenever it is no bigger: text stays exact for the model reading it.
    // One pass makes the PNG's rows and reads the flatness; a photo screen discards those rows,
    // a millisecond beside the tens its JPEG takes.
    const filtered = upFiltered(resized);
    const flat = filtered.flatShare >= FLAT_SHARE;
    if (!flat) releaseBytes(filtered.rows);
    const png = flat ? deflatedPng(filtered) : undefined;
    const pngFits = png !== undefined && base64Length(png.length) <= maxBase64Bytes;
    if (png && pngFits && png.length <= jpegMinBytes(width, height)) {
      return result(png, "image/png");
    }
    for (const q of [quality, Math.max(50, quality - 20)]) {
      const jpeg = encodeJpeg(resized, q);
      if (png && pngFits && png.length <= jpeg.length) return result(png, "image/png");
      lastSize = base64Length(jpeg.length);
      lastTry = `${width}×${height} JPEG q${q}: ${lastSize}`;
      if (lastSize <= maxBase64Bytes) return result(jpeg, "image/jpeg");
      if (png && pngFits) return result(png, "image/png");
      if (q <= 50) break;
    }
    // JPEG size grows about linearly with pixel count: aim just under the budget.
    const shrink = Math.min(0.85, Math.sqrt((maxBase64Bytes / lastSize) * 0.9));
    const next = Math.floor(Math.max(width, height) * shrink);
    if (next < MIN_EDGE) break;
    edge = next;
  }
  throw new ImageError(
    "TOO_LARGE",
    `Cannot fit a ${source.width}×${source.height} screenshot in ${maxBase64Bytes} base64 bytes without going below ${MIN_EDGE} px on the long edge (last try ${lastTry}); raise the byte budget`,
  );
}

/**
 * A smaller copy made for one round of encodeFrame, released when the round ends; the frame's own
 * pixels (no reduction needed) are the caller's to keep.
 */
function pixelsInHand(own: RgbaImage, made: RgbaImage): RgbaImage & Disposable {
  return {
    ...made,
    [Symbol.dispose]() {
      if (made !== own) releaseBytes(made.data);
    },
  };
}

/** Base64 via the built-in (native, ~60 ms for 8 MB); no per-byte string building. */
export function toBase64(bytes: Uint8Array): string {
  return bytes.toBase64();
}
