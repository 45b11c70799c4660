// Turns the simulated screen into what the phone's tools print: uiautomator XML (full and
// --compressed), RGBA pixels, a PNG, and screencap's raw format. Pure.

import { deflateSync, inflateSync } from "node:zlib";
import { concatBytes } from "../lib/core/bytes.ts";
import { APPS, chromeOf, type Size, type UiNode } from "./screen.ts";
import { drawText, textWidth } from "./font.ts";
import { pngChunk } from "./png_writer.ts";

// uiautomator writes attributes through Android's XmlSerializer (KXmlSerializer): &, <, > and the
// quote become entities, tab, newline and carriage return numeric references, so a newline in a
// text field survives the round trip. The dumper first turns the other control characters into
// "." (AccessibilityNodeInfoDumper.stripInvalidXMLChars); the sim writes them as references too.
// https://github.com/CyanogenMod/android_libcore/blob/ccedfac1d04b7f9c4df4a144f80283f7af69a9d6/xml/src/main/java/org/kxml2/io/KXmlSerializer.java
// https://github.com/aosp-mirror/platform_frameworks_base/blob/4fecab570da64a1956352aedf1b3245d3ba26030/cmds/uiautomator/library/core-src/com/android/uiautomator/core/AccessibilityNodeInfoDumper.java
export function escapeXmlAttr(value: string): string {
  // deno-lint-ignore no-control-regex
  return value.replace(/[&<>"\x00-\x1f]/g, (c) => {
    switch (c) {
      case "&":
        return "&amp;";
      case "<":
        return "&lt;";
      case ">":
        return "&gt;";
      case '"':
        return "&quot;";
      default:
        return `&#${c.charCodeAt(0)};`;
    }
  });
}

/** Which dump to write: `uiautomator dump`, or `--compressed` without the layout-only views. */
export interface XmlDump {
  compressed: boolean;
}

function nodeXml(n: UiNode, index: number, dump: XmlDump): string {
  const [x1, y1, x2, y2] = n.bounds;
  const attrs = `index="${index}" text="${escapeXmlAttr(n.text)}" ` +
    `resource-id="${escapeXmlAttr(n.id)}" class="${n.cls}" package="${n.pkg}" ` +
    `content-desc="${escapeXmlAttr(n.desc)}" checkable="${n.checkable}" checked="${n.checked}" ` +
    `clickable="${n.clickable}" enabled="${n.enabled}" focusable="${n.focusable}" ` +
    `focused="${n.focused}" scrollable="${n.scrollable}" long-clickable="${n.longClickable}" ` +
    `password="${n.password}" selected="${n.selected}" bounds="[${x1},${y1}][${x2},${y2}]"`;
  const kids = childrenFor(n, dump).map((c, i) => nodeXml(c, i, dump)).join("");
  return kids === "" ? `<node ${attrs} />` : `<node ${attrs}>${kids}</node>`;
}

// --compressed leaves out views that only lay others out, lifting their children up: on a phone
// it clears FLAG_INCLUDE_NOT_IMPORTANT_VIEWS (UiAutomationShellWrapper.setCompressedLayoutHierarchy,
// https://github.com/aosp-mirror/platform_frameworks_base/blob/4fecab570da64a1956352aedf1b3245d3ba26030/cmds/uiautomator/library/testrunner-src/com/android/uiautomator/core/UiAutomationShellWrapper.java).
function childrenFor(n: UiNode, dump: XmlDump): UiNode[] {
  if (!dump.compressed) return n.children;
  return n.children.flatMap((c) => c.layoutOnly ? childrenFor(c, dump) : [c]);
}

export function renderXml(root: UiNode, dump: XmlDump): string {
  const top = dump.compressed && root.layoutOnly ? childrenFor(root, dump) : [root];
  return "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>" +
    `<hierarchy rotation="0">${top.map((n, i) => nodeXml(n, i, dump)).join("")}</hierarchy>`;
}

/** An RGBA canvas; `put` takes 0xRRGGBB. */
export class Canvas {
  readonly width: number;
  readonly height: number;
  readonly data: Uint8Array;
  readonly #px: Uint32Array;

  constructor(size: Size) {
    this.width = size.width;
    this.height = size.height;
    this.data = new Uint8Array(size.width * size.height * 4);
    this.#px = new Uint32Array(this.data.buffer);
    this.#px.fill(pixel(0));
  }

  rect(x1: number, y1: number, x2: number, y2: number, rgb: number): void {
    const xa = Math.max(0, Math.round(x1));
    const xb = Math.min(this.width, Math.round(x2));
    const ya = Math.max(0, Math.round(y1));
    const yb = Math.min(this.height, Math.round(y2));
    if (xa >= xb) return;
    const v = pixel(rgb);
    for (let y = ya; y < yb; y++) this.#px.fill(v, y * this.width + xa, y * this.width + xb);
  }

  /**
   * A photo-like area: a dusk sky over water in smooth gradients, plus per-pixel sensor noise
   * from a seeded xorshift, so it is the same on every run. Real photos are what make the image
   * budget choose JPEG (lib/image.ts encodeFrame): their rows are not flat, and PNG cannot shrink
   * the noise.
   */
  photo(x1: number, y1: number, x2: number, y2: number, seed: number): void {
    const xa = Math.max(0, Math.round(x1));
    const xb = Math.min(this.width, Math.round(x2));
    const ya = Math.max(0, Math.round(y1));
    const yb = Math.min(this.height, Math.round(y2));
    let r = (seed >>> 0) || 1;
    const span = Math.max(1, yb - ya);
    const horizon = ya + Math.round(span * 0.55);
    for (let y = ya; y < yb; y++) {
      const t = (y - ya) / span;
      const water = y >= horizon;
      // Sky: orange near the horizon, deep blue at the top; water: dark teal.
      const br = water ? 30 + 40 * (1 - t) : 40 + 200 * t;
      const bg = water ? 70 + 30 * (1 - t) : 40 + 90 * t;
      const bb = water ? 90 + 20 * t : 120 - 60 * t;
      const row = y * this.width;
      for (let x = xa; x < xb; x++) {
        r ^= r << 13;
        r ^= r >>> 17;
        r ^= r << 5;
        const n = ((r >>> 0) % 49) - 24;
        const wave = water ? 12 * Math.sin((x + y * 3) / 9) : 0;
        this.#px[row + x] = pixel(
          clampByte(br + n + wave) << 16 | clampByte(bg + n + wave) << 8 | clampByte(bb + n),
        );
      }
    }
  }

  frame(x1: number, y1: number, x2: number, y2: number, t: number, rgb: number): void {
    this.rect(x1, y1, x2, y1 + t, rgb);
    this.rect(x1, y2 - t, x2, y2, rgb);
    this.rect(x1, y1, x1 + t, y2, rgb);
    this.rect(x2 - t, y1, x2, y2, rgb);
  }
}

function clampByte(v: number): number {
  return v < 0 ? 0 : v > 255 ? 255 : Math.round(v);
}

// Pixels are RGBA in memory; on a little-endian host a u32 holds them as 0xAABBGGRR.
function pixel(rgb: number): number {
  const r = rgb >>> 16 & 0xff;
  const g = rgb >>> 8 & 0xff;
  const b = rgb & 0xff;
  return (0xff000000 | b << 16 | g << 8 | r) >>> 0;
}

function drawNode(c: Canvas, n: UiNode, scale: number): void {
  const [x1, y1, x2, y2] = n.bounds;
  if (n.fill !== undefined) c.rect(x1, y1, x2, y2, n.fill);
  if (n.photo !== undefined) c.photo(x1, y1, x2, y2, n.photo);
  if (n.cls === "android.widget.EditText") {
    c.frame(x1, y1, x2, y2, Math.max(2, Math.round(4 * scale)), n.focused ? 0x1a73e8 : 0xbdc1c6);
  }
  const icon = n.onTap?.kind === "open" ? APPS.find((a) => a.label === n.text) : undefined;
  if (icon) {
    // A launcher cell: a coloured tile with the label under it.
    const side = Math.round(170 * scale);
    const cx = (x1 + x2) / 2;
    c.rect(cx - side / 2, y1 + 30 * scale, cx + side / 2, y1 + 30 * scale + side, icon.color);
    const h = 36 * scale;
    const x = Math.max(x1, cx - textWidth(n.text, h) / 2);
    drawText(c, n.text, { x, y: y1 + 60 * scale + side, maxX: x2, height: h, rgb: 0xffffff });
  } else if (n.onTap?.kind === "shutter") {
    const inset = Math.round(30 * scale);
    c.rect(x1 + inset, y1 + inset, x2 - inset, y2 - inset, 0xd93025);
  } else if (n.text && n.ink !== undefined) {
    const h = Math.min((y2 - y1) * 0.6, 40 * scale);
    const pad = Math.round(24 * scale);
    if (n.cls === "android.widget.EditText") {
      const box = { x: x1 + pad, y: y1 + pad, maxX: x2 - pad, height: h, maxY: y2 - pad };
      drawText(c, n.text, { ...box, rgb: n.ink });
    } else {
      const box = { x: x1 + pad, y: y1 + (y2 - y1 - h) / 2, maxX: x2 - pad, height: h };
      drawText(c, n.text, { ...box, rgb: n.ink });
    }
  }
  for (const child of n.children) drawNode(c, child, scale);
}

/** What renderPixels paints over the views: nothing by default. */
export interface PixelPaint {
  /** The whole screen black (the sim's black-frame fault): no views, no bars. */
  black?: boolean;
  /** The app's window black, the bars drawn. */
  secureBlack?: boolean;
}

/**
 * Draws the screen: the app's views plus the System UI bars that uiautomator does not dump.
 * `secureBlack` paints the app's window black and leaves the bars: what a capture shows of a
 * FLAG_SECURE window on Android 15+, which blacks out secure layers (docs/android.md, screencap).
 */
export function renderPixels(root: UiNode, size: Size, paint: PixelPaint = {}): Canvas {
  const { black = false, secureBlack = false } = paint;
  const c = new Canvas(size);
  if (black) return c;
  const scale = size.width / 1080;
  drawNode(c, root, scale);
  const { statusBar, navBar } = chromeOf(size);
  if (secureBlack) c.rect(0, statusBar, size.width, size.height - navBar, 0x000000);
  c.rect(0, 0, size.width, statusBar, 0x000000);
  drawText(c, "12:00", {
    x: 30 * scale,
    y: statusBar * 0.25,
    maxX: size.width / 2,
    height: statusBar * 0.5,
    rgb: 0xffffff,
  });
  c.rect(
    size.width - 200 * scale,
    statusBar * 0.3,
    size.width - 40 * scale,
    statusBar * 0.7,
    0xffffff,
  );
  const navTop = size.height - navBar;
  c.rect(0, navTop, size.width, size.height, 0x000000);
  const mid = navTop + navBar / 2;
  const k = navBar * 0.18;
  for (const [i, shape] of [[1, "back"], [3, "home"], [5, "recents"]] as const) {
    const cx = (size.width * i) / 6;
    if (shape === "home") c.frame(cx - k, mid - k, cx + k, mid + k, Math.max(2, k / 4), 0xdddddd);
    else if (shape === "recents") {
      c.rect(cx - k * 0.8, mid - k * 0.8, cx + k * 0.8, mid + k * 0.8, 0xdddddd);
    } else {
      for (let d = 0; d < k; d++) {
        c.rect(cx - k + d, mid - d / 1.2, cx - k + d + 2, mid + d / 1.2, 0xdddddd);
      }
    }
  }
  return c;
}

/**
 * A frame caught mid-launch: the new screen drawn down to `share` of the height, the old one
 * still below. A phone's screenshot of an app that is still drawing looks like neither screen.
 */
export function halfDrawn(next: Canvas, previous: Canvas, share = 0.5): Canvas {
  const cut = Math.round(next.height * share) * next.width * 4;
  next.data.set(previous.data.subarray(cut), cut);
  return next;
}

/**
 * The rows as a PNG stores them, each behind its filter byte; kept from frame to frame because a
 * fresh 10 MB array costs more in page faults than deflating it does.
 */
let scratchRows = new Uint8Array(0);

/**
 * The canvas as an RGBA PNG, 8 bits a channel: signature, IHDR, one IDAT, IEND. Every row has
 * filter 0 (none), and the runtime's native zlib deflates them at level 3, as fast-png (which
 * wrote the sim's frames before) does with fflate.
 */
export function encodePng(c: Canvas): Uint8Array {
  const stride = c.width * 4;
  const size = (stride + 1) * c.height;
  if (scratchRows.length < size) scratchRows = new Uint8Array(size);
  const rows = scratchRows.subarray(0, size);
  for (let y = 0, at = 0; y < c.height; y++, at += stride + 1) {
    rows[at] = 0;
    rows.set(c.data.subarray(y * stride, (y + 1) * stride), at + 1);
  }
  const ihdr = new Uint8Array(13);
  const view = new DataView(ihdr.buffer);
  view.setUint32(0, c.width);
  view.setUint32(4, c.height);
  ihdr.set([8, 6, 0, 0, 0], 8); // depth, colour type RGBA, compression, filter method, no interlace
  return concatBytes([
    PNG_SIGNATURE,
    pngChunk("IHDR", ihdr),
    pngChunk("IDAT", deflateSync(rows, { level: 3 })),
    pngChunk("IEND", new Uint8Array(0)),
  ]);
}

const PNG_SIGNATURE = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]);

/**
 * `screencap` without -p: little-endian u32 width, height, format (1 = RGBA_8888), then, on
 * newer builds, a fourth u32 colour space (1 = sRGB), then the rows of pixels, as
 * https://github.com/aosp-mirror/platform_frameworks_base/blob/c3c40e691dca0c2d82550ebb8dc50159938521a3/cmds/screencap/screencap.cpp
 * writes them (see lib/image/raw_screencap.ts decodeRawScreencap for the older 12-byte header).
 * Made from the frame's PNG, as encodePng wrote it (filter 0 on every row), so a phone keeps only
 * the PNG and writes this 10 MB form when a command asks for it.
 */
export function rawScreencap(png: Uint8Array, headerBytes: 12 | 16): Uint8Array {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const width = view.getUint32(16);
  const height = view.getUint32(20);
  const idat: Uint8Array[] = [];
  for (let at = 8; at + 12 <= png.length;) {
    const len = view.getUint32(at);
    if (String.fromCharCode(...png.subarray(at + 4, at + 8)) === "IDAT") {
      idat.push(png.subarray(at + 8, at + 8 + len));
    }
    at += 12 + len;
  }
  const rows = inflateSync(idat.length === 1 ? idat[0]! : concatBytes(idat));
  const stride = width * 4;
  const out = new Uint8Array(headerBytes + stride * height);
  const head = new DataView(out.buffer);
  head.setUint32(0, width, true);
  head.setUint32(4, height, true);
  head.setUint32(8, 1, true);
  if (headerBytes === 16) head.setUint32(12, 1, true);
  for (let y = 0, from = 0; y < height; y++, from += stride + 1) {
    if (rows[from] !== 0) throw new Error(`rawScreencap: row ${y} has filter ${rows[from]}, not 0`);
    out.set(rows.subarray(from + 1, from + 1 + stride), headerBytes + y * stride);
  }
  return out;
}

/** The PNG with its pixel data removed: signature, IHDR and IEND only. Valid chunks, no image. */
export function headerOnlyPng(png: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [png.subarray(0, 8)];
  let at = 8;
  while (at + 12 <= png.length) {
    const len = new DataView(png.buffer, png.byteOffset + at, 4).getUint32(0);
    const type = String.fromCharCode(...png.subarray(at + 4, at + 8));
    const end = at + 12 + len;
    if (type !== "IDAT") parts.push(png.subarray(at, end));
    at = end;
  }
  return concatBytes(parts);
}
