// A 5x7 bitmap font so the simulated screenshots carry legible labels for a vision model.
// Pure: draws into a Canvas-like target; lower case is drawn as upper case.

// Each glyph is seven rows, top first; each row a base-32 digit whose five bits are the pixels,
// most significant bit on the left.
const GLYPHS: Readonly<Record<string, string>> = Object.freeze({
  A: "ehhvhhh",
  B: "uhhuhhu",
  C: "ehggghe",
  D: "sihhhis",
  E: "vgguggv",
  F: "vgguggg",
  G: "ehgnhhf",
  H: "hhhvhhh",
  I: "e44444e",
  J: "72222ic",
  K: "hikokih",
  L: "ggggggv",
  M: "hrllhhh",
  N: "hhpljhh",
  O: "ehhhhhe",
  P: "uhhuggg",
  Q: "ehhhlid",
  R: "uhhukih",
  S: "fgge11u",
  T: "v444444",
  U: "hhhhhhe",
  V: "hhhhha4",
  W: "hhhllla",
  X: "hha4ahh",
  Y: "hha4444",
  Z: "v1248gv",
  "0": "ehjlphe",
  "1": "4c4444e",
  "2": "eh1248v",
  "3": "v2421he",
  "4": "26aiv22",
  "5": "vgu11he",
  "6": "68guhhe",
  "7": "v124888",
  "8": "ehhehhe",
  "9": "ehhf12c",
  " ": "0000000",
  ".": "00000cc",
  ",": "0000c48",
  ":": "0cc0cc0",
  ";": "0cc0c48",
  "-": "000v000",
  _: "000000v",
  "/": "01248g0",
  "&": "cik8lid",
  "%": "op248j3",
  "?": "eh12404",
  "!": "4444404",
  "'": "c480000",
  '"': "aa00000",
  "(": "2488842",
  ")": "8422248",
  "[": "e88888e",
  "]": "e22222e",
  "+": "044v440",
  "=": "00v0v00",
  "@": "eh1dlle",
  "#": "aavavaa",
  $: "4fke5u4",
  "<": "248g842",
  ">": "8421248",
  "*": "04lel40",
});
const UNKNOWN = "vhhhhhv";

export interface RectTarget {
  rect(x1: number, y1: number, x2: number, y2: number, rgb: number): void;
}

/** Width in pixels of one line of `text` drawn at `height`. */
export function textWidth(text: string, height: number): number {
  const k = Math.max(1, Math.floor(height / 7));
  return Math.max(0, [...text].length * 6 * k - k);
}

/** Where and how drawText draws: a box's left, top and right edges, the text's size and colour. */
export interface TextBox {
  x: number;
  y: number;
  /** Lines wrap at this x. */
  maxX: number;
  /** The cap height, about. */
  height: number;
  /** 0xRRGGBB. */
  rgb: number;
  /** Drawing stops before this y (default: a single line). */
  maxY?: number;
}

/**
 * Draws `text` with its cap height about `height` pixels, starting at (x, y), wrapping at
 * `maxX` and on newlines, and stopping before `maxY`.
 */
export function drawText(target: RectTarget, text: string, box: TextBox): void {
  const { x, y, maxX, height, rgb, maxY = y + height } = box;
  const k = Math.max(1, Math.floor(height / 7));
  const advance = 6 * k;
  const lineHeight = 10 * k;
  let cx = x;
  let cy = y;
  for (const ch of text) {
    const wrap = ch === "\n" || cx + 5 * k > maxX;
    if (wrap) {
      cx = x;
      cy += lineHeight;
      if (ch === "\n") continue;
    }
    if (cy + 7 * k > maxY) return;
    const rows = GLYPHS[ch.toUpperCase()] ?? UNKNOWN;
    for (let r = 0; r < 7; r++) {
      const bits = parseInt(rows[r] ?? "0", 32);
      for (let col = 0; col < 5; col++) {
        if (bits & (16 >> col)) {
          target.rect(cx + col * k, cy + r * k, cx + (col + 1) * k, cy + (r + 1) * k, rgb);
        }
      }
    }
    cx += advance;
  }
}
