// Raw `screencap` frames (no -p): the 12- or 16-byte header, the pixel formats screencap writes,
// and their rows handed to the row reducer straight from the phone's bytes.
import { checkDimensions, type Fit, type Frame, ImageError, type RgbaImage } from "./frame.ts";
import { reduceRows } from "./row_reducer.ts";
import type { RowLayout } from "./row_sinks.ts";

function u32le(bytes: Uint8Array, at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>>
    0;
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
  return reduceRows(bytes, { first: header, step: rowBytes }, {
    width,
    height,
    layout: RAW_LAYOUTS[format]!,
    fit,
    convert,
  });
}
