// Rows to a Frame: area-averaged down to the fit asked for as they arrive, and the one rule that
// calls a frame blank (one colour, ±2 per channel), read from the full-size rows on the way.
import type { Fit, Frame, RgbaImage } from "./frame.ts";

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
export interface RowLayout {
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
export function reduceRows(
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
 * rounding (half up). Two channels share one number in 16-bit lanes (bytes 0 and 2 in one, 1 and
 * 3 in the other; at most 64 × 255 = 16,320 per lane, so no lane carries into the next), so a pixel
 * costs two additions instead of four. Reading a pixel as one u32 word on top of this was timed in
 * bench/image_bench.ts (its capture-path note, interleaved rounds): 10.4 % and 6.6 % of the capture
 * path in two runs, not the 10 % a trick must show every time, so pixels are read a byte at a time.
 */
function blockSums(k: number, outW: number, channels: 3 | 4) {
  const area = k * k;
  const even = new Int32Array(outW); // bytes 0 and 2 of each pixel
  const odd = new Int32Array(outW); // bytes 1 and 3
  const average = new Uint8Array(area * 255 + 1);
  for (let sum = 0; sum < average.length; sum++) average[sum] = (sum + (area >> 1)) / area;
  let row = 0; // the source row within the current block
  return {
    /** Adds one source row, starting at `at` in `src`, into the sums. */
    add(src: Uint8Array, at: number): void {
      if (row === 0) {
        even.fill(0);
        odd.fill(0);
      }
      row = (row + 1) % k;
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
 * reads, from the full-size rows, whether the frame is blank (the rule BlankKind states), stopping
 * at the first pixel that differs, so a dark screen with one line of light text is never blank. Memory: the output and three float rows of output width.
 */
export function rowReducer(
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
