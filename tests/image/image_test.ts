import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { deflateSync } from "node:zlib";
import { encode as fastPngEncode } from "fast-png";
import { decode as jpegDecode } from "jpeg-js";
import {
  base64Length,
  encodeFrame,
  encodeJpeg,
  encodePng,
  jpegMinBytes,
  toBase64,
} from "../../lib/image/encode.ts";
import { ImageError, type ImageErrorCode, type RgbaImage } from "../../lib/image/frame.ts";
import { isCompletePng } from "../../lib/image/png_chunks.ts";
import { readPngStream } from "../../lib/image/png_decode.ts";
import { decodeRawScreencap, readRawScreencap } from "../../lib/image/raw_screencap.ts";
import { downscale, frameOf } from "../../lib/image/row_reducer.ts";
import {
  ABSOLUTE_MAX_EDGE,
  AGENT_MAX_EDGE,
  agentSizing,
  DEFAULT_MAX_BASE64_BYTES,
  fitFor,
  fitToEdge,
  scaleNote,
  visionSizing,
} from "../../lib/image/sizing.ts";
import {
  ihdrBody,
  insertChunkBeforeIdat,
  writeFilteredPng,
  writePngChunks,
} from "../../sim/png_writer.ts";
import {
  blankFrameKind,
  decodePng,
  prepareForAgent,
  prepareForVision,
} from "../fixtures/images/pipeline.ts";
import {
  darkScreenWithText,
  noiseScreen,
  syntheticScreen,
  uniformScreen,
} from "../fixtures/images/synthetic_screen.ts";
import { assertScaleMaps } from "../helpers/scale_maps.ts";

function pure(name: string, fn: () => void | Promise<void>): void {
  Deno.test({ name, permissions: "none", fn });
}

function throwsCode(fn: () => unknown, code: ImageErrorCode, mentions?: RegExp): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof ImageError, `expected ImageError, got ${error}`);
    assert.equal(error.code, code, error.message);
    if (mentions) assert.match(error.message, mentions);
    return true;
  });
}

async function rejectsCode(
  fn: () => Promise<unknown>,
  code: ImageErrorCode,
  mentions?: RegExp,
): Promise<void> {
  await assert.rejects(fn, (error: unknown) => {
    assert.ok(error instanceof ImageError, `expected ImageError, got ${error}`);
    assert.equal(error.code, code, error.message);
    if (mentions) assert.match(error.message, mentions);
    return true;
  });
}

function pixel(img: RgbaImage, x: number, y: number): number[] {
  const p = (y * img.width + x) * 4;
  return Array.from(img.data.subarray(p, p + 4));
}

/** Small image with every pixel different and some translucency, to catch channel mix-ups. */
function gradient(width: number, height: number, alpha = true): RgbaImage {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const p = (y * width + x) * 4;
      data.set([(x * 7) & 255, (y * 13) & 255, (x * y) & 255, alpha ? (x + y) & 255 : 255], p);
    }
  }
  return { width, height, data };
}

function rawScreencap(
  width: number,
  height: number,
  format: number,
  pixels: number[],
  headerBytes: 12 | 16,
): Uint8Array {
  const out = new Uint8Array(headerBytes + pixels.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, width, true);
  view.setUint32(4, height, true);
  view.setUint32(8, format, true);
  if (headerBytes === 16) view.setUint32(12, 143261696, true); // HAL_DATASPACE_SRGB
  out.set(pixels, headerBytes);
  return out;
}

// --- PNG decoding ---------------------------------------------------------------------------

pure("decodePng round-trips encodePng for a translucent RGBA image", async () => {
  const img = gradient(37, 23);
  const back = await decodePng(encodePng(img));
  assert.equal(back.width, 37);
  assert.equal(back.height, 23);
  assert.deepEqual(back.data, img.data);
});

pure("decodePng reads a PNG that is a view into a larger buffer", async () => {
  const png = encodePng(gradient(9, 5));
  const backing = new Uint8Array(png.length + 7);
  backing.set(png, 3);
  assert.deepEqual(
    (await decodePng(backing.subarray(3, 3 + png.length))).data,
    gradient(9, 5).data,
  );
});

pure("encodePng writes opaque images as RGB and they decode back to the same RGBA", async () => {
  const img = gradient(40, 30, false);
  const png = encodePng(img);
  assert.equal(png[25], 2, "IHDR colour type 2 (truecolour, no alpha)");
  assert.deepEqual((await decodePng(png)).data, img.data);
});

pure(
  "decodePng reads a phone-style PNG with adaptive row filters and 8 KiB IDAT chunks",
  async () => {
    const screen = syntheticScreen(270, 600);
    const png = writeFilteredPng(screen);
    assert.deepEqual((await decodePng(png)).data, screen.data);
  },
);

pure("decodePng converts greyscale at 1, 2, 4, 8 and 16 bits to RGBA8", async () => {
  // One row of 4 pixels: black, dark, light, white in each depth's own scale.
  const cases: Array<[1 | 2 | 4 | 8 | 16, Uint8Array | Uint16Array]> = [
    [1, Uint8Array.of(0b0011_0000)],
    [2, Uint8Array.of(0b00_01_10_11)],
    [4, Uint8Array.of(0x05, 0xaf)],
    [8, Uint8Array.of(0, 85, 170, 255)],
    [16, Uint16Array.of(0, 21845, 43690, 65535)],
  ];
  const expected: Record<number, number[]> = {
    1: [0, 0, 255, 255],
    2: [0, 85, 170, 255],
    4: [0, 85, 170, 255],
    8: [0, 85, 170, 255],
    16: [0, 85, 170, 255],
  };
  for (const [depth, data] of cases) {
    const png = fastPngEncode({ width: 4, height: 1, data, channels: 1, depth });
    const img = await decodePng(png);
    const greys = [0, 1, 2, 3].map((x) => pixel(img, x, 0));
    assert.deepEqual(greys.map((p) => p[0]), expected[depth], `depth ${depth}`);
    assert.ok(greys.every((p) => p[0] === p[1] && p[1] === p[2] && p[3] === 255), `depth ${depth}`);
  }
});

pure("decodePng converts grey+alpha and 16-bit RGBA to RGBA8", async () => {
  const ga = await decodePng(fastPngEncode({
    width: 2,
    height: 1,
    data: Uint8Array.of(10, 20, 200, 255),
    channels: 2,
    depth: 8,
  }));
  assert.deepEqual([pixel(ga, 0, 0), pixel(ga, 1, 0)], [[10, 10, 10, 20], [200, 200, 200, 255]]);
  const rgba16 = await decodePng(fastPngEncode({
    width: 1,
    height: 1,
    data: Uint16Array.of(0xffff, 0x8000, 0x0100, 0x7fff),
    channels: 4,
    depth: 16,
  }));
  assert.deepEqual(pixel(rgba16, 0, 0), [255, 128, 1, 127]);
});

pure("decodePng expands palette images at 2 and 8 bits, applying tRNS alpha", async () => {
  const palette = [[255, 0, 0, 128], [0, 255, 0, 0], [0, 0, 255, 255]];
  const p8 = await decodePng(fastPngEncode({
    width: 3,
    height: 1,
    data: Uint8Array.of(0, 1, 2),
    channels: 1,
    depth: 8,
    palette,
  }));
  assert.deepEqual([0, 1, 2].map((x) => pixel(p8, x, 0)), palette);
  const p2 = await decodePng(fastPngEncode({
    width: 3,
    height: 1,
    data: Uint8Array.of(0b10_01_00_00),
    channels: 1,
    depth: 2,
    palette,
  }));
  assert.deepEqual([0, 1, 2].map((x) => pixel(p2, x, 0)), [palette[2], palette[1], palette[0]]);
});

pure("decodePng makes the tRNS key colour of an RGB PNG transparent", async () => {
  // 2×2 rather than 2×1: fast-png checks a key's three u16 values against the pixel count.
  const rgb = fastPngEncode({
    width: 2,
    height: 2,
    data: Uint8Array.of(1, 2, 3, 4, 5, 6, 4, 5, 7, 4, 5, 6),
    channels: 3,
    depth: 8,
  });
  const keyed = insertChunkBeforeIdat(rgb, "tRNS", Uint8Array.of(0, 4, 0, 5, 0, 6));
  const img = await decodePng(keyed);
  assert.deepEqual([pixel(img, 0, 0), pixel(img, 1, 0), pixel(img, 0, 1), pixel(img, 1, 1)], [
    [1, 2, 3, 255],
    [4, 5, 6, 0],
    [4, 5, 7, 255],
    [4, 5, 6, 0],
  ]);
});

pure("decodePng reads Adam7-interlaced PNGs", async () => {
  const img = gradient(19, 11);
  const png = fastPngEncode({ ...img, channels: 4, depth: 8 }, { interlace: "Adam7" });
  assert.deepEqual((await decodePng(png)).data, img.data);
});

// --- whole or cut ----------------------------------------------------------------------------

pure("isCompletePng is true for whole PNGs from both writers", () => {
  const screen = syntheticScreen(200, 400);
  assert.ok(isCompletePng(writeFilteredPng(screen)));
  assert.ok(isCompletePng(encodePng(screen)));
});

pure("a PNG cut anywhere, from the signature to the IEND CRC, is caught as TRUNCATED", async () => {
  const png = writeFilteredPng(syntheticScreen(270, 600)); // some 86 KB: eleven 8 KiB IDATs
  const idatCount = (() => {
    let n = 0;
    for (let i = 0; i + 4 <= png.length; i++) {
      if (png[i] === 73 && png[i + 1] === 68 && png[i + 2] === 65 && png[i + 3] === 84) n++;
    }
    return n;
  })();
  assert.ok(idatCount > 3, "fixture should span several IDAT chunks");
  const firstIdatEnd = 8 + 25 + 12 + 8192; // signature, IHDR, one full 8 KiB IDAT
  const cuts = [
    8, // signature only
    20, // inside IHDR
    33, // right after IHDR
    1000, // inside the first IDAT
    firstIdatEnd, // exactly on a chunk boundary: the chain is valid so far but has no IEND
    firstIdatEnd + 6, // inside the next chunk's header
    Math.floor(png.length / 2), // mid-IDAT
    png.length - 13, // last IDAT missing its final CRC byte
    png.length - 12, // just before IEND
    png.length - 4, // IEND without its CRC
    png.length - 1,
  ];
  for (const cut of cuts) {
    const part = png.subarray(0, cut);
    assert.equal(isCompletePng(part), false, `cut at ${cut}`);
    await rejectsCode(() => decodePng(part), "TRUNCATED", /reconnect/);
  }
});

pure(
  "decodePng refuses empty output, adb error text and non-PNG bytes with distinct codes",
  async () => {
    await rejectsCode(() => decodePng(new Uint8Array(0)), "EMPTY", /raw screencap/);
    const text = new TextEncoder().encode("error: closed\n");
    await rejectsCode(() => decodePng(text), "NOT_PNG", /error: closed/);
    assert.equal(isCompletePng(text), false);
    const jpeg = encodeJpeg(gradient(8, 8), 80);
    await rejectsCode(() => decodePng(jpeg), "NOT_PNG");
  },
);

pure("decodePng reports bytes after IEND as stray output, not as a cut transfer", async () => {
  const png = encodePng(gradient(4, 4));
  const extra = new Uint8Array(png.length + 5);
  extra.set(png);
  assert.equal(isCompletePng(extra), false);
  await rejectsCode(() => decodePng(extra), "CORRUPT", /5 more bytes/);
});

pure("decodePng reports damaged image data as CORRUPT and absurd sizes as TOO_LARGE", async () => {
  const png = writeFilteredPng(gradient(64, 64));
  const damaged = png.slice();
  damaged.fill(0xa5, 8 + 25 + 8 + 2, 8 + 25 + 8 + 200); // scribble over the zlib stream
  await rejectsCode(() => decodePng(damaged), "CORRUPT", /take the screenshot again/);
  const huge = png.slice();
  new DataView(huge.buffer).setUint32(16, 100_000); // IHDR width
  new DataView(huge.buffer).setUint32(20, 100_000); // IHDR height
  await rejectsCode(() => decodePng(huge), "TOO_LARGE");
});

// --- raw screencap ---------------------------------------------------------------------------

pure("decodeRawScreencap reads RGBA_8888 after a 12-byte and after a 16-byte header", () => {
  const pixels = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16];
  for (const header of [12, 16] as const) {
    const img = decodeRawScreencap(rawScreencap(2, 2, 1, pixels, header));
    assert.equal(img.width, 2);
    assert.equal(img.height, 2);
    assert.deepEqual(Array.from(img.data), pixels, `${header}-byte header`);
  }
});

pure("decodeRawScreencap forces RGBX alpha opaque and swaps BGRA", () => {
  const rgbx = decodeRawScreencap(rawScreencap(1, 2, 2, [1, 2, 3, 0, 4, 5, 6, 77], 16));
  assert.deepEqual(Array.from(rgbx.data), [1, 2, 3, 255, 4, 5, 6, 255]);
  const bgra = decodeRawScreencap(rawScreencap(1, 1, 5, [30, 20, 10, 200], 12));
  assert.deepEqual(Array.from(bgra.data), [10, 20, 30, 200]);
});

pure("decodeRawScreencap expands RGB_888 and RGB_565 to full-range RGBA8", () => {
  const rgb = decodeRawScreencap(rawScreencap(2, 1, 3, [1, 2, 3, 4, 5, 6], 16));
  assert.deepEqual(Array.from(rgb.data), [1, 2, 3, 255, 4, 5, 6, 255]);
  // Little-endian u16: red 0xF800, green 0x07E0, blue 0x001F, white, black, mid grey 0x8410.
  const words = [0xf800, 0x07e0, 0x001f, 0xffff, 0x0000, 0x8410];
  const bytes = words.flatMap((w) => [w & 255, w >> 8]);
  for (const header of [12, 16] as const) {
    const img = decodeRawScreencap(rawScreencap(3, 2, 4, bytes, header));
    assert.deepEqual([0, 1, 2].flatMap((x) => [pixel(img, x, 0), pixel(img, x, 1)]), [
      [255, 0, 0, 255],
      [255, 255, 255, 255],
      [0, 255, 0, 255],
      [0, 0, 0, 255],
      [0, 0, 255, 255],
      [132, 130, 132, 255],
    ]);
  }
});

pure("decodeRawScreencap names unknown formats, wrong lengths and cut transfers", () => {
  throwsCode(() => decodeRawScreencap(new Uint8Array(8)), "BAD_RAW", /12-byte header/);
  throwsCode(
    () => decodeRawScreencap(rawScreencap(1, 1, 22, [0, 0, 0, 0, 0, 0, 0, 0], 16)),
    "BAD_RAW",
    /format 22.*4 RGB_565/,
  );
  throwsCode(() => decodeRawScreencap(rawScreencap(0, 5, 1, [], 16)), "BAD_RAW", /0×5/);
  const whole = rawScreencap(4, 4, 1, new Array(64).fill(9), 16);
  throwsCode(() => decodeRawScreencap(whole.subarray(0, 40)), "TRUNCATED", /reconnect/);
  const padded = new Uint8Array(whole.length + 100);
  padded.set(whole);
  throwsCode(() => decodeRawScreencap(padded), "BAD_RAW", /should be 76 or 80 bytes but is 180/);
});

// --- blank frames ----------------------------------------------------------------------------

pure("blankFrameKind calls a FLAG_SECURE-style all-black frame black", () => {
  assert.equal(blankFrameKind(uniformScreen(1080, 2400, [0, 0, 0])), "black");
});

pure("blankFrameKind calls a single-colour grey frame uniform, dithering included", () => {
  const grey = uniformScreen(720, 1600, [128, 128, 128]);
  grey.data[4 * 1234] = 130; // ±2 dithering noise is still one colour
  assert.equal(blankFrameKind(grey), "uniform");
});

pure("blankFrameKind does not call a dark-mode screen with one line of text blank", () => {
  assert.equal(blankFrameKind(darkScreenWithText()), null);
});

pure("blankFrameKind finds a single light pixel that falls between its sample grid points", () => {
  const dark = uniformScreen(1080, 2400, [18, 18, 18]);
  const p = (2001 * 1080 + 1) * 4; // row 2001, column 1: off the 16-px grid
  dark.data.set([230, 230, 230], p);
  assert.equal(blankFrameKind(dark), null);
});

pure("blankFrameKind passes an ordinary screen", () => {
  assert.equal(blankFrameKind(syntheticScreen(540, 1200)), null);
});

// --- downscale -------------------------------------------------------------------------------

pure("downscale averages every covered pixel, including fractional coverage", () => {
  const checker = { width: 4, height: 4, data: new Uint8Array(64) };
  for (let i = 0; i < 16; i++) {
    const v = ((i & 3) + (i >> 2)) % 2 ? 255 : 0;
    checker.data.set([v, v, v, 255], i * 4);
  }
  const half = downscale(checker, 2, 2);
  assert.ok(Array.from(half.data).every((v, i) => v === (i % 4 === 3 ? 255 : 128)));
  // Three source columns into two: each output covers 1.5 source pixels.
  const row = {
    width: 3,
    height: 1,
    data: Uint8Array.of(0, 0, 0, 255, 90, 90, 90, 255, 180, 180, 180, 255),
  };
  const two = downscale(row, 2, 1);
  assert.deepEqual([pixel(two, 0, 0)[0], pixel(two, 1, 0)[0]], [30, 150]);
});

pure("downscale refuses to enlarge", () => {
  assert.throws(() => downscale(gradient(10, 10), 11, 10), RangeError);
});

// --- prepareForAgent / prepareForVision ------------------------------------------------------

/** One colour, for tests whose claim is a size or a sentence: it encodes at once, as a small PNG. */
const oneColour = (width: number, height: number) => uniformScreen(width, height, [250, 250, 250]);

pure("prepareForAgent gives a round device-pixel factor for common phone sizes", () => {
  const cases: Array<[number, number, number, number, number]> = [
    // source w, h → image w, h, scale
    [1080, 2400, 540, 1200, 2],
    [2400, 1080, 1200, 540, 2], // landscape
    [1440, 3200, 576, 1280, 2.5],
    [1080, 2340, 540, 1170, 2],
    [720, 1600, 576, 1280, 1.25],
    [1000, 1999, 571, 1142, 1.75],
  ];
  for (const [w, h, ew, eh, scale] of cases) {
    const a = {
      ...fitToEdge({ width: w, height: h }, { maxEdge: AGENT_MAX_EDGE, snap: true }),
      sourceWidth: w,
      sourceHeight: h,
    };
    assert.deepEqual([a.width, a.height, a.scale], [ew, eh, scale], `${w}×${h}`);
    assert.equal(Math.max(a.width, a.height) <= 1280, true);
    assertScaleMaps(`${w}×${h}`, a);
  }
  // The table is the pipeline's: one screen encoded end to end lands on its row.
  const encoded = prepareForAgent(oneColour(720, 1600));
  assert.deepEqual([encoded.width, encoded.height, encoded.scale], [576, 1280, 1.25]);
});

pure("prepareForVision keeps the exact factor at a 1568 px long edge", () => {
  const v = prepareForVision(oneColour(1080, 2400));
  assert.deepEqual([v.width, v.height], [706, 1568]);
  assert.ok(Math.abs(v.scale - 2400 / 1568) < 1e-9);
  assertScaleMaps("vision", v);
});

pure("prepareForAgent never upscales a small image", () => {
  const small = oneColour(300, 500);
  for (const a of [prepareForAgent(small), prepareForAgent(small, { maxEdge: 4000 })]) {
    assert.deepEqual([a.width, a.height, a.scale], [300, 500, 1]);
  }
  assert.match(scaleNote(prepareForAgent(small)), /are device pixels/);
});

pure("prepareForAgent caps the long edge at 2000 whatever maxEdge asks for", () => {
  // Only the long edge meets the cap: a strip of a phone's height reaches it with a tenth of the
  // pixels a 1080×2400 screen would have to reduce, for the same capped size.
  const a = prepareForAgent(oneColour(108, 2400), { maxEdge: 5000 });
  assert.ok(Math.max(a.width, a.height) <= ABSOLUTE_MAX_EDGE);
  assert.deepEqual([a.height, a.scale], [1920, 1.25]);
  assertScaleMaps("capped", a);
});

// The photo at a sixteenth of a phone's pixels, the flat UI at a quarter (smaller, its text strokes
// crowd until JPEG wins); tests/long/image_corpus_test.ts runs each at 1080×2400.
pure("prepareForAgent sends JPEG for a screen with a photo and PNG for flat UI", async () => {
  const photo = prepareForAgent(syntheticScreen(270, 600), { maxEdge: 300 });
  assert.equal(photo.mimeType, "image/jpeg");
  const decoded = jpegDecode(photo.bytes, { useTArray: true });
  assert.deepEqual([decoded.width, decoded.height], [photo.width, photo.height]);
  const flat = prepareForAgent(syntheticScreen(540, 1200, { photo: false }), { maxEdge: 600 });
  assert.equal(flat.mimeType, "image/png");
  const back = await decodePng(flat.bytes);
  assert.deepEqual([back.width, back.height], [270, 600]);
});

// Each way of fitting: at once, a lower quality, a smaller size (down to the 320 px floor, which a
// 400 px edge leaves room for). The 1440×3200 worst case at the production budgets runs in
// tests/long/image_corpus_test.ts.
pure(
  "prepareForAgent keeps a noisy screen within the base64 budget, stepping quality then size",
  () => {
    const noise = noiseScreen(100, 400);
    const heights: number[] = [];
    for (const budget of [DEFAULT_MAX_BASE64_BYTES, 65_000, 45_000]) {
      const a = prepareForAgent(noise, { maxBase64Bytes: budget });
      const b64 = toBase64(a.bytes);
      assert.equal(b64.length, base64Length(a.bytes.length));
      assert.ok(b64.length <= budget, `${b64.length} > ${budget}`);
      assertScaleMaps(`budget ${budget}`, a);
      heights.push(a.height);
    }
    // 65 000 is under q80's JPEG of the whole screen (77 668) and over q60's (54 836); 45 000 is
    // under both.
    assert.deepEqual([heights[0], heights[1], heights[2]! < 400], [400, 400, true], `${heights}`);
    // The vision sizing steps down the same way from its own quality (85).
    const v = prepareForVision(noise, { maxBase64Bytes: 65_000 }); // under q85's, over q65's
    assert.ok(base64Length(v.bytes.length) <= 65_000);
  },
);

pure("prepareForAgent refuses a zero or NaN edge or budget instead of sending a 1-px image", () => {
  const img = gradient(20, 20);
  for (const opts of [{ maxEdge: 0 }, { maxEdge: Number.NaN }, { maxBase64Bytes: 0 }]) {
    assert.throws(() => prepareForAgent(img, opts), RangeError);
  }
});

pure("prepareForAgent throws TOO_LARGE instead of breaking an impossible budget", () => {
  throwsCode(
    () => prepareForAgent(noiseScreen(100, 400), { maxBase64Bytes: 2_000 }),
    "TOO_LARGE",
    /raise the byte budget/,
  );
});

pure("scaleNote tells the agent which factor turns image pixels into device pixels", () => {
  const a = prepareForAgent(oneColour(1440, 3200));
  assert.equal(
    scaleNote(a),
    "Screenshot 576×1280 of a 1440×3200 screen: multiply image x,y by 2.5 to get device pixels for taps and swipes.",
  );
});

// --- base64 ----------------------------------------------------------------------------------

function btoaReference(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

pure("toBase64 matches btoa on a 3 MB screenshot and on short tails", () => {
  // A raw screencap's bytes: noise holds every byte value, and 3 MB + 1 ends on a partial group.
  const big = noiseScreen(1080, 700).data.subarray(0, 3_000_001);
  assert.equal(big.length, 3_000_001);
  assert.equal(toBase64(big), btoaReference(big));
  for (let n = 0; n < 5; n++) {
    const tail = Uint8Array.from({ length: n }, (_, i) => 250 + i);
    assert.equal(toBase64(tail), btoa(String.fromCharCode(...tail)), `${n} bytes`);
  }
});

// --- permissions -----------------------------------------------------------------------------

Deno.test("the image pipeline loads and runs under deno run with no permissions at all", async () => {
  const probe = fileURLToPath(new URL("../fixtures/images/import_probe.ts", import.meta.url));
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", probe],
    cwd: fileURLToPath(new URL("../..", import.meta.url)),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const err = new TextDecoder().decode(stderr);
  assert.equal(code, 0, err);
  assert.doesNotMatch(err, /permission|NotCapable/i);
  assert.deepEqual(JSON.parse(new TextDecoder().decode(stdout)), {
    granted: [],
    blank: null,
    raw: [9, 8, 7, 255],
    grey: [10, 10, 10, 255, 200, 200, 200, 255],
    agent: ["image/jpeg", 360, 800, true],
    vision: ["image/jpeg", 360, 800],
  });
});

// --- hostile frames: checked before they are decoded -------------------------------------------
// What a compromised or broken phone can send in place of a screenshot. Each case decoded on the
// code before these checks (fast-png trusts the header it meets last and inflates without limit):
// bench/image_bench.ts --hostile measures the full-size versions.

/** 16 MiB of zeros deflated: a zlib bomb for a 64×64 header, made once for the tests that use it. */
let bombStream: Uint8Array | undefined;
function bomb(): Uint8Array {
  return bombStream ??= new Uint8Array(deflateSync(new Uint8Array(16 << 20)));
}

/** Filtered rows of an all-zero image: a filter byte then `bytesPerRow` zero bytes, per row. */
function zeroRows(height: number, bytesPerRow: number): Uint8Array {
  return new Uint8Array(deflateSync(new Uint8Array(height * (1 + bytesPerRow))));
}

const END: [string, Uint8Array] = ["IEND", new Uint8Array()];

pure(
  "decodePng refuses a PNG whose first chunk is not IHDR, as the PNG specification requires",
  async () => {
    const tEXt: [string, Uint8Array] = ["tEXt", new TextEncoder().encode("Comment\0first")];
    const good = writePngChunks([["IHDR", ihdrBody(4, 4)], tEXt, ["IDAT", zeroRows(4, 16)], END]);
    assert.deepEqual((await decodePng(good)).data, new Uint8Array(64));
    const textFirst = writePngChunks([
      tEXt,
      ["IHDR", ihdrBody(4, 4)],
      ["IDAT", zeroRows(4, 16)],
      END,
    ]);
    await rejectsCode(
      () => decodePng(textFirst),
      "CORRUPT",
      /starts with a "tEXt" chunk.*IHDR.*first/,
    );
    // The shape that decoded 400 MB: a header past the pixel cap, behind a tEXt chunk.
    const huge = writePngChunks([
      tEXt,
      ["IHDR", ihdrBody(10_000, 10_000)],
      ["IDAT", zeroRows(1, 4)],
      END,
    ]);
    await rejectsCode(() => decodePng(huge), "CORRUPT", /IHDR header chunk first/);
  },
);

pure("decodePng refuses a second IHDR that would replace the header it checked", async () => {
  const png = writePngChunks([
    ["IHDR", ihdrBody(4, 4)],
    ["IHDR", ihdrBody(10_000, 10_000)],
    ["IDAT", zeroRows(4, 16)],
    END,
  ]);
  await rejectsCode(() => decodePng(png), "CORRUPT", /second IHDR/);
});

pure("decodePng refuses headers the PNG specification does not define", async () => {
  const cases: Array<[Uint8Array, RegExp]> = [
    [ihdrBody(4, 4, 4, 6), /colour type 6 at 4 bits/], // RGBA has 8 or 16 bits
    [ihdrBody(4, 4, 8, 5), /colour type 5/], // there is no colour type 5
    [ihdrBody(4, 4, 8, 6, 2), /interlace 2/], // none (0) and Adam7 (1) only
    [Uint8Array.of(...ihdrBody(4, 4), 0), /IHDR chunk is 14 bytes/],
  ];
  for (const [ihdr, message] of cases) {
    const png = writePngChunks([["IHDR", ihdr], ["IDAT", zeroRows(4, 16)], END]);
    await rejectsCode(() => decodePng(png), "CORRUPT", message);
  }
  const empty = writePngChunks([["IHDR", ihdrBody(0, 4)], ["IDAT", zeroRows(4, 0)], END]);
  await rejectsCode(() => decodePng(empty), "EMPTY", /0×4/);
  const noData = writePngChunks([["IHDR", ihdrBody(4, 4)], END]);
  await rejectsCode(() => decodePng(noData), "EMPTY", /no image data \(no IDAT chunk\)/);
});

pure(
  "decodePng and decodeRawScreencap cap each side at 16384 px, not only the pixel count",
  async () => {
    const grey = (width: number, height: number) =>
      writePngChunks([
        ["IHDR", ihdrBody(width, height, 8, 0)],
        ["IDAT", zeroRows(height, width)],
        END,
      ]);
    assert.equal((await decodePng(grey(16_384, 1))).width, 16_384);
    assert.equal((await decodePng(grey(1, 16_384))).height, 16_384);
    await rejectsCode(() => decodePng(grey(16_385, 1)), "TOO_LARGE", /16385×1 .*16384 px/);
    await rejectsCode(() => decodePng(grey(1, 16_385)), "TOO_LARGE", /1×16385 .*16384 px/);
    // 40 million pixels is within the pixel cap, and one row of it took seconds and gigabytes.
    const wide = writePngChunks([["IHDR", ihdrBody(40_000_000, 1)], ["IDAT", zeroRows(1, 4)], END]);
    await rejectsCode(() => decodePng(wide), "TOO_LARGE", /40000000×1/);

    const raw = (width: number, height: number, pixelBytes = width * height * 4) => {
      const out = new Uint8Array(16 + pixelBytes);
      const view = new DataView(out.buffer);
      view.setUint32(0, width, true);
      view.setUint32(4, height, true);
      view.setUint32(8, 1, true); // RGBA_8888
      return out;
    };
    assert.equal(decodeRawScreencap(raw(16_384, 1)).width, 16_384);
    throwsCode(() => decodeRawScreencap(raw(16_385, 1)), "TOO_LARGE", /Raw screencap.*16384 px/);
    throwsCode(() => decodeRawScreencap(raw(1, 16_385)), "TOO_LARGE", /1×16385/);
    // Refused on its header alone, before the length is even compared.
    throwsCode(() => decodeRawScreencap(raw(40_000_000, 1, 64)), "TOO_LARGE", /40000000×1/);
  },
);

pure(
  "decodePng refuses image data that inflates past what its header declares (a zlib bomb)",
  async () => {
    const rgba64 = ihdrBody(64, 64); // 64 rows of 1 + 256 bytes: 16448 bytes once inflated
    const withData = (rows: Uint8Array) =>
      writePngChunks([["IHDR", rgba64], ["IDAT", new Uint8Array(deflateSync(rows))], END]);
    assert.equal((await decodePng(withData(new Uint8Array(16_448)))).width, 64);
    await rejectsCode(
      () => decodePng(writePngChunks([["IHDR", rgba64], ["IDAT", bomb()], END])),
      "CORRUPT",
      /inflates to more than the 16448 bytes its 64×64 header declares/,
    );
    await rejectsCode(
      () => decodePng(withData(new Uint8Array(16_449))),
      "CORRUPT",
      /more than the 16448/,
    );
    await rejectsCode(
      () => decodePng(withData(new Uint8Array(16_447))),
      "CORRUPT",
      /16447 bytes, short of/,
    );
  },
);

pure(
  "decodePng refuses a colour profile that inflates to megabytes, and reads a real-sized one",
  async () => {
    const icc = (size: number): [string, Uint8Array] => {
      const stream = new Uint8Array(deflateSync(new Uint8Array(size).fill(7)));
      return ["iCCP", Uint8Array.of(...new TextEncoder().encode("Display P3\0\0"), ...stream)];
    };
    const png = (profile: [string, Uint8Array]) =>
      writePngChunks([["IHDR", ihdrBody(4, 4)], profile, ["IDAT", zeroRows(4, 16)], END]);
    assert.equal((await decodePng(png(icc(3_000)))).width, 4);
    await rejectsCode(() => decodePng(png(icc(2 << 20))), "CORRUPT", /colour profile \(iCCP\)/);
  },
);

// --- one-pass decode: readPngStream / readRawScreencap / frameOf --------------------------------

/** Area average by the definition: every source pixel's coverage of each output pixel. */
function referenceDownscale(img: RgbaImage, width: number, height: number): RgbaImage {
  const fx = img.width / width, fy = img.height / height;
  const out = new Uint8Array(width * height * 4);
  for (let oy = 0; oy < height; oy++) {
    for (let ox = 0; ox < width; ox++) {
      const sum = [0, 0, 0, 0];
      for (let sy = Math.floor(oy * fy); sy < Math.ceil((oy + 1) * fy); sy++) {
        const wy = Math.min((oy + 1) * fy, sy + 1) - Math.max(oy * fy, sy);
        for (let sx = Math.floor(ox * fx); sx < Math.ceil((ox + 1) * fx); sx++) {
          const w = wy * (Math.min((ox + 1) * fx, sx + 1) - Math.max(ox * fx, sx)) / (fx * fy);
          for (let c = 0; c < 4; c++) sum[c]! += img.data[(sy * img.width + sx) * 4 + c]! * w;
        }
      }
      for (let c = 0; c < 4; c++) out[(oy * width + ox) * 4 + c] = Math.round(sum[c]!);
    }
  }
  return { width, height, data: out };
}

function maxDifference(a: Uint8Array, b: Uint8Array): number {
  assert.equal(a.length, b.length);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
  return worst;
}

pure("downscale matches the area average by definition, for whole and fractional factors", () => {
  const img = noiseScreen(60, 90);
  for (const [w, h] of [[30, 45], [20, 30], [39, 58], [60, 45], [17, 90]]) {
    const fast = downscale(img, w!, h!);
    const ref = referenceDownscale(img, w!, h!);
    // Whole factors sum integers (exact); fractional ones carry float weights (within 1).
    const exact = 60 % w! === 0 && 90 % h! === 0 && 60 / w! === 90 / h!;
    assert.ok(maxDifference(fast.data, ref.data) <= (exact ? 0 : 1), `${w}×${h}`);
  }
});

pure(
  "whole-number reductions up to 8 are exact, a u32 or a byte at a time, near 255 and with alpha",
  () => {
    // Bright translucent noise: every lane sum is near its largest (64 × 255 at k = 8), so a carry
    // from one 16-bit lane into the next would show.
    const img = noiseScreen(48, 72);
    const { data } = img;
    for (let i = 0; i < data.length; i++) data[i] = 192 + (data[i - (i % 4 === 3 ? 3 : 0)]! & 63);
    // The same pixels one byte off 4-byte alignment: read a byte at a time.
    const shifted = new Uint8Array(img.data.length + 1).subarray(1);
    shifted.set(img.data);
    for (const k of [2, 3, 4, 8]) {
      const [w, h] = [48 / k, 72 / k];
      const ref = referenceDownscale(img, w, h);
      assert.deepEqual(downscale(img, w, h).data, ref.data, `aligned, k = ${k}`);
      assert.deepEqual(
        downscale({ ...img, data: shifted }, w, h).data,
        ref.data,
        `unaligned, k = ${k}`,
      );
    }
  },
);

/** Opaque pixels of seeded noise: every pair of bytes, above and below, in any order. */
function noise(width: number, height: number): RgbaImage {
  const data = new Uint8Array(width * height * 4);
  let seed = 1;
  for (let i = 0; i < data.length; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    data[i] = i % 4 === 3 ? 255 : seed >>> 24;
  }
  return { width, height, data };
}

pure("encoding reads pixels at any alignment to the same bytes", async () => {
  const images = [
    syntheticScreen(90, 200),
    gradient(33, 21),
    gradient(33, 21, false),
    noise(64, 48),
  ];
  for (const img of images) {
    const shifted = new Uint8Array(img.data.length + 1).subarray(1);
    shifted.set(img.data);
    const moved = { ...img, data: shifted };
    assert.deepEqual(encodePng(moved), encodePng(img));
    assert.deepEqual((await decodePng(encodePng(img))).data, img.data);
    // A frame whose pixels sit off alignment, as a caller's view may: upFiltered reads bytes.
    const frame = (image: typeof img) => ({ image, ...image, blank: null });
    const sizing = agentSizing({ maxEdge: 4000 }); // no reduction: the pixels are read as given
    assert.deepEqual(encodeFrame(frame(moved), sizing), encodeFrame(frame(img), sizing));
  }
});

pure("a raw BGRA or RGBX frame reduced by a whole number keeps red red and alpha opaque", () => {
  const img = noiseScreen(8, 8);
  const bgra = Array.from(img.data);
  for (let p = 0; p < bgra.length; p += 4) [bgra[p], bgra[p + 2]] = [bgra[p + 2]!, bgra[p]!];
  const half = () => ({ width: 4, height: 4 });
  const fromBgra = readRawScreencap(rawScreencap(8, 8, 5, bgra, 16), half);
  assert.deepEqual(fromBgra.image.data, downscale(img, 4, 4).data);
  const rgbx = Array.from(img.data, (v, i) => (i % 4 === 3 ? 7 : v));
  const fromRgbx = readRawScreencap(rawScreencap(8, 8, 2, rgbx, 12), half);
  assert.deepEqual(fromRgbx.image.data, downscale(img, 4, 4).data); // noiseScreen is opaque
});

pure(
  "readPngStream decodes and reduces in one pass to what decoding then downscaling gives",
  async () => {
    const screen = syntheticScreen(270, 600);
    for (const png of [writeFilteredPng(screen), encodePng(screen), fastPngEncode(screen)]) {
      const full = await decodePng(png);
      assert.deepEqual(full.data, screen.data);
      for (const [w, h] of [[135, 300], [176, 392], [270, 600]]) {
        const frame = await readPngStream(png, () => ({ width: w!, height: h! }));
        assert.deepEqual([frame.width, frame.height], [270, 600]);
        assert.deepEqual(frame.image.data, downscale(screen, w!, h!).data, `${w}×${h}`);
        assert.equal(frame.blank, null);
      }
    }
  },
);

pure(
  "readPngStream reads RGB and RGBA at every row filter, and other layouts through fast-png",
  async () => {
    const opaque = gradient(33, 21, false);
    const translucent = gradient(33, 21);
    // writeFilteredPng picks filters per row (None, Sub, Up, Average, Paeth all occur on a gradient).
    assert.deepEqual(
      (await readPngStream(writeFilteredPng(translucent))).image.data,
      translucent.data,
    );
    assert.deepEqual((await readPngStream(encodePng(opaque))).image.data, opaque.data);
    const grey = fastPngEncode({
      width: 4,
      height: 1,
      data: Uint8Array.of(0, 85, 170, 255),
      channels: 1,
    });
    assert.deepEqual(
      Array.from((await readPngStream(grey)).image.data),
      [0, 0, 0, 255, 85, 85, 85, 255, 170, 170, 170, 255, 255, 255, 255, 255],
    );
  },
);

pure("a frame knows it is blank from the full-size pixels, as blankFrameKind does", async () => {
  for (const img of [uniformScreen(200, 400, [0, 0, 0]), uniformScreen(200, 400, [40, 90, 200])]) {
    const frame = await readPngStream(encodePng(img), fitFor(agentSizing()));
    assert.equal(frame.blank, blankFrameKind(img));
    assert.notEqual(frame.blank, null);
  }
  // One light pixel off the reduced grid still makes the frame not blank.
  const dark = uniformScreen(200, 400, [0, 0, 0]);
  dark.data.set([255, 255, 255], (399 * 200 + 199) * 4);
  assert.equal(
    (await readPngStream(encodePng(dark), () => ({ width: 50, height: 100 }))).blank,
    null,
  );
  assert.equal(frameOf(darkScreenWithText(), fitFor(agentSizing())).blank, null);
});

pure(
  "readRawScreencap reduces every raw format in one pass, as decoding then downscaling does",
  () => {
    const pixels = Array.from({ length: 8 * 4 * 4 }, (_, i) => (i * 37) & 255);
    for (const format of [1, 2, 5]) {
      const raw = rawScreencap(8, 4, format, pixels, 16);
      const full = decodeRawScreencap(raw);
      const frame = readRawScreencap(raw, () => ({ width: 4, height: 2 }));
      assert.deepEqual(frame.image.data, downscale(full, 4, 2).data, `format ${format}`);
    }
    const rgb565 = rawScreencap(8, 4, 4, pixels.slice(0, 64), 12);
    assert.deepEqual(
      readRawScreencap(rgb565, () => ({ width: 2, height: 2 })).image.data,
      downscale(decodeRawScreencap(rgb565), 2, 2).data,
    );
  },
);

// A whole and a fractional factor, as JPEG (the photo, on a quarter of a phone's edge) and as PNG
// (flat UI, on half of it: smaller, JPEG would win); the production sizings on a 1080×2400 screen
// run in tests/long/image_corpus_test.ts.
pure(
  "encodeFrame gives the same image from a frame reduced while decoding as from the full one",
  async () => {
    const seen = new Set<string>();
    for (
      const screen of [syntheticScreen(270, 600), syntheticScreen(540, 1200, { photo: false })]
    ) {
      const png = encodePng(screen);
      const edge = Math.max(screen.width, screen.height);
      // Halved, and reduced by 1200/784 as a 1568 px vision edge reduces a 2400 px phone.
      for (
        const sizing of [
          agentSizing({ maxEdge: edge / 2 }),
          visionSizing({ maxEdge: edge * 784 / 1200 }),
        ]
      ) {
        const direct = encodeFrame(await readPngStream(png, fitFor(sizing)), sizing);
        const viaFull = encodeFrame(frameOf(screen), sizing);
        assert.deepEqual(
          [direct.mimeType, direct.width, direct.height, direct.scale, direct.sourceWidth],
          [viaFull.mimeType, viaFull.width, viaFull.height, viaFull.scale, viaFull.sourceWidth],
        );
        assert.deepEqual(direct.bytes, viaFull.bytes);
        seen.add(`${direct.mimeType} ×${direct.scale}`);
      }
    }
    // Each encoder at a whole (2) and at a fractional factor.
    assert.deepEqual([...seen].sort(), [
      "image/jpeg ×1.530612244897959",
      "image/jpeg ×2",
      "image/png ×1.530612244897959",
      "image/png ×2",
    ]);
  },
);

pure(
  "jpegMinBytes is a floor under every JPEG encodeJpeg writes, so a smaller PNG needs no JPEG",
  () => {
    // 135 px: the last column of 8×8 blocks is partly outside the image.
    for (
      const img of [uniformScreen(135, 300, [255, 255, 255]), uniformScreen(64, 64, [0, 0, 0])]
    ) {
      for (const q of [50, 80, 95]) {
        const jpeg = encodeJpeg(img, q);
        assert.ok(jpeg.length >= jpegMinBytes(img.width, img.height), `${img.width} q${q}`);
      }
    }
    // A plain screen's PNG is far under the floor: it is sent without a JPEG being encoded.
    const plain = uniformScreen(1080, 2400, [250, 250, 250]);
    for (let y = 300; y < 2400; y += 300) plain.data.fill(40, y * 1080 * 4, (y + 4) * 1080 * 4);
    const sent = prepareForAgent(plain);
    assert.equal(sent.mimeType, "image/png");
    assert.ok(sent.bytes.length <= jpegMinBytes(sent.width, sent.height));
  },
);

// --- the capture's streaming decode ------------------------------------------------------------

/** The ImageError code and message an async decode rejects with. */
async function rejection(
  work: Promise<unknown>,
): Promise<{ code: ImageErrorCode; message: string }> {
  try {
    await work;
  } catch (error) {
    assert.ok(error instanceof ImageError, `expected ImageError, got ${error}`);
    return { code: error.code, message: error.message };
  }
  throw new Error("the decode did not fail");
}

Deno.test({
  name: "readPngStream gives the frame of the pixels encoded, from one IDAT or many, at any size",
  permissions: "none",
  async fn() {
    const screen = syntheticScreen(270, 600);
    const translucent = gradient(33, 21);
    const pngs: Array<[Uint8Array, RgbaImage]> = [
      [writeFilteredPng(screen), screen],
      [encodePng(screen), screen],
      [encodePng(translucent), translucent],
    ];
    for (const [png, source] of pngs) {
      for (
        const fit of [undefined, fitFor(agentSizing({ maxEdge: 150 })), fitFor(visionSizing())]
      ) {
        const streamed = await readPngStream(png, fit);
        const whole = frameOf(source, fit);
        assert.deepEqual(
          [streamed.width, streamed.height, streamed.blank],
          [whole.width, whole.height, whole.blank],
        );
        assert.deepEqual(streamed.image, whole.image);
      }
    }
    const black = encodePng(uniformScreen(100, 200, [0, 0, 0]));
    assert.equal((await readPngStream(black, fitFor(agentSizing()))).blank, "black");
  },
});

Deno.test({
  name: "readPngStream undoes each row filter exactly",
  permissions: "none",
  async fn() {
    // Noise carries and borrows in every byte lane; each filter forced on every row.
    const img = noise(64, 48);
    for (const filter of [0, 1, 2, 3, 4]) {
      const png = writeFilteredPng(img, 6, [filter]);
      assert.deepEqual((await readPngStream(png)).image.data, img.data, `filter ${filter}`);
    }
  },
});

Deno.test({
  name: "readPngStream refuses a zlib bomb, short data and a broken stream",
  permissions: "none",
  async fn() {
    const rgba64 = ihdrBody(64, 64); // 16448 bytes once inflated
    const withData = (rows: Uint8Array) =>
      writePngChunks([["IHDR", rgba64], ["IDAT", new Uint8Array(deflateSync(rows))], END]);
    const broken = withData(new Uint8Array(16_448));
    broken.fill(0xa5, 8 + 25 + 8 + 2, 8 + 25 + 8 + 40);
    const cases: Array<[Uint8Array, ImageErrorCode, RegExp]> = [
      [
        writePngChunks([["IHDR", rgba64], ["IDAT", bomb()], END]),
        "CORRUPT",
        /inflates to more than the 16448 bytes/,
      ],
      [withData(new Uint8Array(16_449)), "CORRUPT", /more than the 16448/],
      [withData(new Uint8Array(16_447)), "CORRUPT", /16447 bytes, short of/],
      [broken, "CORRUPT", /take the screenshot again/],
      [writePngChunks([["IHDR", rgba64], END]), "EMPTY", /no IDAT chunk/],
      [new Uint8Array(0), "EMPTY", /0 bytes/],
    ];
    for (const [png, code, message] of cases) {
      const streamed = await rejection(readPngStream(png));
      assert.equal(streamed.code, code, streamed.message);
      assert.match(streamed.message, message);
    }
  },
});
