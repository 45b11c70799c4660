// Screenshot pixels: PNG and raw-screencap decoding, blank-frame detection, area downscaling and
// encoding to an image every MCP client and vision model accepts. Pure code: no I/O, no permissions.
// Loaded on first use (the tools import it dynamically): start-up never pays for the codecs.
import { decode as fastPngDecode } from "fast-png";
import { encode as jpegJsEncode } from "jpeg-js";
import { crc32, deflateSync, inflateSync } from "node:zlib";
import { concatBytes, releaseBytes, releaseChunk } from "./bytes.ts";
import { AgentError } from "./errors.ts";

/** 8-bit RGBA, row-major, 4 bytes per pixel, no row padding. */
export interface RgbaImage {
  width: number;
  height: number;
  data: Uint8Array;
}

/** Every host Deno builds for is little-endian: a pixel's four bytes read as one u32, byte 0 lowest. */
const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/**
 * RGBA bytes as one 32-bit word a pixel (red in the low byte), so a loop over pixels does one read
 * where it would do four; undefined when the bytes are not 4-byte aligned (a typed array must be)
 * or the host is big-endian, and the caller reads bytes instead. Signed: an opaque pixel is 2^31 or
 * more as a u32, which V8 holds as a double, and the loops here ran at about half speed on it;
 * as an int32 it stays an integer, and the bit operations read the same bits.
 */
function pixelWords(data: Uint8Array, at = 0, pixels = (data.length - at) >> 2) {
  if (!LITTLE_ENDIAN || (data.byteOffset + at) % 4 !== 0) return undefined;
  return new Int32Array(data.buffer, data.byteOffset + at, pixels);
}

export type ImageErrorCode =
  | "EMPTY"
  | "NOT_PNG"
  | "TRUNCATED"
  | "CORRUPT"
  | "BAD_RAW"
  | "TOO_LARGE";

/** One error type for the pipeline; callers branch on `code`, the model reads `message`. */
export class ImageError extends AgentError<ImageErrorCode> {
  override name = "ImageError";
}

/**
 * Largest frame we agree to decode. Phones and tablets stay under ~10 MP (a 1440×3200 phone is
 * 4.6 MP); this bound only stops a corrupt header from asking for gigabytes.
 */
const MAX_PIXELS = 40_000_000;

/**
 * Longest side we agree to decode, in either direction: four times a 4K panel's 3840 px. Without
 * it a header of 40,000,000×1 stays under MAX_PIXELS, and no screen has that shape.
 */
const MAX_SIDE = 16_384;

/**
 * Largest colour profile (iCCP) we let the decoder inflate. fast-png inflates it with no limit;
 * the profiles screenshots carry (sRGB, Display P3) are a few KiB.
 */
const MAX_ICC_BYTES = 1 << 20;

/**
 * Default base64 budget for an image handed to the agent. The budget counts base64 characters,
 * not image bytes: MCP carries image content as a base64 string inside JSON-RPC, clients and model
 * APIs check that string's length (Anthropic's 5 MB per-image limit is on the base64 data), and
 * vision requests embed the same string in a data URL. 1,000,000 characters ≈ 750 kB of JPEG.
 */
export const DEFAULT_MAX_BASE64_BYTES = 1_000_000;

/**
 * Default long edge for `phone_shot` (the agent's own context). 1280 is below Claude's 1568 px
 * no-resize bound, so the client never resamples it again, and fits OpenAI high-detail in 6 tiles of
 * 512 px instead of 8; an image costs ~1k tokens of the agent's context on every look. On a
 * 1080×2400 phone it is 540×1200 (scale exactly 2): 12 sp text is still ~16 px tall, readable.
 */
export const AGENT_MAX_EDGE = 1280;

/** Hard ceiling on the long edge: some MCP clients reject larger images outright. */
export const ABSOLUTE_MAX_EDGE = 2000;

/**
 * Vision routes get more pixels: the model's job is to read small text and locate controls, it
 * sees one image per call, and 1568 px is the largest long edge Claude takes without resampling
 * (and fits OpenAI's 2048 px high-detail box unchanged). Quality 85 keeps text edges free of the
 * ringing that makes thin glyphs ambiguous at 75 and below.
 */
export const VISION_MAX_EDGE = 1568;
const VISION_QUALITY = 85;

/** Quality 80 keeps UI text clean at scale 2 and is ~30% smaller than 90 (bench/image_bench.ts). */
const AGENT_QUALITY = 80;

/** Below this long edge a phone screen stops being readable; we throw rather than go smaller. */
const MIN_EDGE = 320;

const PNG_SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10] as const;
// Chunk types as big-endian u32s.
const IHDR = 0x49484452;
const IDAT = 0x49444154;
const ICCP = 0x69434350;
const TRNS = 0x74524e53;
const IEND = 0x49454e44;

function hasPngSignature(bytes: Uint8Array): boolean {
  if (bytes.length < PNG_SIGNATURE.length) return false;
  return PNG_SIGNATURE.every((b, i) => bytes[i] === b);
}

function u32be(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>>
    0;
}

function u32le(bytes: Uint8Array, at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>>
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
 * the link drops mid-transfer (adb 29 and 34 alike: ANDROID.md, "The adb client"), so a whole tail
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

function checkDimensions(width: number, height: number, what: string): void {
  if (width > MAX_SIDE || height > MAX_SIDE) {
    throw new ImageError(
      "TOO_LARGE",
      `${what} claims ${width}×${height} pixels, a side longer than the ${MAX_SIDE} px this server decodes (no screen is that long); the header is probably corrupt: take the screenshot again`,
    );
  }
  if (width * height > MAX_PIXELS) {
    throw new ImageError(
      "TOO_LARGE",
      `${what} claims ${width}×${height} pixels, more than the ${MAX_PIXELS} this server decodes; the header is probably corrupt: take the screenshot again`,
    );
  }
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
function filteredSize(width: number, height: number, bitsPerPixel: number, adam7: boolean) {
  const rowsSize = (w: number, h: number) =>
    w === 0 ? 0 : h * (1 + Math.ceil(w * bitsPerPixel / 8));
  if (!adam7) return rowsSize(width, height);
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
    const detail = error instanceof Error ? error.message : String(error);
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
interface PngLayout {
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
function checkPngBeforeDecoding(bytes: Uint8Array, end: number): PngLayout {
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
  let keyed = false;
  const idat: Uint8Array[] = [];
  let idatBytes = 0;
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
    if (type === IDAT) {
      idat.push(body);
      idatBytes += length;
    }
    if (type === ICCP) {
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
    at += 12 + length;
  }
  if (idat.length === 0) {
    throw new ImageError(
      "EMPTY",
      `PNG has a ${width}×${height} header but no image data (no IDAT chunk), as some builds write after long sessions: take it again, or fall back to raw screencap (without -p)`,
    );
  }
  const zlib = idat.length === 1 ? idat[0]! : new Uint8Array(idatBytes);
  if (idat.length > 1) {
    let at = 0;
    for (const part of idat) {
      zlib.set(part, at);
      at += part.length;
    }
  }
  const expected = filteredSize(width, height, depth * colour.channels, interlace === 1);
  return { width, height, depth, colourType, interlace, keyed, zlib, expected };
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
    const detail = error instanceof Error ? error.message : String(error);
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

/** A screenshot's pixels as one consumer needs them, with what the full frame showed. */
export interface Frame {
  /** The pixels, already reduced to the size `fit` asked for (full size without one). */
  image: RgbaImage;
  /** The screenshot's own size: the device's pixels in its current orientation. */
  width: number;
  height: number;
  /** What blankFrameKind would say of the full frame, read while decoding it. */
  blank: BlankKind | null;
}

export type BlankKind = "black" | "uniform";

/** The size to reduce a `width`×`height` frame to while it is decoded (never larger). */
export type Fit = (width: number, height: number) => { width: number; height: number };

/** Throws unless `bytes` is one whole PNG; returns where its chunk chain ends. */
function checkPngStream(bytes: Uint8Array): number {
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
 * Decodes a PNG of any colour type and bit depth to RGBA8. Rejects, with a message that says
 * what to do, empty output (some MIUI builds after long sessions: an OEM quirk reported in
 * SPEC.md's "Known device quirks", with no AOSP source), non-PNG bytes (often adb's own error
 * text), truncated transfers and corrupt data.
 */
export function decodePng(bytes: Uint8Array): RgbaImage {
  return readPng(bytes).image;
}

/**
 * Decodes a PNG into a Frame: reduced to `fit(width, height)` in the same pass that unfilters
 * the rows (so the full-size RGBA frame never exists), and checked for a blank screen on the way.
 * screencap's own layout (8-bit RGB or RGBA, not interlaced) is inflated by the runtime's native
 * zlib into one buffer that is unfiltered in place; any other layout goes through fast-png first.
 * Errors as decodePng's.
 */
export function readPng(bytes: Uint8Array, fit?: Fit): Frame {
  const png = checkPngBeforeDecoding(bytes, checkPngStream(bytes));
  const { width, height, depth, colourType, interlace, keyed } = png;
  const screencapLayout = depth === 8 && interlace === 0 &&
    (colourType === 6 || (colourType === 2 && !keyed));
  if (!screencapLayout) {
    // fast-png inflates with no bound: the size is proven first (the buffer is dropped at once).
    inflateImageData(png);
    return frameOf(decodeWithFastPng(bytes), fit);
  }
  const channels = colourType === 6 ? 4 : 3;
  const stride = width * channels;
  const rows = inflateImageData(png);
  unfilterInPlace(rows, stride, height, channels);
  const layout: RowLayout = { channels, red: 0, blue: 2, opaque: channels === 3 };
  return reduceRows(rows, 1, stride + 1, width, height, layout, fit);
}

/**
 * Inflated bytes each write to the inflater should yield: small enough that every output chunk is
 * a small allocation the allocator reuses from call to call, large enough that a 10 MB frame
 * takes some 160 writes.
 */
const INFLATE_CHUNK = 64 * 1024;

/**
 * readPng for a capture: the same Frame, but the image data is inflated as a stream (the runtime's
 * native DecompressionStream) and each row is unfiltered and reduced as soon as it is whole, so
 * the frame never exists at full size: two rows of it are in memory at a time, plus the output.
 * A 1080×2400 screenshot inflates to 10 MB, which a one-shot inflate would hold at once (and the
 * runtime frees only after a collection); streamed, the process stays within its memory budget
 * (bench/memory_bench.ts). Layouts screencap never writes go through readPng.
 */
export async function readPngStream(bytes: Uint8Array, fit?: Fit): Promise<Frame> {
  const png = checkPngBeforeDecoding(bytes, checkPngStream(bytes));
  const { width, height, depth, colourType, interlace, keyed, zlib, expected } = png;
  if (!(depth === 8 && interlace === 0 && (colourType === 6 || (colourType === 2 && !keyed)))) {
    return readPng(bytes, fit);
  }
  const channels = colourType === 6 ? 4 : 3;
  const stride = width * channels;
  const rowBytes = stride + 1;
  const reducer = rowReducer(width, height, {
    channels,
    red: 0,
    blue: 2,
    opaque: channels === 3,
  }, fit);
  // Each row's filter byte sits at PAD - 1 so its pixels start at PAD, 4-byte aligned: the reducer
  // then reads an RGBA pixel as one u32 (blockSums).
  const PAD = 4;
  let row = new Uint8Array(PAD - 1 + rowBytes), above = new Uint8Array(PAD - 1 + rowBytes);
  let filled = 0, y = 0, total = 0;
  const inflater = new DecompressionStream("deflate");
  const writer = inflater.writable.getWriter();
  const reader = inflater.readable.getReader();
  // The stream's own ratio sets the slice: a flat screen inflates some 400-fold, a photo 8-fold.
  const slice = Math.max(256, Math.floor(INFLATE_CHUNK / Math.max(1, expected / zlib.length)));
  const feeding = (async () => {
    for (let at = 0; at < zlib.length; at += slice) {
      await writer.write(zlib.subarray(at, at + slice) as Uint8Array<ArrayBuffer>);
    }
    await writer.close();
  })().catch(() => {}); // a failure shows on the reading side
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        const detail = error instanceof Error ? error.message : String(error);
        throw new ImageError(
          "CORRUPT",
          `PNG is whole but its compressed data cannot be inflated (${detail}); take the screenshot again`,
          { cause: error },
        );
      }
      if (chunk.done) break;
      const data = chunk.value;
      total += data.length;
      if (total > expected) {
        throw new ImageError(
          "CORRUPT",
          `PNG's image data inflates to more than the ${expected} bytes its ${width}×${height} header declares (a decompression bomb, not a screenshot): take the screenshot again`,
        );
      }
      for (let at = 0; at < data.length;) {
        const take = Math.min(rowBytes - filled, data.length - at);
        row.set(data.subarray(at, at + take), PAD - 1 + filled);
        filled += take;
        at += take;
        if (filled === rowBytes) {
          unfilterRow(row, PAD, above, PAD, stride, channels, y);
          reducer.push(row, PAD);
          const done = row;
          row = above;
          above = done;
          filled = 0;
          y++;
        }
      }
      // Its rows are read: its pages go to the next chunk instead of waiting for a collection.
      releaseChunk(data);
    }
  } finally {
    await reader.cancel().catch(() => {});
    await feeding;
  }
  if (total < expected) {
    throw new ImageError(
      "CORRUPT",
      `PNG's image data inflates to ${total} bytes, short of the ${expected} its ${width}×${height} header declares: take the screenshot again`,
    );
  }
  return reducer.finish();
}

/**
 * Undoes the PNG row filters (PNG spec 9.2) in place: each row is a filter byte, then `stride`
 * bytes that become the pixels; the row above is already unfiltered when a row is read.
 */
function unfilterInPlace(rows: Uint8Array, stride: number, height: number, bpp: number): void {
  const rowBytes = stride + 1;
  for (let y = 0; y < height; y++) {
    const at = y * rowBytes + 1;
    unfilterRow(rows, at, rows, at - rowBytes, stride, bpp, y);
  }
}

/**
 * Undoes row `y`'s filter: its filter byte at `at - 1`, its `stride` bytes from `at`, the row
 * above (already unfiltered) from `up` in `above`. Row 0 has no row above: Up is then None,
 * Average halves the left byte, Paeth is Sub.
 */
function unfilterRow(
  row: Uint8Array,
  at: number,
  above: Uint8Array,
  up: number,
  stride: number,
  bpp: number,
  y: number,
): void {
  const end = at + stride;
  const d = up - at; // above[i + d] is the byte over row[i]
  const filter = row[at - 1]!;
  const top = y === 0;
  if (
    bpp === 4 && filter >= 1 && filter <= 3 &&
    unfilterWords(row, at, above, up, stride, filter, top)
  ) {
    return;
  }
  switch (filter) {
    case 0:
      break;
    case 1:
      for (let i = at + bpp; i < end; i++) row[i] = row[i]! + row[i - bpp]!;
      break;
    case 2:
      if (!top) { for (let i = at; i < end; i++) row[i] = row[i]! + above[i + d]!; }
      break;
    case 3:
      if (top) {
        for (let i = at + bpp; i < end; i++) row[i] = row[i]! + (row[i - bpp]! >> 1);
        break;
      }
      for (let i = at; i < at + bpp; i++) row[i] = row[i]! + (above[i + d]! >> 1);
      for (let i = at + bpp; i < end; i++) {
        row[i] = row[i]! + ((row[i - bpp]! + above[i + d]!) >> 1);
      }
      break;
    case 4:
      if (top) {
        for (let i = at + bpp; i < end; i++) row[i] = row[i]! + row[i - bpp]!;
        break;
      }
      if (bpp === 4) {
        paethPixels(row, at, end, above, d);
        break;
      }
      // The first pixel has no left neighbour: Paeth then predicts the byte above.
      for (let i = at; i < at + bpp; i++) row[i] = row[i]! + above[i + d]!;
      for (let i = at + bpp; i < end; i++) {
        row[i] = row[i]! + paeth(row[i - bpp]!, above[i + d]!, above[i + d - bpp]!);
      }
      break;
    default:
      throw new ImageError(
        "CORRUPT",
        `PNG row ${y} uses filter type ${filter}, which the PNG specification does not define: take the screenshot again`,
      );
  }
}

/** PNG's Paeth predictor (spec 9.4): whichever of left, above, upper left is nearest a + b - c. */
function paeth(a: number, b: number, c: number): number {
  const pa = Math.abs(b - c), pb = Math.abs(a - c), pc = Math.abs(a + b - c - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/**
 * Undoes Paeth on a row of 4-byte pixels (not the top row), a pixel an iteration: the left and
 * upper-left pixels stay in locals from the iteration before, so each byte costs two loads
 * instead of four. For the first pixel both are 0, and Paeth then predicts the byte above.
 */
function paethPixels(row: Uint8Array, at: number, end: number, above: Uint8Array, d: number) {
  let a0 = 0, a1 = 0, a2 = 0, a3 = 0, c0 = 0, c1 = 0, c2 = 0, c3 = 0;
  for (let i = at; i < end; i += 4) {
    const j = i + d;
    const b0 = above[j]!, b1 = above[j + 1]!, b2 = above[j + 2]!, b3 = above[j + 3]!;
    row[i] = a0 = (row[i]! + paeth(a0, b0, c0)) & 0xff;
    row[i + 1] = a1 = (row[i + 1]! + paeth(a1, b1, c1)) & 0xff;
    row[i + 2] = a2 = (row[i + 2]! + paeth(a2, b2, c2)) & 0xff;
    row[i + 3] = a3 = (row[i + 3]! + paeth(a3, b3, c3)) & 0xff;
    c0 = b0, c1 = b1, c2 = b2, c3 = b3;
  }
}

/**
 * The low seven bits of each byte of a word, and the high one: the lanes of the bytewise sums and
 * differences below (Hacker's Delight, 2-18), which PNG's filters take a pixel at a time.
 */
const LANE_LOW = 0x7f7f7f7f;
const LANE_HIGH = 0x80808080 | 0;

/** The four byte lanes of `a` and `b` added, each mod 256, with no carry between lanes. */
function laneSum(a: number, b: number): number {
  return ((a & LANE_LOW) + (b & LANE_LOW)) ^ ((a ^ b) & LANE_HIGH);
}

/** Each byte lane of `a` minus the same lane of `b`, mod 256, with no borrow between lanes. */
function laneDifference(a: number, b: number): number {
  return ((a | LANE_HIGH) - (b & LANE_LOW)) ^ ((a ^ ~b) & LANE_HIGH);
}

/**
 * unfilterRow for Sub, Up and Average on 4-byte pixels, a word (one pixel, four byte lanes) at a
 * time instead of a byte (laneSum; the lane average is the bytes' floor average). Phone
 * PNGs (libpng's per-row filter choice, as Skia writes them) use these three on most rows. False,
 * doing nothing, when either row is not 4-byte aligned; Paeth, which picks per byte, stays bytewise.
 */
function unfilterWords(
  row: Uint8Array,
  at: number,
  above: Uint8Array,
  up: number,
  stride: number,
  filter: number,
  top: boolean,
): boolean {
  if ((row.byteOffset + at) % 4 !== 0 || (above.byteOffset + up) % 4 !== 0) return false;
  const pixels = stride >> 2;
  const cur = new Int32Array(row.buffer, row.byteOffset + at, pixels);
  const prior = new Int32Array(above.buffer, above.byteOffset + up, pixels);
  if (filter === 2) {
    if (!top) { for (let i = 0; i < pixels; i++) cur[i] = laneSum(cur[i]!, prior[i]!); }
    return true;
  }
  let left = 0;
  for (let i = 0; i < pixels; i++) {
    const b = top ? 0 : prior[i]!;
    // Sub adds the pixel to the left; Average the floor of the left's and the above's mean.
    const predicted = filter === 1 ? left : (left & b) + (((left ^ b) & 0xfefefefe) >>> 1);
    left = cur[i] = laneSum(cur[i]!, predicted);
  }
  return true;
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
      `PNG decoded to inconsistent pixel data (${
        error instanceof Error ? error.message : String(error)
      }); take the screenshot again`,
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

/**
 * The pixel formats screencap may write in its raw header: ui/PixelFormat.h's PIXEL_FORMAT_*,
 * which are the HAL_PIXEL_FORMAT_* values of
 * https://github.com/aosp-mirror/platform_system_core/blob/f26d0dd76fef8f133710ea2628dba98b15e26b8f/libsystem/include/system/graphics-base-v1.0.h
 */
const RAW_FORMATS: Record<number, { name: string; bytesPerPixel: number }> = {
  1: { name: "RGBA_8888", bytesPerPixel: 4 },
  2: { name: "RGBX_8888", bytesPerPixel: 4 },
  3: { name: "RGB_888", bytesPerPixel: 3 },
  4: { name: "RGB_565", bytesPerPixel: 2 },
  5: { name: "BGRA_8888", bytesPerPixel: 4 },
};

/**
 * Decodes `screencap` without -p: u32 width, height, format, then a u32 colour space, then the
 * rows with the stride padding dropped (w * bytes-per-pixel each). screencap writes the u32s in
 * native order, little-endian on every Android ABI:
 * https://github.com/aosp-mirror/platform_frameworks_base/blob/c3c40e691dca0c2d82550ebb8dc50159938521a3/cmds/screencap/screencap.cpp
 * Older releases wrote no colour space, a 12-byte header (e.g. CyanogenMod's copy of AOSP's
 * https://github.com/CyanogenMod/android_frameworks_base/blob/c1fd7edd8fc48f3308105df8cc845ec4b6652e17/cmds/screencap/screencap.cpp).
 * The header size is whichever of 12 or 16 makes the total add up, so the release need not be
 * known.
 */
export function decodeRawScreencap(bytes: Uint8Array): RgbaImage {
  return readRawScreencap(bytes).image;
}

/** How each raw format's rows are read: RGB_565 is widened to RGBA first, the rest read as they are. */
const RAW_LAYOUTS: Record<number, RowLayout> = {
  1: { channels: 4, red: 0, blue: 2, opaque: false },
  2: { channels: 4, red: 0, blue: 2, opaque: true }, // RGBX: the X byte is undefined, not alpha
  3: { channels: 3, red: 0, blue: 2, opaque: true },
  4: { channels: 4, red: 0, blue: 2, opaque: true }, // after widenRgb565
  5: { channels: 4, red: 2, blue: 0, opaque: false },
};

/** One RGB_565 row (little-endian u16s) widened to RGBA8. */
function widenRgb565(width: number) {
  return (src: Uint8Array, at: number, out: Uint8Array) => {
    for (let x = 0, j = at, o = 0; x < width; x++, j += 2, o += 4) {
      const v = src[j]! | (src[j + 1]! << 8);
      const r = v >> 11, g = (v >> 5) & 63, b = v & 31;
      // Replicating the top bits maps 31→255 and 63→255 exactly, unlike a plain shift.
      out[o] = (r << 3) | (r >> 2);
      out[o + 1] = (g << 2) | (g >> 4);
      out[o + 2] = (b << 3) | (b >> 2);
      out[o + 3] = 255;
    }
  };
}

/**
 * Decodes a raw `screencap` (decodeRawScreencap's format) into a Frame, reduced to `fit` straight
 * from the phone's bytes and checked for a blank screen in the same pass.
 */
export function readRawScreencap(bytes: Uint8Array, fit?: Fit): Frame {
  if (bytes.length < 12) {
    throw new ImageError(
      "BAD_RAW",
      `Raw screencap is ${bytes.length} bytes, shorter than its 12-byte header; the device returned no frame: take it again`,
    );
  }
  const width = u32le(bytes, 0);
  const height = u32le(bytes, 4);
  const format = u32le(bytes, 8);
  const spec = RAW_FORMATS[format];
  if (!spec) {
    throw new ImageError(
      "BAD_RAW",
      `Raw screencap uses pixel format ${format}, which this server does not read (known: ${
        Object.entries(RAW_FORMATS).map(([k, v]) => `${k} ${v.name}`).join(", ")
      }); use screencap -p (PNG) on this device`,
    );
  }
  if (width === 0 || height === 0) {
    throw new ImageError(
      "BAD_RAW",
      `Raw screencap header says ${width}×${height}: the display gave no frame (screen off or display not ready); wake the screen and take it again`,
    );
  }
  checkDimensions(width, height, "Raw screencap");
  const pixelBytes = width * height * spec.bytesPerPixel;
  const header = bytes.length - pixelBytes;
  if (header !== 12 && header !== 16) {
    const code = header < 12 ? "TRUNCATED" : "BAD_RAW";
    throw new ImageError(
      code,
      `Raw screencap of ${width}×${height} ${spec.name} should be ${12 + pixelBytes} or ${
        16 + pixelBytes
      } bytes but is ${bytes.length}; ${
        code === "TRUNCATED"
          ? "the transfer was cut: reconnect and take it again"
          : "the stream is not a raw screencap (or has extra output mixed in): use screencap -p"
      }`,
    );
  }
  const rowBytes = width * spec.bytesPerPixel;
  const convert = format === 4 ? widenRgb565(width) : undefined;
  return reduceRows(bytes, header, rowBytes, width, height, RAW_LAYOUTS[format]!, fit, convert);
}

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
 * PNG's filtered image data in one pass over the pixels, which also reads their flatness and
 * opacity for encodeFrame, instead of a pass for each. Every row uses the Up filter (the
 * difference from the row above): UI screens are mostly rows that repeat the one above, which Up
 * turns into runs of zeros, and it costs one subtraction where libpng's per-row search costs five
 * filters (bench/image_bench.ts compares the sizes). Opaque images (every screenshot) are written
 * as RGB: a quarter less data to compress, so smaller and faster than RGBA; the first translucent
 * pixel starts the pass again as RGBA, a byte at a time.
 */
function upFiltered(img: RgbaImage): FilteredRows {
  const { width, height, data } = img;
  const words = pixelWords(data);
  if (words) {
    const rows = new Uint8Array((width * 3 + 1) * height);
    // Pixel 0 has no left neighbour: `prev` starts unequal to it.
    let same = 0, prev = words[0]! ^ 1, alpha = -1;
    for (let y = 0, o = 0; y < height; y++) {
      rows[o++] = 2; // Up
      // Row 0 takes the difference from a row of zeros (PNG spec 9.2): its bytes as they are.
      const top = y === 0;
      for (let p = y * width, end = p + width; p < end; p++, o += 3) {
        const a = words[p]!, b = top ? 0 : words[p - width]!;
        const d = laneDifference(a, b);
        rows[o] = d;
        rows[o + 1] = d >>> 8;
        rows[o + 2] = d >>> 16;
        // Red, green and blue are the low three bytes of a little-endian pixel.
        if (((a ^ prev) & 0xffffff) === 0) same++;
        prev = a;
        alpha &= a;
      }
    }
    if (alpha >>> 24 === 0xff) {
      return { width, height, rows, channels: 3, flatShare: same / (width * height) };
    }
    releaseBytes(rows);
  }
  return upFilteredBytes(img);
}

/** upFiltered a byte at a time: rows that are not 4-byte aligned, a big-endian host, alpha. */
function upFilteredBytes(img: RgbaImage): FilteredRows {
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

/** One chunk: length, type, body, CRC over type and body. */
function pngChunk(type: number, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + body.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, body.length);
  view.setUint32(4, type);
  out.set(body, 8);
  // PNG's chunk CRC (spec 5.5) is zlib's CRC-32, over the type and the body.
  view.setUint32(8 + body.length, crc32(out.subarray(4, 8 + body.length)) >>> 0);
  return out;
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

/**
 * "black" or "uniform" when every pixel has one colour (±2 per channel, which absorbs dithering):
 * what a switched-off screen gives, and a FLAG_SECURE window on releases that paint secure layers
 * black instead of refusing the capture (ANDROID.md, "screencap": Android 16, maybe 15). A sparse
 * grid rejects real screens in microseconds; only a frame that passes the grid is scanned in
 * full, so a dark-mode screen with one line of light text is never called blank.
 */
export function blankFrameKind(img: RgbaImage): "black" | "uniform" | null {
  const { width, height, data } = img;
  if (width === 0 || height === 0) return "black";
  const r0 = data[0]!, g0 = data[1]!, b0 = data[2]!;
  const tolerance = 2;
  const differs = (p: number) =>
    Math.abs(data[p]! - r0) > tolerance || Math.abs(data[p + 1]! - g0) > tolerance ||
    Math.abs(data[p + 2]! - b0) > tolerance;
  const step = 16;
  for (let y = step >> 1; y < height; y += step) {
    for (let x = step >> 1; x < width; x += step) if (differs((y * width + x) * 4)) return null;
  }
  for (let p = 0; p < data.length; p += 4) if (differs(p)) return null;
  return Math.max(r0, g0, b0) <= 8 ? "black" : "uniform";
}

/**
 * Per output index, the source indices it covers and their coverage weights (summing to 1):
 * box-filter area averaging, exact for fractional factors. Flat arrays so the inner loops do no
 * allocation.
 */
function boxWeights(src: number, dst: number) {
  const factor = src / dst;
  const start = new Int32Array(dst + 1); // offsets into index/weight
  const index: number[] = [];
  const weight: number[] = [];
  for (let i = 0; i < dst; i++) {
    start[i] = index.length;
    const a = i * factor;
    const b = Math.min(src, (i + 1) * factor);
    for (let s = Math.floor(a); s < Math.ceil(b); s++) {
      const cover = Math.min(b, s + 1) - Math.max(a, s);
      if (cover > 1e-9) {
        index.push(s);
        weight.push(cover / factor);
      }
    }
  }
  start[dst] = index.length;
  return { start, index: Int32Array.from(index), weight: Float32Array.from(weight) };
}

/** Where a source row keeps its colours: bytes per pixel, the red and blue offsets, alpha or not. */
interface RowLayout {
  channels: 3 | 4;
  red: 0 | 2;
  blue: 0 | 2;
  /** No alpha to read (RGB, RGBX, RGB_565): every output pixel is opaque. */
  opaque: boolean;
}

const RGBA_LAYOUT: RowLayout = { channels: 4, red: 0, blue: 2, opaque: false };

/** Takes a frame's rows one at a time, top to bottom; finish() gives the Frame once all arrived. */
interface RowReducer {
  /** The next row, laid out as the reducer's layout says, starting at `at` in `src`. */
  push(src: Uint8Array, at: number): void;
  finish(): Frame;
}

/**
 * Reads `height` rows of a `width`-pixel frame from `src` (row y at first + y * step, laid out as
 * `layout` says) and returns them as RGBA8 (rowReducer).
 */
function reduceRows(
  src: Uint8Array,
  first: number,
  step: number,
  width: number,
  height: number,
  layout: RowLayout,
  fit: Fit | undefined,
  convert?: (src: Uint8Array, at: number, out: Uint8Array) => void,
): Frame {
  const reducer = rowReducer(width, height, layout, fit, convert);
  for (let y = 0; y < height; y++) reducer.push(src, first + y * step);
  return reducer.finish();
}

/**
 * The sums behind a whole-number reduction by `k` (k ≤ 8): each output pixel's k×k source pixels
 * added up as integers, rows at a time, then averaged by a lookup table with the weighted path's
 * rounding (half up). Two channels share one u32 in 16-bit lanes (bytes 0 and 2 in one, 1 and 3 in
 * the other; at most 64 × 255 = 16,320 per lane, so no lane carries into the next), which lets a
 * 4-byte pixel be read as one u32 and split with two masks: about four times fewer operations than
 * a byte at a time. Rows that are not 4-byte aligned, or 3 bytes a pixel, are read a byte at a time
 * into the same lanes.
 */
function blockSums(k: number, outW: number, channels: 3 | 4) {
  const area = k * k;
  const even = new Int32Array(outW); // bytes 0 and 2 of each pixel
  const odd = new Int32Array(outW); // bytes 1 and 3
  const average = new Uint8Array(area * 255 + 1);
  for (let sum = 0; sum < average.length; sum++) average[sum] = (sum + (area >> 1)) / area;
  // log2(area) when k is a power of two (2, 4, 8), else 0 and the table averages.
  const shift = (k & (k - 1)) === 0 ? 2 * Math.log2(k) : 0;
  // Halving (the common case: 1080×2400 to 540×1200) sets the sums from a pair's first row
  // instead of adding to cleared ones, and adds its second row in emit, straight into the output
  // pixels, instead of storing sums only to read them back.
  let row = 0; // the source row within the current block
  let last: Int32Array | undefined; // a pair's second row, for emit
  return {
    /** Adds one source row, starting at `at` in `src`, into the sums. */
    add(src: Uint8Array, at: number): void {
      const pixels = channels === 4 ? pixelWords(src, at, outW * k) : undefined;
      const first = row === 0;
      row = (row + 1) % k;
      if (pixels && k === 2) {
        if (!first) {
          last = pixels;
          return;
        }
        for (let ox = 0, q = 0; ox < outW; ox++, q += 2) {
          const p = pixels[q]!, r = pixels[q + 1]!;
          even[ox] = (p & 0xff00ff) + (r & 0xff00ff);
          odd[ox] = ((p >>> 8) & 0xff00ff) + ((r >>> 8) & 0xff00ff);
        }
        return;
      }
      if (first) {
        even.fill(0);
        odd.fill(0);
      }
      if (pixels) {
        for (let ox = 0, q = 0; ox < outW; ox++) {
          let lo = 0, hi = 0;
          for (const end = q + k; q < end; q++) {
            const p = pixels[q]!;
            lo += p & 0xff00ff;
            hi += (p >>> 8) & 0xff00ff;
          }
          even[ox]! += lo;
          odd[ox]! += hi;
        }
        return;
      }
      for (let ox = 0, p = at; ox < outW; ox++) {
        let lo = 0, hi = 0;
        for (let j = 0; j < k; j++, p += channels) {
          lo += src[p]! | (src[p + 2]! << 16);
          hi += channels === 4 ? src[p + 1]! | (src[p + 3]! << 16) : src[p + 1]!;
        }
        even[ox]! += lo;
        odd[ox]! += hi;
      }
    },
    /**
     * Writes the averaged row as RGBA from `o` in `out` (the next block's first row resets the
     * sums). `red`: where red sits in a source pixel (byte 0, or byte 2 for BGRA).
     */
    emit(out: Uint8Array, o: number, red: 0 | 2, opaque: boolean): void {
      const words = shift > 0 ? pixelWords(out, o, outW) : undefined;
      const half = (area >> 1) * 0x10001;
      const alpha = opaque ? 0xff000000 : 0;
      const second = last;
      last = undefined;
      if (second && !words) {
        for (let ox = 0, q = 0; ox < outW; ox++, q += 2) {
          const p = second[q]!, r = second[q + 1]!;
          even[ox]! += (p & 0xff00ff) + (r & 0xff00ff);
          odd[ox]! += ((p >>> 8) & 0xff00ff) + ((r >>> 8) & 0xff00ff);
        }
      }
      if (second && words) {
        for (let ox = 0, q = 0; ox < outW; ox++, q += 2) {
          const p = second[q]!, r = second[q + 1]!;
          const lo = ((even[ox]! + (p & 0xff00ff) + (r & 0xff00ff) + half) >>> shift) & 0xff00ff;
          const hi =
            ((odd[ox]! + ((p >>> 8) & 0xff00ff) + ((r >>> 8) & 0xff00ff) + half) >>> shift) &
            0xff00ff;
          const rb = red === 0 ? lo : ((lo & 0xff) << 16) | (lo >>> 16);
          words[ox] = rb | (opaque ? ((hi & 0xff) << 8) | alpha : hi << 8);
        }
        return;
      }
      if (words) {
        // k a power of two: both lanes of a word averaged at once by a shift (the table's rounding,
        // half up), then one word written a pixel; bytes 0 and 2 trade places for BGRA.
        for (let ox = 0; ox < outW; ox++) {
          const lo = ((even[ox]! + half) >>> shift) & 0xff00ff;
          const hi = ((odd[ox]! + half) >>> shift) & 0xff00ff;
          const rb = red === 0 ? lo : ((lo & 0xff) << 16) | (lo >>> 16);
          words[ox] = rb | (opaque ? ((hi & 0xff) << 8) | alpha : hi << 8);
        }
        return;
      }
      for (let ox = 0; ox < outW; ox++, o += 4) {
        const lo = even[ox]!, hi = odd[ox]!;
        const first = average[lo & 0xffff]!, third = average[lo >>> 16]!;
        out[o] = red === 0 ? first : third;
        out[o + 1] = average[hi & 0xffff]!;
        out[o + 2] = red === 0 ? third : first;
        out[o + 3] = opaque ? 255 : average[hi >>> 16]!;
      }
    },
  };
}

/**
 * Turns the rows of a `width`×`height` frame, pushed one by one, into RGBA8, area-averaged down to
 * `fit(width, height)` on the way:
 * horizontal pass per source row into one float row, then added into the one or two output rows
 * that source row overlaps (never more, since an output row spans at least one source row). Also
 * reads, from the full-size rows, whether the frame is blank (blankFrameKind's rule), stopping at
 * the first pixel that differs. Memory: the output and three float rows of output width.
 */
function rowReducer(
  width: number,
  height: number,
  layout: RowLayout,
  fit: Fit | undefined,
  convert?: (src: Uint8Array, at: number, out: Uint8Array) => void,
): RowReducer {
  const size = fit?.(width, height) ?? { width, height };
  const outW = size.width, outH = size.height;
  if (outW > width || outH > height || outW < 1 || outH < 1) {
    throw new RangeError(`downscale: ${width}×${height} → ${outW}×${outH} is not a reduction`);
  }
  const { channels, red, blue, opaque } = convert ? RGBA_LAYOUT : layout;
  const out = new Uint8Array(outW * outH * 4);
  // A converted row (RGB_565) lands here before it is read.
  const scratch = convert ? new Uint8Array(width * 4) : undefined;
  let blank = true;
  let r0 = 0, g0 = 0, b0 = 0;
  const same = outW === width && outH === height;
  const xs = same ? undefined : boxWeights(width, outW);
  const ys = same ? undefined : boxWeights(height, outH);
  // Per source row: the first output row it feeds and its weight there, and its weight in the
  // next output row (0 when it feeds one). lastOf[oy]: the source row that completes output oy.
  const firstOut = new Int32Array(height);
  const w0 = new Float32Array(height);
  const w1 = new Float32Array(height);
  const lastOf = new Int32Array(outH);
  if (ys) {
    firstOut.fill(-1);
    for (let oy = 0; oy < outH; oy++) {
      for (let t = ys.start[oy]!; t < ys.start[oy + 1]!; t++) {
        const s = ys.index[t]!;
        if (firstOut[s] === -1) {
          firstOut[s] = oy;
          w0[s] = ys.weight[t]!;
        } else w1[s] = ys.weight[t]!;
        lastOf[oy] = s;
      }
    }
  }
  // The horizontal taps as byte offsets into a row, read into locals for the inner loop.
  const xStart = xs?.start ?? new Int32Array(1);
  const xWeight = xs?.weight ?? new Float32Array(0);
  const xOffset = xs ? xs.index.map((x) => x * channels) : new Int32Array(0);
  const rowLen = outW * 4;
  const line = new Float32Array(rowLen);
  // A whole-number factor up to 8 on both sides (a 1080×2400 screen to 540×1200 is 2): k×k
  // blocks summed as integers (blockSums), exact and several times faster than the weights.
  const kx = width / outW;
  const k = !same && kx === height / outH && Number.isInteger(kx) && kx <= 8 ? kx : 0;
  const blocks = k > 0 ? blockSums(k, outW, channels) : undefined;
  const even = new Float32Array(rowLen), odd = new Float32Array(rowLen);
  const acc = (row: number) => (row & 1 ? odd : even);
  let done = 0; // output rows written
  let next = 0; // the next source row
  function push(src: Uint8Array, start: number): void {
    const y = next++;
    let buf = src, at = start;
    if (scratch) {
      convert!(src, at, scratch);
      buf = scratch;
      at = 0;
    }
    if (y === 0) {
      r0 = buf[at + red]!;
      g0 = buf[at + 1]!;
      b0 = buf[at + blue]!;
    }
    if (blank) {
      for (let x = 0, p = at; x < width; x++, p += channels) {
        if (
          Math.abs(buf[p + red]! - r0) > 2 || Math.abs(buf[p + 1]! - g0) > 2 ||
          Math.abs(buf[p + blue]! - b0) > 2
        ) {
          blank = false;
          break;
        }
      }
    }
    if (!xs || !ys) {
      // Full size: the row as RGBA.
      for (let x = 0, p = at, o = y * rowLen; x < width; x++, p += channels, o += 4) {
        out[o] = buf[p + red]!;
        out[o + 1] = buf[p + 1]!;
        out[o + 2] = buf[p + blue]!;
        out[o + 3] = opaque ? 255 : buf[p + 3]!;
      }
      return;
    }
    const ar = at + red, ag = at + 1, ab = at + blue, aa = at + 3;
    if (blocks) {
      blocks.add(buf, at);
      if ((y + 1) % k === 0) blocks.emit(out, done++ * rowLen, red, opaque);
      return;
    }
    for (let ox = 0, o = 0, t = xStart[0]!; ox < outW; ox++, o += 4) {
      let r = 0, g = 0, b = 0, a = 0;
      for (const stop = xStart[ox + 1]!; t < stop; t++) {
        const w = xWeight[t]!;
        const p = xOffset[t]!;
        r += buf[ar + p]! * w;
        g += buf[ag + p]! * w;
        b += buf[ab + p]! * w;
        if (!opaque) a += buf[aa + p]! * w;
      }
      line[o] = r;
      line[o + 1] = g;
      line[o + 2] = b;
      line[o + 3] = a;
    }
    const oy = firstOut[y]!;
    const into = acc(oy), wa = w0[y]!;
    for (let i = 0; i < rowLen; i++) into[i]! += line[i]! * wa;
    const wb = w1[y]!;
    if (wb > 0) {
      const next = acc(oy + 1);
      for (let i = 0; i < rowLen; i++) next[i]! += line[i]! * wb;
    }
    while (done < outH && lastOf[done] === y) {
      const from = acc(done);
      const o = done * rowLen;
      // Weights sum to 1, so each value is within [0, 255 + float noise]; +0.5 rounds.
      for (let i = 0; i < rowLen; i++) out[o + i] = Math.min(255, from[i]! + 0.5);
      if (opaque) { for (let i = o + 3; i < o + rowLen; i += 4) out[i] = 255; }
      from.fill(0);
      done++;
    }
  }
  function finish(): Frame {
    if (next !== height) throw new Error(`rowReducer: ${next} of ${height} rows pushed`);
    const kind = blank ? (Math.max(r0, g0, b0) <= 8 ? "black" : "uniform") : null;
    return { image: { width: outW, height: outH, data: out }, width, height, blank: kind };
  }
  return { push, finish };
}

/** A decoded RGBA image as a Frame: reduced to `fit` if given, blank-checked. */
export function frameOf(img: RgbaImage, fit?: Fit): Frame {
  return reduceRows(img.data, 0, img.width * 4, img.width, img.height, RGBA_LAYOUT, fit);
}

/**
 * Area-averaging downscale to exactly `width`×`height` (never larger than the source). Averaging
 * every covered source pixel keeps 1-px text strokes and hairlines as grey instead of dropping
 * them, which point or bilinear sampling does at factors above 2.
 */
export function downscale(img: RgbaImage, width: number, height: number): RgbaImage {
  if (width > img.width || height > img.height || width < 1 || height < 1) {
    throw new RangeError(
      `downscale: ${img.width}×${img.height} → ${width}×${height} is not a reduction`,
    );
  }
  if (width === img.width && height === img.height) return img;
  return frameOf(img, () => ({ width, height })).image;
}

/** What `phone_shot` and the vision routes send. */
export interface AgentImage {
  bytes: Uint8Array;
  mimeType: "image/jpeg" | "image/png";
  width: number;
  height: number;
  /** Multiply image px by this to get device px (the UI tree's space). */
  scale: number;
  /** The screenshot's own size: the device's pixels in its current orientation. */
  sourceWidth: number;
  sourceHeight: number;
}

export interface PrepareOptions {
  /** Longest edge of the result in px; never upscales; capped at ABSOLUTE_MAX_EDGE. */
  maxEdge?: number;
  /** Budget on the base64 text of the result (what travels); see DEFAULT_MAX_BASE64_BYTES. */
  maxBase64Bytes?: number;
  /** Starting JPEG quality; lowered step by step when over budget. */
  quality?: number;
}

/** Length of standard padded base64 for `n` bytes. */
export function base64Length(n: number): number {
  return Math.ceil(n / 3) * 4;
}

/**
 * The image size for a `width`×`height` screen fitted to `maxEdge`, and its image-to-device
 * factor. With `snap`, the factor is rounded up to a quarter step so the agent multiplies by 2 or
 * 2.5 rather than 1.875 (fewer arithmetic slips when it taps from the image). Common phones land
 * on the step anyway (2400→1200 ×2, 3200→1280 ×2.5, 1600→1280 ×1.25); the worst case, a long
 * edge just over `maxEdge`, gives up a fifth of the edge. Never enlarges.
 *
 * Exported for tests only (tests/image_test.ts checks the scale table without encoding screens).
 */
export function fitToEdge(
  width: number,
  height: number,
  maxEdge: number,
  snap: boolean,
): { width: number; height: number; scale: number } {
  const exact = Math.max(1, Math.max(width, height) / maxEdge);
  const scale = snap ? Math.ceil(exact * 4 - 1e-9) / 4 : exact;
  return {
    width: Math.max(1, Math.round(width / scale)),
    height: Math.max(1, Math.round(height / scale)),
    scale,
  };
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

/** How an image is sized and encoded for one audience: the agent, or a vision model. */
export interface Sizing {
  maxEdge: number;
  maxBase64Bytes: number;
  quality: number;
  /** Round the image-to-device factor up to a quarter step (fitToEdge). */
  snap: boolean;
}

/**
 * The agent's sizing (`phone_shot`): long edge at most `maxEdge` (default AGENT_MAX_EDGE, scale
 * rounded up to a quarter step, never upscaled), JPEG q80.
 */
export function agentSizing(opts: PrepareOptions = {}): Sizing {
  return {
    maxEdge: opts.maxEdge ?? AGENT_MAX_EDGE,
    maxBase64Bytes: opts.maxBase64Bytes ?? DEFAULT_MAX_BASE64_BYTES,
    quality: opts.quality ?? AGENT_QUALITY,
    snap: true,
  };
}

/**
 * A vision model's sizing: long edge VISION_MAX_EDGE with the exact scale (the vision prompt
 * states the real screen size, so no round factor is needed), JPEG q85.
 */
export function visionSizing(opts: PrepareOptions = {}): Sizing {
  return {
    maxEdge: opts.maxEdge ?? VISION_MAX_EDGE,
    maxBase64Bytes: opts.maxBase64Bytes ?? DEFAULT_MAX_BASE64_BYTES,
    quality: opts.quality ?? VISION_QUALITY,
    snap: false,
  };
}

function firstEdge(sizing: Sizing, width: number, height: number): number {
  return Math.min(Math.floor(sizing.maxEdge), ABSOLUTE_MAX_EDGE, Math.max(width, height));
}

/** The size `sizing` first asks for: what a capture decodes straight to (readPng's `fit`). */
export function fitFor(sizing: Sizing): Fit {
  return (width, height) => {
    const fitted = fitToEdge(width, height, firstEdge(sizing, width, height), sizing.snap);
    return { width: fitted.width, height: fitted.height };
  };
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
    throw new ImageError("CORRUPT", `Image is ${source.width}×${source.height}: nothing to send`);
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
    const { width, height, scale } = fitToEdge(source.width, source.height, edge, snap);
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

/** A decoded image as a full-size frame (its blankness not read). */
function wholeFrame(img: RgbaImage): Frame {
  return { image: img, width: img.width, height: img.height, blank: null };
}

/**
 * The screenshot as `phone_shot` hands it to the agent: encodeFrame with agentSizing(opts). JPEG
 * q80, or PNG when the screen is flat UI and PNG comes out no bigger.
 */
export function prepareForAgent(img: RgbaImage, opts: PrepareOptions = {}): AgentImage {
  return encodeFrame(wholeFrame(img), agentSizing(opts));
}

/**
 * The screenshot for a vision model: encodeFrame with visionSizing(opts): long edge
 * VISION_MAX_EDGE, exact scale, JPEG q85 or a smaller PNG.
 */
export function prepareForVision(img: RgbaImage, opts: PrepareOptions = {}): AgentImage {
  return encodeFrame(wholeFrame(img), visionSizing(opts));
}

/**
 * The sentence that travels next to the image so the agent taps in device pixels, e.g.
 * "Screenshot 540×1200 of a 1080×2400 screen: multiply image x,y by 2 to get tap coordinates."
 */
export function scaleNote(img: AgentImage): string {
  const factor = Number(img.scale.toFixed(4));
  const size =
    `Screenshot ${img.width}×${img.height} of a ${img.sourceWidth}×${img.sourceHeight} screen`;
  return factor === 1
    ? `${size}: image x,y are device pixels; tap them as they are.`
    : `${size}: multiply image x,y by ${factor} to get device pixels for taps and swipes.`;
}

/** Base64 via the built-in (native, ~60 ms for 8 MB); no per-byte string building. */
export function toBase64(bytes: Uint8Array): string {
  return bytes.toBase64();
}
