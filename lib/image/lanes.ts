// Byte-lane arithmetic: a pixel's four bytes read as one 32-bit word, and bytewise sums and
// differences on such words. Used by the unfilter, the block reducer and the PNG encoder.

/** Every host Deno builds for is little-endian: a pixel's four bytes read as one u32, byte 0 lowest. */
const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/**
 * RGBA bytes as one 32-bit word a pixel (red in the low byte), so a loop over pixels does one read
 * where it would do four; undefined when the bytes are not 4-byte aligned (a typed array must be)
 * or the host is big-endian, and the caller reads bytes instead. Signed: an opaque pixel is 2^31 or
 * more as a u32, which V8 holds as a double, and the loops here ran at about half speed on it;
 * as an int32 it stays an integer, and the bit operations read the same bits.
 */
export function pixelWords(
  data: Uint8Array,
  at = 0,
  pixels = (data.length - at) >> 2,
): Int32Array | undefined {
  if (!LITTLE_ENDIAN || (data.byteOffset + at) % 4 !== 0) return undefined;
  return new Int32Array(data.buffer, data.byteOffset + at, pixels);
}

/**
 * The low seven bits of each byte of a word, and the high one: the lanes of the bytewise sums and
 * differences below (Hacker's Delight, 2-18), which PNG's filters take a pixel at a time.
 */
const LANE_LOW = 0x7f7f7f7f;
const LANE_HIGH = 0x80808080 | 0;

/** The four byte lanes of `a` and `b` added, each mod 256, with no carry between lanes. */
export function laneSum(a: number, b: number): number {
  return ((a & LANE_LOW) + (b & LANE_LOW)) ^ ((a ^ b) & LANE_HIGH);
}

/** Each byte lane of `a` minus the same lane of `b`, mod 256, with no borrow between lanes. */
export function laneDifference(a: number, b: number): number {
  return ((a | LANE_HIGH) - (b & LANE_LOW)) ^ ((a ^ ~b) & LANE_HIGH);
}
