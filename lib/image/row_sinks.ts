// How rows become output pixels once read: copied at full size, summed in whole-number blocks, or
// area-averaged by coverage weights. rowSink picks one per frame; row_reducer.ts feeds it.
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

/** What a row sink writes into: the output pixels, both sizes, and how a source row is laid out. */
export interface Target {
  out: Uint8Array;
  width: number;
  height: number;
  outW: number;
  outH: number;
  layout: RowLayout;
}

/** Where a reducer's rows go once read: each way of reducing writes the output its own way. */
export interface RowSink {
  /** Source row `y`, laid out as the target says, starting at `at` in `src`. */
  add(src: Uint8Array, at: number, y: number): void;
}

/** Full size: each row copied out as RGBA. */
class CopiedRows implements RowSink {
  readonly #t: Target;

  constructor(target: Target) {
    this.#t = target;
  }

  add(src: Uint8Array, at: number, y: number): void {
    const { out, width, layout: { channels, red, blue, opaque } } = this.#t;
    for (let x = 0, p = at, o = y * width * 4; x < width; x++, p += channels, o += 4) {
      out[o] = src[p + red]!;
      out[o + 1] = src[p + 1]!;
      out[o + 2] = src[p + blue]!;
      out[o + 3] = opaque ? 255 : src[p + 3]!;
    }
  }
}

/**
 * A whole-number reduction by `k` (k ≤ 8): each output pixel's k×k source pixels added up as
 * integers, rows at a time, then averaged by a lookup table with the weighted path's rounding
 * (half up). Two channels share one number in 16-bit lanes (bytes 0 and 2 in one, 1 and 3 in the
 * other; at most 64 × 255 = 16,320 per lane, so no lane carries into the next), so a pixel costs
 * two additions instead of four. Reading a pixel as one u32 word on top of this was timed in
 * bench/image_bench.ts (its capture-path note, interleaved rounds): 10.4 % and 6.6 % of the capture
 * path in two runs, not the 10 % a trick must show every time, so pixels are read a byte at a time.
 */
class BlockRows implements RowSink {
  readonly #t: Target;
  readonly #k: number;
  readonly #even: Int32Array; // bytes 0 and 2 of each pixel
  readonly #odd: Int32Array; // bytes 1 and 3
  readonly #average: Uint8Array;
  #row = 0; // the source row within the current block
  #done = 0; // output rows written

  constructor(target: Target, k: number) {
    this.#t = target;
    this.#k = k;
    this.#even = new Int32Array(target.outW);
    this.#odd = new Int32Array(target.outW);
    const area = k * k;
    const average = new Uint8Array(area * 255 + 1);
    for (let sum = 0; sum < average.length; sum++) average[sum] = (sum + (area >> 1)) / area;
    this.#average = average;
  }

  add(src: Uint8Array, at: number, y: number): void {
    this.#sum(src, at);
    if ((y + 1) % this.#k === 0) this.#emit(this.#done++ * this.#t.outW * 4);
  }

  /** Adds one source row, starting at `at` in `src`, into the sums (the block's first resets them). */
  #sum(src: Uint8Array, at: number): void {
    const even = this.#even, odd = this.#odd, k = this.#k;
    const { outW, layout: { channels } } = this.#t;
    if (this.#row === 0) {
      even.fill(0);
      odd.fill(0);
    }
    this.#row = (this.#row + 1) % k;
    for (let ox = 0, p = at; ox < outW; ox++) {
      let lo = 0, hi = 0;
      for (let j = 0; j < k; j++, p += channels) {
        lo += src[p]! | (src[p + 2]! << 16);
        hi += channels === 4 ? src[p + 1]! | (src[p + 3]! << 16) : src[p + 1]!;
      }
      even[ox]! += lo;
      odd[ox]! += hi;
    }
  }

  /** Writes the averaged row as RGBA from `o` in the output; red sits at byte 0, or 2 for BGRA. */
  #emit(o: number): void {
    const even = this.#even, odd = this.#odd, average = this.#average;
    const { out, outW, layout: { red, opaque } } = this.#t;
    for (let ox = 0; ox < outW; ox++, o += 4) {
      const lo = even[ox]!, hi = odd[ox]!;
      const first = average[lo & 0xffff]!, third = average[lo >>> 16]!;
      out[o] = red === 0 ? first : third;
      out[o + 1] = average[hi & 0xffff]!;
      out[o + 2] = red === 0 ? third : first;
      out[o + 3] = opaque ? 255 : average[hi >>> 16]!;
    }
  }
}

/**
 * Any other reduction, by coverage weights (boxWeights): a horizontal pass per source row into one
 * float row, then added into the one or two output rows that source row overlaps (never more,
 * since an output row spans at least one source row). Memory: three float rows of output width.
 */
class WeightedRows implements RowSink {
  readonly #t: Target;
  // Per source row: the first output row it feeds and its weight there, and its weight in the
  // next output row (0 when it feeds one). lastOf[oy]: the source row that completes output oy.
  readonly #firstOut: Int32Array;
  readonly #w0: Float32Array;
  readonly #w1: Float32Array;
  readonly #lastOf: Int32Array;
  // The horizontal taps as byte offsets into a row.
  readonly #xStart: Int32Array;
  readonly #xWeight: Float32Array;
  readonly #xOffset: Int32Array;
  readonly #line: Float32Array;
  readonly #even: Float32Array;
  readonly #odd: Float32Array;
  #done = 0; // output rows written

  constructor(target: Target) {
    this.#t = target;
    const { width, height, outW, outH, layout } = target;
    const xs = boxWeights(width, outW);
    const ys = boxWeights(height, outH);
    this.#firstOut = new Int32Array(height).fill(-1);
    this.#w0 = new Float32Array(height);
    this.#w1 = new Float32Array(height);
    this.#lastOf = new Int32Array(outH);
    for (let oy = 0; oy < outH; oy++) {
      for (let t = ys.start[oy]!; t < ys.start[oy + 1]!; t++) {
        const s = ys.index[t]!;
        if (this.#firstOut[s] === -1) {
          this.#firstOut[s] = oy;
          this.#w0[s] = ys.weight[t]!;
        } else this.#w1[s] = ys.weight[t]!;
        this.#lastOf[oy] = s;
      }
    }
    this.#xStart = xs.start;
    this.#xWeight = xs.weight;
    this.#xOffset = xs.index.map((x) => x * layout.channels);
    const rowLen = outW * 4;
    this.#line = new Float32Array(rowLen);
    this.#even = new Float32Array(rowLen);
    this.#odd = new Float32Array(rowLen);
  }

  add(src: Uint8Array, at: number, y: number): void {
    this.#across(src, at);
    this.#down(y);
    this.#writeCompleted(y);
  }

  /** The accumulator of output row `row`: two alternate, since a source row feeds at most two. */
  #acc(row: number): Float32Array {
    return row & 1 ? this.#odd : this.#even;
  }

  /** The horizontal pass: source row at `at` weighted into #line, at output width. */
  #across(src: Uint8Array, at: number): void {
    const { outW, layout: { red, blue, opaque } } = this.#t;
    const xStart = this.#xStart, xWeight = this.#xWeight, xOffset = this.#xOffset;
    const line = this.#line;
    const ar = at + red, ag = at + 1, ab = at + blue, aa = at + 3;
    for (let ox = 0, o = 0, t = xStart[0]!; ox < outW; ox++, o += 4) {
      let r = 0, g = 0, b = 0, a = 0;
      for (const stop = xStart[ox + 1]!; t < stop; t++) {
        const w = xWeight[t]!;
        const p = xOffset[t]!;
        r += src[ar + p]! * w;
        g += src[ag + p]! * w;
        b += src[ab + p]! * w;
        if (!opaque) a += src[aa + p]! * w;
      }
      line[o] = r;
      line[o + 1] = g;
      line[o + 2] = b;
      line[o + 3] = a;
    }
  }

  /** The vertical pass: #line added into the output rows source row `y` overlaps. */
  #down(y: number): void {
    const line = this.#line, rowLen = line.length;
    const oy = this.#firstOut[y]!;
    const into = this.#acc(oy), wa = this.#w0[y]!;
    for (let i = 0; i < rowLen; i++) into[i]! += line[i]! * wa;
    const wb = this.#w1[y]!;
    if (wb > 0) {
      const next = this.#acc(oy + 1);
      for (let i = 0; i < rowLen; i++) next[i]! += line[i]! * wb;
    }
  }

  /** Writes out every output row that source row `y` completes, and clears its accumulator. */
  #writeCompleted(y: number): void {
    const { out, outH, layout: { opaque } } = this.#t;
    const rowLen = this.#line.length;
    while (this.#done < outH && this.#lastOf[this.#done] === y) {
      const from = this.#acc(this.#done);
      const o = this.#done * rowLen;
      // Weights sum to 1, so each value is within [0, 255 + float noise]; +0.5 rounds.
      for (let i = 0; i < rowLen; i++) out[o + i] = Math.min(255, from[i]! + 0.5);
      if (opaque) { for (let i = o + 3; i < o + rowLen; i += 4) out[i] = 255; }
      from.fill(0);
      this.#done++;
    }
  }
}

/**
 * How a target's rows are reduced: copied at full size; by integer block sums when the factor is
 * the same whole number up to 8 on both sides (a 1080×2400 screen to 540×1200 is 2), exact and
 * several times faster than the weights; otherwise by coverage weights.
 */
export function rowSink(target: Target): RowSink {
  const { width, height, outW, outH } = target;
  if (outW === width && outH === height) return new CopiedRows(target);
  const k = width / outW;
  if (k === height / outH && Number.isInteger(k) && k <= 8) return new BlockRows(target, k);
  return new WeightedRows(target);
}
