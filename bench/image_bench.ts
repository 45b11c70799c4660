// Cost of each screenshot step on a realistic 1080×2400 phone frame, and the bytes each output
// format produces, and the whole capture path. Run: deno bench -P=test --no-prompt bench/image_bench.ts
import { base64Length, encodeFrame, encodeJpeg, encodePng, toBase64 } from "../lib/image/encode.ts";
import { isCompletePng } from "../lib/image/png_chunks.ts";
import { readPngStream } from "../lib/image/png_decode.ts";
import { decodeRawScreencap } from "../lib/image/raw_screencap.ts";
import { downscale } from "../lib/image/row_reducer.ts";
import { agentSizing, fitFor } from "../lib/image/sizing.ts";
import {
  blankFrameKind,
  decodePng,
  prepareForAgent,
  prepareForVision,
} from "../tests/fixtures/images/pipeline.ts";
import { ihdrBody, writeFilteredPng, writePngChunks } from "../sim/png_writer.ts";
import {
  darkScreenWithText,
  syntheticScreen,
  uniformScreen,
} from "../tests/fixtures/images/synthetic_screen.ts";

// --- hostile frames --------------------------------------------------------------------------
// What a compromised or broken phone can send in place of a screenshot. One case per fresh
// process, so its peak RSS is its own:
//   deno run -P=test --no-prompt bench/image_bench.ts --hostile=NAME
// prints the input size, the time decodePng/decodeRawScreencap took to answer, how it answered,
// and the process's peak RSS (VmHWM, Linux only) before and after that call: building an input
// streams it, so a peak that rises is the call's.

/** A zlib stream of `size` zero bytes, built in 1 MiB steps so the input never sits in memory. */
async function zlibZeros(size: number): Promise<Uint8Array> {
  const step = new Uint8Array(1 << 20);
  const stream = new CompressionStream("deflate");
  const writing = (async () => {
    const writer = stream.writable.getWriter();
    for (let left = size; left > 0; left -= step.length) {
      await writer.write(left >= step.length ? step : step.subarray(0, left));
    }
    await writer.close();
  })();
  const out = new Uint8Array(await new Response(stream.readable).arrayBuffer());
  await writing;
  return out;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** A zero-filled RGBA8 PNG's filtered data: one filter byte (0) and 4 bytes per pixel, per row. */
const rgbaDataSize = (width: number, height: number) => height * (1 + width * 4);
const tEXt = new TextEncoder().encode("Comment\0first chunk");
const HOSTILE: Record<string, () => Promise<Uint8Array>> = {
  // The issue's case: IHDR after a tEXt chunk escaped the pixel cap; 10000×10000 RGBA = 400 MB.
  "text-first": async () =>
    writePngChunks([
      ["tEXt", tEXt],
      ["IHDR", ihdrBody(10_000, 10_000)],
      ["IDAT", await zlibZeros(rgbaDataSize(10_000, 10_000))],
      ["IEND", new Uint8Array()],
    ]),
  // Under the pixel cap but no screen: one row 40 million pixels wide.
  "wide": async () =>
    writePngChunks([
      ["IHDR", ihdrBody(40_000_000, 1)],
      ["IDAT", await zlibZeros(rgbaDataSize(40_000_000, 1))],
      ["IEND", new Uint8Array()],
    ]),
  // An honest 1080×2400 header over image data that inflates to 1 GiB.
  "idat-bomb": async () =>
    writePngChunks([
      ["IHDR", ihdrBody(1080, 2400)],
      ["IDAT", await zlibZeros(1 << 30)],
      ["IEND", new Uint8Array()],
    ]),
  // A colour profile that inflates to 1 GiB in front of a 64×64 image.
  "iccp-bomb": async () =>
    writePngChunks([
      ["IHDR", ihdrBody(64, 64)],
      [
        "iCCP",
        concat(new TextEncoder().encode("icc\0\0"), await zlibZeros(1 << 30)),
      ],
      ["IDAT", await zlibZeros(rgbaDataSize(64, 64))],
      ["IEND", new Uint8Array()],
    ]),
  // A raw screencap header of 40,000,000×1 RGBA_8888 followed by exactly that many bytes.
  "raw-wide": () => {
    const raw = new Uint8Array(16 + 40_000_000 * 4).fill(0x7f); // bytes that really arrived
    const view = new DataView(raw.buffer);
    view.setUint32(0, 40_000_000, true);
    view.setUint32(4, 1, true);
    view.setUint32(8, 1, true);
    return Promise.resolve(raw);
  },
};

const hostileArg = Deno.args.find((a) => a.startsWith("--hostile="))?.slice("--hostile=".length);
if (hostileArg !== undefined) {
  const build = HOSTILE[hostileArg];
  if (!build) throw new Error(`--hostile= one of ${Object.keys(HOSTILE).join(", ")}`);
  const input = await build();
  const before = Deno.memoryUsage().rss;
  const t0 = performance.now();
  let outcome: string;
  try {
    const img = hostileArg.startsWith("raw") ? decodeRawScreencap(input) : await decodePng(input);
    outcome = `decoded ${img.width}×${img.height} (${img.data.length} bytes)`;
  } catch (error) {
    outcome = `refused: ${error instanceof Error ? `${error.name} ${error.message}` : error}`;
  }
  const ms = performance.now() - t0;
  // deno-lint-ignore no-console
  console.log(
    `${hostileArg}: input ${input.length} bytes; ${ms.toFixed(1)} ms; RSS ${
      (before / 2 ** 20).toFixed(0)
    } MiB before the call\n  ${outcome}`,
  );
  Deno.exit(0);
}

const screen = syntheticScreen(1080, 2400);
const screencapPng = writeFilteredPng(screen); // what `screencap -p` hands us
const rawHeader = new Uint8Array(16);
new DataView(rawHeader.buffer).setUint32(0, 1080, true);
new DataView(rawHeader.buffer).setUint32(4, 2400, true);
new DataView(rawHeader.buffer).setUint32(8, 1, true);
const raw = new Uint8Array(16 + screen.data.length);
raw.set(rawHeader);
raw.set(screen.data, 16);
const flatScreen = syntheticScreen(1080, 2400, { photo: false });
const agentSized = downscale(screen, 540, 1200);
const flatSized = downscale(flatScreen, 540, 1200);
const visionSized = downscale(screen, 706, 1568);
const dark = darkScreenWithText();
const black = uniformScreen(1080, 2400, [0, 0, 0]);

const sizes: Record<string, number> = {
  "screencap PNG 1080×2400 (filtered, zlib 6)": screencapPng.length,
  "encodePng 1080×2400": encodePng(screen).length,
  "encodePng 540×1200": encodePng(agentSized).length,
  "JPEG q70 540×1200": encodeJpeg(agentSized, 70).length,
  "JPEG q80 540×1200": encodeJpeg(agentSized, 80).length,
  "JPEG q90 540×1200": encodeJpeg(agentSized, 90).length,
  "flat UI: encodePng 540×1200": encodePng(flatSized).length,
  "flat UI: JPEG q80 540×1200": encodeJpeg(flatSized, 80).length,
  "encodePng 706×1568": encodePng(visionSized).length,
  "JPEG q85 706×1568": encodeJpeg(visionSized, 85).length,
  "prepareForAgent (photo screen → JPEG)": prepareForAgent(screen).bytes.length,
  "prepareForAgent (flat UI → PNG)": prepareForAgent(flatScreen).bytes.length,
  "prepareForVision (photo screen → JPEG)": prepareForVision(screen).bytes.length,
};
/**
 * deno bench reports mean and percentiles; the closing note wants medians, so we take them too
 * (with the minimum, which shows the cost on a quiet machine).
 */
async function medianOf(fn: () => unknown, runs = 11): Promise<{ median: number; min: number }> {
  await fn(); // warm-up: JIT and first allocation
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { median: times[runs >> 1]!, min: times[0]! };
}

async function medianMs(fn: () => unknown, runs = 11): Promise<string> {
  const { median, min } = await medianOf(fn, runs);
  return `${median.toFixed(1).padStart(7)}  (min ${min.toFixed(1)})`;
}

const medians: Record<string, string> = {
  "decodePng 1080×2400 screencap PNG": await medianMs(() => decodePng(screencapPng)),
  "decodeRawScreencap 1080×2400": await medianMs(() => decodeRawScreencap(raw)),
  "downscale → 540×1200": await medianMs(() => downscale(screen, 540, 1200)),
  "downscale → 706×1568": await medianMs(() => downscale(screen, 706, 1568)),
  "encodeJpeg q80 540×1200": await medianMs(() => encodeJpeg(agentSized, 80)),
  "encodePng 540×1200": await medianMs(() => encodePng(agentSized)),
  "encodeJpeg q85 706×1568": await medianMs(() => encodeJpeg(visionSized, 85)),
  "encodePng 706×1568": await medianMs(() => encodePng(visionSized)),
  "prepareForAgent (photo screen)": await medianMs(() => prepareForAgent(screen)),
  "prepareForAgent (flat UI screen)": await medianMs(() => prepareForAgent(flatScreen)),
  "prepareForVision (photo screen)": await medianMs(() => prepareForVision(screen)),
  "PNG → decode → prepareForAgent → base64": await medianMs(async () =>
    toBase64(prepareForAgent(await decodePng(screencapPng)).bytes)
  ),
};

// --- the capture path, and the byte-lane tricks it no longer has ------------------------------
// The capture path is what phone_shot does with the phone's PNG: decode straight to 540×1200,
// encode for the agent, base64 (the "whole" group below). Each u32 byte-lane trick the pipeline
// had was timed here against its byte loop (the same code on the same pixels one byte off 4-byte
// alignment), in interleaved rounds with the capture path so a busy machine slows all alike, and
// kept only if it saved at least 10 % of the capture path: Sub/Up/Average unfiltered on u32
// lanes saved 4.7 %, the encoder's Up filter on u32 words 0.5 %, the block reducer's u32 reads
// 10.4 % and then 6.6 % in a second run. All three went; the lines that timed them are in this
// file's git history.
const sizing = agentSizing();
async function capturePath(): Promise<void> {
  const frame = await readPngStream(screencapPng, fitFor(sizing));
  toBase64(encodeFrame(frame, sizing).bytes);
}
const capture = await medianOf(capturePath, 21);

// deno-lint-ignore no-console
console.log(
  [
    "output sizes (bytes, base64 chars):",
    ...Object.entries(sizes).map(([k, v]) =>
      `  ${k.padEnd(46)} ${String(v).padStart(9)}  ${String(base64Length(v)).padStart(9)}`
    ),
    "median of 11 runs, ms:",
    ...Object.entries(medians).map(([k, v]) => `  ${k.padEnd(46)} ${v}`),
    `capture path (readPngStream → 540×1200, encodeFrame, base64), 21 runs: ${
      capture.median.toFixed(1)
    } ms median (min ${capture.min.toFixed(1)})`,
  ].join("\n"),
);

Deno.bench("isCompletePng on a 1080×2400 screencap PNG", { group: "check" }, () => {
  isCompletePng(screencapPng);
});
// The blank rule runs inside the row reducer; frameOf (a full-size pass) shows its cost by screen.
Deno.bench("blank rule (frameOf) on a real screen", { group: "check" }, () => {
  blankFrameKind(screen);
});
Deno.bench("blank rule (frameOf) on a dark screen with one text line", { group: "check" }, () => {
  blankFrameKind(dark);
});
Deno.bench("blank rule (frameOf) on an all-black frame (the rule reads every pixel)", {
  group: "check",
}, () => {
  blankFrameKind(black);
});

Deno.bench("decodePng 1080×2400 screencap PNG", { group: "decode", baseline: true }, async () => {
  await decodePng(screencapPng);
});
Deno.bench("readPngStream 1080×2400 screencap PNG → 540×1200 (the capture path)", {
  group: "decode",
}, async () => {
  await readPngStream(screencapPng, fitFor(agentSizing()));
});
Deno.bench("decodeRawScreencap 1080×2400 RGBA_8888", { group: "decode" }, () => {
  decodeRawScreencap(raw);
});

Deno.bench("downscale 1080×2400 → 540×1200 (×2)", { group: "resize" }, () => {
  downscale(screen, 540, 1200);
});
Deno.bench("downscale 1080×2400 → 706×1568 (×1.53)", { group: "resize" }, () => {
  downscale(screen, 706, 1568);
});

Deno.bench("encodeJpeg q80 540×1200", { group: "encode", baseline: true }, () => {
  encodeJpeg(agentSized, 80);
});
Deno.bench("encodePng 540×1200", { group: "encode" }, () => {
  encodePng(agentSized);
});
Deno.bench("encodeJpeg q85 706×1568", { group: "encode" }, () => {
  encodeJpeg(visionSized, 85);
});
Deno.bench("encodePng 706×1568", { group: "encode" }, () => {
  encodePng(visionSized);
});

Deno.bench("prepareForAgent 1080×2400 → 540×1200 JPEG", { group: "whole" }, () => {
  prepareForAgent(screen);
});
Deno.bench("prepareForVision 1080×2400 → 706×1568 JPEG", { group: "whole" }, () => {
  prepareForVision(screen);
});
Deno.bench("screencap PNG → decode → prepareForAgent → base64", { group: "whole" }, async () => {
  toBase64(prepareForAgent(await decodePng(screencapPng)).bytes);
});
Deno.bench("capture path: readPngStream → 540×1200, encodeFrame, base64", {
  group: "whole",
}, capturePath);
Deno.bench("toBase64 of the 1080×2400 screencap PNG", { group: "whole" }, () => {
  toBase64(screencapPng);
});
