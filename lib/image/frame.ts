// What the image pipeline hands around: RGBA pixels, a decoded Frame with its blankness, the fit a
// decode reduces to, and the one error type with the size bounds every decoder checks first.
import { AgentError } from "../core/errors.ts";

/** 8-bit RGBA, row-major, 4 bytes per pixel, no row padding. */
export interface RgbaImage {
  width: number;
  height: number;
  data: Uint8Array;
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

export function checkDimensions(width: number, height: number, what: string): void {
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

/** A screenshot's pixels as one consumer needs them, with what the full frame showed. */
export interface Frame {
  /** The pixels, already reduced to the size `fit` asked for (full size without one). */
  image: RgbaImage;
  /** The screenshot's own size: the device's pixels in its current orientation. */
  width: number;
  height: number;
  /** Whether the full frame is blank (BlankKind), read from its full-size rows while decoding. */
  blank: BlankKind | null;
}

/**
 * A blank frame: every pixel one colour within ±2 per channel (which absorbs dithering), "black"
 * when that colour is at most 8 in every channel. What a switched-off screen gives, and a
 * FLAG_SECURE window on releases that paint secure layers black instead of refusing the capture
 * (docs/android.md, screencap: Android 16, maybe 15). The row reducer applies the rule.
 */
export type BlankKind = "black" | "uniform";

/** The size to reduce a `width`×`height` frame to while it is decoded (never larger). */
export type Fit = (width: number, height: number) => { width: number; height: number };
