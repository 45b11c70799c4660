// PNG's row filters undone (PNG spec 9.2), a row at a time as the stream delivers it, a byte at a
// time; Paeth on 4-byte pixels keeps its neighbours in locals.

// Sub, Up and Average once ran on u32 byte lanes (a pixel a word); bench/image_bench.ts, timing
// them against these byte loops in interleaved rounds, showed 4.7 % of the capture path saved,
// under the 10 % a trick must earn, so the plain loops stayed.
import { ImageError } from "./frame.ts";

/** A row's place in the image: its length in bytes (filter byte not counted), bytes per pixel, y. */
export interface RowShape {
  stride: number;
  bpp: number;
  y: number;
}

/**
 * Undoes row `y`'s filter in place: `row` holds its filter byte at 0 and its `stride` bytes from
 * 1, `above` the row above (already unfiltered) laid out the same way. Row 0 has no row above: Up
 * is then None, Average halves the left byte, Paeth is Sub.
 */
export function unfilterRow(row: Uint8Array, above: Uint8Array, shape: RowShape): void {
  const { stride, bpp, y } = shape;
  const at = 1;
  const end = at + stride;
  const filter = row[at - 1]!;
  const top = y === 0;
  switch (filter) {
    case 0:
      break;
    case 1:
      for (let i = at + bpp; i < end; i++) row[i] = row[i]! + row[i - bpp]!;
      break;
    case 2:
      if (!top) { for (let i = at; i < end; i++) row[i] = row[i]! + above[i]!; }
      break;
    case 3:
      if (top) {
        for (let i = at + bpp; i < end; i++) row[i] = row[i]! + (row[i - bpp]! >> 1);
        break;
      }
      for (let i = at; i < at + bpp; i++) row[i] = row[i]! + (above[i]! >> 1);
      for (let i = at + bpp; i < end; i++) {
        row[i] = row[i]! + ((row[i - bpp]! + above[i]!) >> 1);
      }
      break;
    case 4:
      if (top) {
        for (let i = at + bpp; i < end; i++) row[i] = row[i]! + row[i - bpp]!;
        break;
      }
      if (bpp === 4) {
        paethPixels(row, at, end, above);
        break;
      }
      // The first pixel has no left neighbour: Paeth then predicts the byte above.
      for (let i = at; i < at + bpp; i++) row[i] = row[i]! + above[i]!;
      for (let i = at + bpp; i < end; i++) {
        row[i] = row[i]! + paeth(row[i - bpp]!, above[i]!, above[i - bpp]!);
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
function paethPixels(row: Uint8Array, at: number, end: number, above: Uint8Array) {
  let a0 = 0, a1 = 0, a2 = 0, a3 = 0, c0 = 0, c1 = 0, c2 = 0, c3 = 0;
  for (let i = at; i < end; i += 4) {
    const b0 = above[i]!, b1 = above[i + 1]!, b2 = above[i + 2]!, b3 = above[i + 3]!;
    row[i] = a0 = (row[i]! + paeth(a0, b0, c0)) & 0xff;
    row[i + 1] = a1 = (row[i + 1]! + paeth(a1, b1, c1)) & 0xff;
    row[i + 2] = a2 = (row[i + 2]! + paeth(a2, b2, c2)) & 0xff;
    row[i + 3] = a3 = (row[i + 3]! + paeth(a3, b3, c3)) & 0xff;
    c0 = b0, c1 = b1, c2 = b2, c3 = b3;
  }
}
