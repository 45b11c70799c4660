// The one PNG decoder: image data inflated as a stream, each row unfiltered and handed to the row
// reducer as soon as it is whole. Layouts screencap never writes go through png_other_layouts.ts.
import { errorText } from "../core/errors.ts";
import { releaseChunk } from "../core/bytes.ts";
import { type Fit, type Frame, ImageError } from "./frame.ts";
import { checkPngBeforeDecoding, checkPngStream } from "./png_chunks.ts";
import { unfilterRow } from "./png_unfilter.ts";
import { type RowReducer, rowReducer } from "./row_reducer.ts";

/**
 * The decoder of the layouts screencap never writes, loaded by the first PNG in one: it brings
 * fast-png and fflate, some 14 ms that the first screenshot of every process paid without using
 * them (a phone's screencap is 8-bit RGBA or RGB; bench/import_cost.ts, its first-screenshot line).
 */
const loadOtherLayouts = () => import("./png_other_layouts.ts");

/**
 * Inflated bytes each write to the inflater should yield: small enough that every output chunk is
 * a small allocation the allocator reuses from call to call, large enough that a 10 MB frame
 * takes some 160 writes.
 */
const INFLATE_CHUNK = 64 * 1024;

/**
 * Decodes a PNG into a Frame: reduced to `fit(width, height)` in the same pass that unfilters the
 * rows, and checked for a blank screen on the way. The image data is inflated as a stream (the
 * runtime's native DecompressionStream) and each row is unfiltered and reduced as soon as it is
 * whole, so the frame never exists at full size: two rows of it are in memory at a time, plus the
 * output. A 1080×2400 screenshot inflates to 10 MB, which a one-shot inflate would hold at once
 * (and the runtime frees only after a collection); streamed, the process stays within its memory
 * budget (bench/memory_bench.ts). Layouts screencap never writes go through readOtherLayout.
 *
 * Rejects, with a message that says what to do, empty output (some MIUI builds after long
 * sessions: an OEM quirk, docs/android.md, reported OEM quirks; no AOSP source shows it),
 * non-PNG bytes (often adb's own error text), truncated transfers and corrupt data.
 */
export async function readPngStream(bytes: Uint8Array, fit?: Fit): Promise<Frame> {
  const png = checkPngBeforeDecoding(bytes, checkPngStream(bytes));
  const { width, height, depth, colourType, interlace, keyed, zlib, expected } = png;
  if (!(depth === 8 && interlace === 0 && (colourType === 6 || (colourType === 2 && !keyed)))) {
    return (await loadOtherLayouts()).readOtherLayout(bytes, png, fit);
  }
  const channels = colourType === 6 ? 4 : 3;
  const reducer = rowReducer({
    width,
    height,
    layout: { channels, red: 0, blue: 2, opaque: channels === 3 },
    fit,
  });
  const rows = new RowAssembler({ stride: width * channels, bpp: channels }, reducer);
  // The stream's own ratio sets the slice: a flat screen inflates some 400-fold, a photo 8-fold.
  const slice = Math.max(256, Math.floor(INFLATE_CHUNK / Math.max(1, expected / zlib.length)));
  let total = 0;
  for await (const data of inflated(zlib, { slice })) {
    total += data.length;
    if (total > expected) {
      throw new ImageError(
        "CORRUPT",
        `PNG's image data inflates to more than the ${expected} bytes its ${width}×${height} header declares (a decompression bomb, not a screenshot): take the screenshot again`,
      );
    }
    rows.take(data);
    // Its rows are read: its pages go to the next chunk instead of waiting for a collection.
    releaseChunk(data);
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
 * `zlib` inflated by the runtime's native DecompressionStream, fed `slice` bytes at a time, as the
 * chunks it yields. Leaving the loop early cancels the stream and waits for the feeding to stop.
 */
async function* inflated(zlib: Uint8Array, how: { slice: number }): AsyncGenerator<Uint8Array> {
  const inflater = new DecompressionStream("deflate");
  const writer = inflater.writable.getWriter();
  const reader = inflater.readable.getReader();
  const feeding = (async () => {
    for (let at = 0; at < zlib.length; at += how.slice) {
      await writer.write(zlib.subarray(at, at + how.slice) as Uint8Array<ArrayBuffer>);
    }
    await writer.close();
  })().catch(() => {}); // a failure shows on the reading side
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        const detail = errorText(error);
        throw new ImageError(
          "CORRUPT",
          `PNG is whole but its compressed data cannot be inflated (${detail}); take the screenshot again`,
          { cause: error },
        );
      }
      if (chunk.done) return;
      yield chunk.value;
    }
  } finally {
    await reader.cancel().catch(() => {});
    await feeding;
  }
}

/**
 * Inflated bytes gathered into whole rows, each unfiltered against the row above as soon as it is
 * whole and pushed to the reducer. Two row buffers take turns, so the frame never exists at full
 * size. Each holds a row as the stream gives it: the filter byte, then the pixels from index 1.
 */
class RowAssembler {
  readonly #reducer: RowReducer;
  readonly #stride: number;
  readonly #bpp: number;
  #row: Uint8Array;
  #above: Uint8Array;
  #filled = 0;
  #y = 0;

  constructor(shape: { stride: number; bpp: number }, reducer: RowReducer) {
    this.#stride = shape.stride;
    this.#bpp = shape.bpp;
    this.#reducer = reducer;
    this.#row = new Uint8Array(shape.stride + 1);
    this.#above = new Uint8Array(shape.stride + 1);
  }

  take(data: Uint8Array): void {
    const rowBytes = this.#stride + 1;
    for (let at = 0; at < data.length;) {
      const take = Math.min(rowBytes - this.#filled, data.length - at);
      this.#row.set(data.subarray(at, at + take), this.#filled);
      this.#filled += take;
      at += take;
      if (this.#filled === rowBytes) this.#rowDone();
    }
  }

  #rowDone(): void {
    const row = this.#row;
    unfilterRow(row, this.#above, { stride: this.#stride, bpp: this.#bpp, y: this.#y });
    this.#reducer.push(row, 1);
    this.#row = this.#above;
    this.#above = row;
    this.#filled = 0;
    this.#y++;
  }
}
