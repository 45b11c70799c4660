// The coordinate forms a vision answer writes, read in one forward pass (CoordinateScanner): the
// first of phone_look's fusion steps (fusion.ts turns what it finds into points). Pure.

// The forms extractPoints reads, as the regular expressions they once were (case-insensitive;
// NUM = -?\d+(?:\.\d+)?, SEP = \s*,\s*, PX = (?:\s*px)?), tried in this order at each position:
//   box pairs   \[\s*NUM SEP NUM\s*\]\s*\[\s*NUM SEP NUM\s*\]
//   box tuple   [(\[]\s*NUM SEP NUM SEP NUM SEP NUM\s*[)\]]
//   x then y    \bx\s*[=:]\s*NUM PX(?:\s*[,;])?\s*(?:and\s+)?y\s*[=:]\s*NUM PX
//   pair        [(\[]\s*NUM PX SEP NUM PX\s*[)\]]
//   bare pair   \b(?:at|coordinates?|coords|position|point|tap|click)\s*:?\s*NUM SEP NUM PX
//               not followed by \.?\d or a letter ("at 540,1200ms" is a time, not a point)
// As regexes, V8 backtracked: "at" and 100,000 spaces took 5 to 9 s in the bare-pair form, since
// `\s*:?\s*` splits a run of spaces in n ways and each is tried. Each step below reads forward and
// never goes back, so a try reads each character at most a few times; a run of spaces or digits
// is crossed only by tries that start within the dozen tokens before it; so a scan is linear in
// the answer's length (bench/fusion_bench.ts). tests/look/fusion_test.ts checks it against the regexes.

const KEYWORDS = ["at", "coordinates", "coordinate", "coords", "position", "point", "tap", "click"];

// JavaScript's \s: ASCII whitespace, NBSP, the Unicode space separators, line/paragraph separators
// and the BOM.
function isWhiteSpace(c: number): boolean {
  return (c >= 9 && c <= 13) || c === 32 || c === 0xa0 || c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f ||
    c === 0x205f || c === 0x3000 || c === 0xfeff;
}
const isDigit = (c: number) => c >= 48 && c <= 57;
const isLetter = (c: number) => (c | 0x20) >= 97 && (c | 0x20) <= 122;
const isWordChar = (c: number) => isDigit(c) || isLetter(c) || c === 95;
const isClose = (c: number) => c === 41 || c === 93; // ) ]
/** First letters of "x" and the keywords, lower case: the only letters a form starts with. */
const STARTS = new Set([..."x" + KEYWORDS.map((k) => k[0]).join("")].map((l) => l.charCodeAt(0)));

export interface Found {
  start: number;
  end: number;
  /** The numbers as written: two for a point, four for a box. */
  values: string[];
}

/**
 * The coordinate forms in a vision answer, read left to right in one pass: each `find…` method
 * tries one form at a position and returns where it ends (or -1), noting the numbers it read in
 * `bounds`. A class so that state is two private fields, not a closure's captured variables; the
 * hand-written scan (not a regex) pays its way in bench/fusion_bench.ts.
 */
export class CoordinateScanner {
  readonly #text: string;
  readonly #length: number;
  /** Where the numbers of the current try start and end: at most four, so no array grows. */
  readonly #bounds = new Int32Array(8);
  /** How many numbers the current try has read. */
  #found = 0;

  constructor(text: string) {
    this.#text = text;
    this.#length = text.length;
  }

  *matches(): Generator<Found> {
    for (let i = 0; i < this.#length;) {
      const end = this.#formAt(i);
      if (end < 0) {
        i++;
        continue;
      }
      const values: string[] = [];
      for (let n = 0; n < this.#found; n++) {
        values.push(this.#text.slice(this.#bounds[n * 2], this.#bounds[n * 2 + 1]));
      }
      yield { start: i, end, values };
      i = end;
    }
  }

  /** The end of the first form that matches at i, or -1. */
  #formAt(i: number): number {
    const c = this.#at(i);
    if (c === 40 || c === 91) {
      let end = this.#boxPairs(i);
      if (end < 0) end = this.#bracketed(i, 4, false);
      if (end < 0) end = this.#bracketed(i, 2, true);
      return end;
    }
    if (STARTS.has(c | 0x20) && !isWordChar(this.#at(i - 1))) {
      const end = this.#xThenY(i);
      return end >= 0 ? end : this.#barePair(i);
    }
    return -1;
  }

  /** -1 outside the text, so no test passes there and every code stays a small integer. */
  #at(i: number): number {
    return i >= 0 && i < this.#length ? this.#text.charCodeAt(i) : -1;
  }

  #spaces(i: number): number {
    while (isWhiteSpace(this.#at(i))) i++;
    return i;
  }

  /** Case-insensitive ASCII `w` at i. */
  #word(i: number, w: string): boolean {
    for (let k = 0; k < w.length; k++) {
      if ((this.#at(i + k) | 0x20) !== w.charCodeAt(k)) return false;
    }
    return true;
  }

  /** NUM at i: its end, with the number noted in `bounds`; -1 when there is none. */
  #num(i: number): number {
    let j = this.#at(i) === 45 ? i + 1 : i; // -
    if (!isDigit(this.#at(j))) return -1;
    while (isDigit(this.#at(j))) j++;
    if (this.#at(j) === 46 && isDigit(this.#at(j + 1))) { // .
      j += 2;
      while (isDigit(this.#at(j))) j++;
    }
    this.#bounds[this.#found * 2] = i;
    this.#bounds[this.#found * 2 + 1] = j;
    this.#found++;
    return j;
  }

  /** PX at i: past "px" when only spaces come before it, else i. */
  #px(i: number): number {
    const j = this.#spaces(i);
    return this.#word(j, "px") ? j + 2 : i;
  }

  /** SEP at i: past the comma and the spaces after it; -1 without a comma. */
  #sep(i: number): number {
    const j = this.#spaces(i);
    return this.#at(j) === 44 ? this.#spaces(j + 1) : -1;
  }

  /** `count` numbers joined by SEP, each followed by PX when `units`; the end or -1. */
  #numbers(i: number, count: number, units: boolean): number {
    let j = i;
    for (let n = 0; n < count; n++) {
      if (n > 0 && (j = this.#sep(j)) < 0) return -1;
      if ((j = this.#num(j)) < 0) return -1;
      if (units) j = this.#px(j);
    }
    return j;
  }

  /** What may follow a bare pair: not a digit, ".digit" or a letter. */
  #endsBare(i: number): boolean {
    const c = this.#at(i);
    return !isDigit(c) && !(c === 46 && isDigit(this.#at(i + 1))) && !isLetter(c);
  }

  // Each form starts from no numbers: a failed try may have read some.

  /** "[x1,y1][x2,y2]". */
  #boxPairs(i: number): number {
    this.#found = 0;
    if (this.#at(i) !== 91) return -1;
    let j = this.#numbers(this.#spaces(i + 1), 2, false);
    if (j < 0 || this.#at(j = this.#spaces(j)) !== 93) return -1;
    if (this.#at(j = this.#spaces(j + 1)) !== 91) return -1;
    j = this.#numbers(this.#spaces(j + 1), 2, false);
    return j >= 0 && this.#at(j = this.#spaces(j)) === 93 ? j + 1 : -1;
  }

  /** "(x, y)", "[x, y]", "(x1, y1, x2, y2)". */
  #bracketed(i: number, count: number, units: boolean): number {
    this.#found = 0;
    let j = this.#numbers(this.#spaces(i + 1), count, units);
    return j >= 0 && isClose(this.#at(j = this.#spaces(j))) ? j + 1 : -1;
  }

  /** "x=540, y=1200", "x: 540 and y: 1200". */
  #xThenY(i: number): number {
    this.#found = 0;
    if ((this.#at(i) | 0x20) !== 120) return -1; // x, after a \b the caller checked
    let j = this.#spaces(i + 1);
    if (this.#at(j) !== 61 && this.#at(j) !== 58) return -1; // = :
    if ((j = this.#num(this.#spaces(j + 1))) < 0) return -1;
    j = this.#px(j);
    const k = this.#spaces(j);
    j = this.#spaces(this.#at(k) === 44 || this.#at(k) === 59 ? k + 1 : k); // , ;
    if (this.#word(j, "and") && isWhiteSpace(this.#at(j + 3))) j = this.#spaces(j + 3);
    if ((this.#at(j) | 0x20) !== 121) return -1; // y
    j = this.#spaces(j + 1);
    if (this.#at(j) !== 61 && this.#at(j) !== 58) return -1;
    if ((j = this.#num(this.#spaces(j + 1))) < 0) return -1;
    return this.#px(j);
  }

  /** "at 540, 1200", "tap: 540,1200" and the other keywords. */
  #barePair(i: number): number {
    for (const keyword of KEYWORDS) {
      this.#found = 0;
      if (!this.#word(i, keyword)) continue;
      let j = this.#spaces(i + keyword.length);
      if (this.#at(j) === 58) j = this.#spaces(j + 1); // :
      if ((j = this.#numbers(j, 2, false)) < 0) continue;
      // PX is greedy, but when the text after "px" fails the check, the regex gave it back.
      const withPx = this.#px(j);
      if (withPx !== j && this.#endsBare(withPx)) return withPx;
      if (this.#endsBare(j)) return j;
    }
    return -1;
  }
}
