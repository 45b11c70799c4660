// Rows to a Frame: area-averaged down to the fit asked for as they arrive, and the one rule that
// calls a frame blank (one colour, ±2 per channel), read from the full-size rows on the way.
import type { BlankKind, Fit, Frame, RgbaImage } from "./frame.ts";
import { type RowLayout, type RowSink, rowSink, type Target } from "./row_sinks.ts";

const RGBA_LAYOUT: RowLayout = { channels: 4, red: 0, blue: 2, opaque: false };

/** Takes a frame's rows one at a time, top to bottom; finish() gives the Frame once all arrived. */
export interface RowReducer {
  /** The next row, laid out as the reducer's layout says, starting at `at` in `src`. */
  push(src: Uint8Array, at: number): void;
  finish(): Frame;
}

/** One source row of another layout widened to RGBA8 in `out` before it is read (RGB_565). */
export type RowConvert = (src: Uint8Array, at: number, out: Uint8Array) => void;

/** A frame whose rows arrive one at a time, and the size they are reduced to. */
export interface RowFrame {
  width: number;
  height: number;
  /** Where a source row keeps its colours (ignored when `convert` widens it to RGBA first). */
  layout: RowLayout;
  /** The size to reduce to, from the full size; full size when undefined. */
  fit?: Fit | undefined;
  convert?: RowConvert | undefined;
}

/** Where a frame's rows lie in one buffer: row y starts at first + y * step. */
export interface RowPlacement {
  first: number;
  step: number;
}

/**
 * Reads the rows of `frame` from `src`, placed as `rows` says, and returns them as RGBA8
 * (rowReducer).
 */
export function reduceRows(src: Uint8Array, rows: RowPlacement, frame: RowFrame): Frame {
  const reducer = rowReducer(frame);
  for (let y = 0; y < frame.height; y++) reducer.push(src, rows.first + y * rows.step);
  return reducer.finish();
}

/**
 * The blank rule (BlankKind) read from the full-size rows: the first pixel sets the colour, and
 * the first pixel beyond ±2 of it in any channel ends the watch, so a dark screen with one line of
 * light text is never blank.
 */
class BlankWatch {
  readonly #width: number;
  readonly #layout: RowLayout;
  #blank = true;
  #r0 = 0;
  #g0 = 0;
  #b0 = 0;

  constructor(width: number, layout: RowLayout) {
    this.#width = width;
    this.#layout = layout;
  }

  see(src: Uint8Array, at: number, y: number): void {
    const { channels, red, blue } = this.#layout;
    if (y === 0) {
      this.#r0 = src[at + red]!;
      this.#g0 = src[at + 1]!;
      this.#b0 = src[at + blue]!;
    }
    if (!this.#blank) return;
    const r0 = this.#r0, g0 = this.#g0, b0 = this.#b0;
    for (let x = 0, p = at; x < this.#width; x++, p += channels) {
      if (
        Math.abs(src[p + red]! - r0) > 2 || Math.abs(src[p + 1]! - g0) > 2 ||
        Math.abs(src[p + blue]! - b0) > 2
      ) {
        this.#blank = false;
        return;
      }
    }
  }

  kind(): BlankKind | null {
    if (!this.#blank) return null;
    return Math.max(this.#r0, this.#g0, this.#b0) <= 8 ? "black" : "uniform";
  }
}

/** The rows of one frame: widened if need be, watched for blankness, handed to their sink. */
class Reducer implements RowReducer {
  readonly #t: Target;
  readonly #sink: RowSink;
  readonly #blank: BlankWatch;
  readonly #convert: RowConvert | undefined;
  /** A converted row (RGB_565) lands here before it is read. */
  readonly #scratch: Uint8Array | undefined;
  #next = 0; // the next source row

  constructor(target: Target, convert: RowConvert | undefined) {
    this.#t = target;
    this.#convert = convert;
    this.#scratch = convert ? new Uint8Array(target.width * 4) : undefined;
    this.#blank = new BlankWatch(target.width, target.layout);
    this.#sink = rowSink(target);
  }

  push(src: Uint8Array, start: number): void {
    const y = this.#next++;
    let row = src, at = start;
    if (this.#convert && this.#scratch) {
      this.#convert(src, at, this.#scratch);
      row = this.#scratch;
      at = 0;
    }
    this.#blank.see(row, at, y);
    this.#sink.add(row, at, y);
  }

  finish(): Frame {
    const { out, width, height, outW, outH } = this.#t;
    if (this.#next !== height) {
      throw new Error(`rowReducer: ${this.#next} of ${height} rows pushed`);
    }
    return {
      image: { width: outW, height: outH, data: out },
      width,
      height,
      blank: this.#blank.kind(),
    };
  }
}

/**
 * Turns the rows of a `width`×`height` frame, pushed one by one, into RGBA8, area-averaged down to
 * `fit(width, height)` on the way (rowSink says how). Also reads, from the full-size rows, whether
 * the frame is blank (BlankWatch). Memory: the output and three float rows of output width.
 */
export function rowReducer(frame: RowFrame): RowReducer {
  const { width, height, fit, convert } = frame;
  const size = fit?.(width, height) ?? { width, height };
  const outW = size.width, outH = size.height;
  if (outW > width || outH > height || outW < 1 || outH < 1) {
    throw new RangeError(`downscale: ${width}×${height} → ${outW}×${outH} is not a reduction`);
  }
  const layout = convert ? RGBA_LAYOUT : frame.layout;
  const out = new Uint8Array(outW * outH * 4);
  return new Reducer({ out, width, height, outW, outH, layout }, convert);
}

/** A decoded RGBA image as a Frame: reduced to `fit` if given, blank-checked. */
export function frameOf(img: RgbaImage, fit?: Fit): Frame {
  return reduceRows(img.data, { first: 0, step: img.width * 4 }, {
    width: img.width,
    height: img.height,
    layout: RGBA_LAYOUT,
    fit,
  });
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
