// PNG layouts screencap never writes (palette, grey, 16-bit, interlaced, tRNS key): fast-png
// decodes them once the image data's size is proven, and its samples are converted to RGBA8.
import { errorText } from "../core/errors.ts";
import { decode as fastPngDecode } from "fast-png";
import { inflateSync } from "node:zlib";
import { type Fit, type Frame, ImageError, type RgbaImage } from "./frame.ts";
import type { PngLayout } from "./png_chunks.ts";
import { frameOf } from "./row_reducer.ts";

/**
 * A PNG in a layout screencap never writes, as a Frame: the image data's size proven with a
 * bounded inflate first (fast-png inflates with no bound; that buffer is dropped at once), then
 * decoded by fast-png, converted to RGBA8 and reduced to `fit`.
 */
export function readOtherLayout(bytes: Uint8Array, png: PngLayout, fit?: Fit): Frame {
  inflateImageData(png);
  return frameOf(decodeWithFastPng(bytes), fit);
}

/**
 * Inflates the image data with the runtime's native zlib, never past the `expected` bytes IHDR
 * declares (node:zlib stops at maxOutputLength instead of growing its output, so a 1 MB stream of
 * zeros cannot become gigabytes), and refuses data that inflates to more or less than that.
 */
function inflateImageData({ zlib, expected, width, height }: PngLayout): Uint8Array {
  let rows: Uint8Array;
  try {
    rows = inflateSync(zlib, { maxOutputLength: expected });
  } catch (error) {
    if ((error as { code?: unknown }).code === "ERR_BUFFER_TOO_LARGE") {
      throw new ImageError(
        "CORRUPT",
        `PNG's image data inflates to more than the ${expected} bytes its ${width}×${height} header declares (a decompression bomb, not a screenshot): take the screenshot again`,
      );
    }
    const detail = errorText(error);
    throw new ImageError(
      "CORRUPT",
      `PNG is whole but its compressed data cannot be inflated (${detail}); take the screenshot again`,
      { cause: error },
    );
  }
  if (rows.length < expected) {
    throw new ImageError(
      "CORRUPT",
      `PNG's image data inflates to ${rows.length} bytes, short of the ${expected} its ${width}×${height} header declares: take the screenshot again`,
    );
  }
  return rows;
}

/** fast-png, for the layouts screencap never writes (palette, grey, 16-bit, interlaced, tRNS). */
function decodeWithFastPng(bytes: Uint8Array): RgbaImage {
  let decoded: ReturnType<typeof fastPngDecode>;
  try {
    decoded = fastPngDecode(bytes);
  } catch (error) {
    const detail = error instanceof Error
      ? [error.message, error.cause instanceof Error ? error.cause.message : ""]
        .filter(Boolean).join(": ")
      : String(error);
    throw new ImageError(
      "CORRUPT",
      `PNG is whole but its data cannot be decoded (${detail}); take the screenshot again`,
      { cause: error },
    );
  }
  try {
    return toRgba8(decoded);
  } catch (error) {
    throw new ImageError(
      "CORRUPT",
      `PNG decoded to inconsistent pixel data (${errorText(error)}); take the screenshot again`,
      { cause: error },
    );
  }
}

type FastPngImage = ReturnType<typeof fastPngDecode>;

/** fast-png keeps the file's layout (1–4 channels, 1–16 bits, palette indices); we want RGBA8. */
function toRgba8(png: FastPngImage): RgbaImage {
  const { width, height, channels, depth, data, palette, transparency } = png;
  const count = width * height;
  if (!palette && depth === 8 && channels === 4 && data instanceof Uint8Array) {
    return { width, height, data }; // screencap's own layout: nothing to convert
  }
  const out = new Uint8Array(count * 4);
  const maxValue = depth === 16 ? 65535 : (1 << depth) - 1;
  // Palette flattened to RGBA once; fast-png appends alpha to entries only when tRNS is present.
  const lut = new Uint8Array(256 * 4);
  if (palette) {
    palette.forEach((entry, i) => {
      lut[i * 4] = entry[0] ?? 0;
      lut[i * 4 + 1] = entry[1] ?? 0;
      lut[i * 4 + 2] = entry[2] ?? 0;
      lut[i * 4 + 3] = entry[3] ?? 255;
    });
  } else if (depth <= 8) {
    for (let v = 0; v <= maxValue; v++) lut[v] = Math.round((v * 255) / maxValue);
  }
  const samplesPerRow = width * channels;
  const rowBytes = depth < 8 ? Math.ceil((samplesPerRow * depth) / 8) : samplesPerRow;
  const expected = rowBytes * height;
  if (data.length < expected) {
    throw new Error(`expected ${expected} samples, got ${data.length}`);
  }
  const row = new Uint16Array(samplesPerRow);
  const key = transparency && !palette ? transparency : undefined;
  const mask = (1 << depth) - 1;
  let o = 0;
  for (let y = 0; y < height; y++) {
    const base = y * rowBytes;
    if (depth < 8) {
      for (let s = 0; s < samplesPerRow; s++) {
        const bit = s * depth;
        row[s] = (data[base + (bit >> 3)]! >> (8 - depth - (bit & 7))) & mask;
      }
    } else {
      for (let s = 0; s < samplesPerRow; s++) row[s] = data[base + s]!;
    }
    for (let x = 0, s = 0; x < width; x++, s += channels) {
      if (palette) {
        const p = row[s]! * 4;
        out[o] = lut[p]!;
        out[o + 1] = lut[p + 1]!;
        out[o + 2] = lut[p + 2]!;
        out[o + 3] = lut[p + 3]!;
      } else {
        const grey = channels <= 2;
        const r = row[s]!;
        const g = grey ? r : row[s + 1]!;
        const b = grey ? r : row[s + 2]!;
        const a = channels === 2 ? row[s + 1]! : channels === 4 ? row[s + 3]! : maxValue;
        const keyed = key !== undefined &&
          (grey ? r === key[0] : r === key[0] && g === key[1] && b === key[2]);
        out[o] = depth === 16 ? r >> 8 : lut[r]!;
        out[o + 1] = depth === 16 ? g >> 8 : lut[g]!;
        out[o + 2] = depth === 16 ? b >> 8 : lut[b]!;
        out[o + 3] = keyed ? 0 : depth === 16 ? a >> 8 : lut[a]!;
      }
      o += 4;
    }
  }
  return { width, height, data: out };
}
