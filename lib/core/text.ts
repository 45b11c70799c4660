// Small text helpers shared by the messages phone-eye writes for agents: the one way text is cut.
// Pure.

/**
 * `text` cut to at most `max` UTF-16 units, ending in `mark` (which counts towards `max`) when it
 * was cut: on a grapheme boundary, so no emoji or accented letter is split, unless one grapheme
 * alone is longer (a letter under thousands of combining marks), which is then cut between code
 * points, never inside a surrogate pair. Spaces before the cut are dropped. An empty `mark` cuts
 * silently, for text that is read rather than shown (fusion.ts's points).
 */
export function truncate(text: string, max: number, mark = "…"): string {
  if (text.length <= max) return text;
  const room = Math.max(0, max - mark.length);
  let end = 0;
  // Whether a grapheme ends at `room` depends on what comes before and on the code point at
  // `room`, never on what follows it: segmenting that much (not a megabyte-long answer) decides.
  const head = text.slice(0, room + 2);
  for (const { segment } of graphemes(head)) {
    if (end + segment.length > room) break;
    end += segment.length;
  }
  if (end === 0) {
    end = room;
    const last = text.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) end--;
  }
  return `${text.slice(0, end).trimEnd()}${mark}`;
}

/**
 * The grapheme clusters of `text`, by a segmenter made for the call rather than once at load: the
 * first one made in a process loads ICU's break rules, 10–20 ms of CPU that every start paid
 * before anything was cut (measured with bench/hand_bench.ts --against); each later one costs a
 * few microseconds.
 */
function graphemes(text: string): Intl.Segments {
  return new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(text);
}

/** A short, single-paragraph excerpt of program or server output, for an error message. */
export function excerpt(text: string, max = 300): string {
  return truncate(text.replace(/\s+/g, " ").trim(), max);
}

/** At most this many graphemes of any one screen text phone-eye shows: a label, a hint, a class. */
export const SCREEN_TEXT_GRAPHEMES = 80;
/**
 * ...and at most this many UTF-16 units: eight a grapheme, so 80 emoji of a family keep their
 * length, while one letter under a megabyte of combining marks cannot become a megabyte reply.
 */
export const SCREEN_TEXT_UNITS = 8 * SCREEN_TEXT_GRAPHEMES;

// Characters that take no room on screen: soft hyphen, Arabic letter mark, zero-width space,
// left-to-right and right-to-left marks, bidi embeddings, overrides and isolates, word joiner,
// invisible operators and the zero-width no-break space (U+FEFF). An agent reading the screen
// cannot see them and would not type them back; an override could make text read backwards.
// ZWJ and ZWNJ (U+200C, U+200D) stay: they join emoji and shape Persian and Indic words.
const INVISIBLE =
  /[\u00ad\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/g;
// White space of every kind (line breaks, tabs, U+00A0, U+2028, U+3000, …) and the C0 and C1
// control characters (ESC, BEL, NEL): runs of them are one space.
// deno-lint-ignore no-control-regex
const SPACES = /[\s\u0000-\u001f\u007f-\u009f]+/g;

/**
 * Screen text on one line: invisible characters dropped, runs of white space and control
 * characters as one space, trimmed, lone surrogates replaced. What an app wrote cannot start a
 * line of its own in a reply, so it cannot forge a section (`[changed]`), nor send a terminal ESC.
 */
export function oneLine(text: string): string {
  if (PLAIN.test(text)) return text;
  return text.toWellFormed().replace(INVISIBLE, "").replace(SPACES, " ").trim();
}

// Printable ASCII words with single spaces between them, most screen text: oneLine keeps it as it
// is and NFKC does not change it, which this test tells at a fraction of their cost. Without it,
// parseUiTree and findElement ran 2 to 4 times slower (bench/ui_tree_bench.ts, one run each way).
const PLAIN = /^(?:[!-~]+(?: [!-~]+)*)?$/;

/**
 * Screen text as phone-eye shows it, everywhere: on one line (oneLine) and cut, with "…", to at
 * most SCREEN_TEXT_GRAPHEMES graphemes and SCREEN_TEXT_UNITS units. A cut text is a prefix of the
 * whole (trailing spaces dropped) plus "…", which is how a name given back finds it (nameKey).
 */
export function screenText(text: string): string {
  return cutScreenText(oneLine(text));
}

// Graphemes, not UTF-16 units as truncate counts: a label of emoji or accented letters keeps as
// many characters as a plain one. Only the head that can be kept is segmented.
function cutScreenText(s: string): string {
  if (s.length <= SCREEN_TEXT_GRAPHEMES) return s;
  const head = s.slice(0, SCREEN_TEXT_UNITS + 2);
  let count = 0;
  let units = 0;
  let keep = 0;
  for (const { segment } of graphemes(head)) {
    count++;
    units += segment.length;
    if (count > SCREEN_TEXT_GRAPHEMES || units > SCREEN_TEXT_UNITS) break;
    if (count < SCREEN_TEXT_GRAPHEMES && units < SCREEN_TEXT_UNITS) keep = units;
  }
  if (count <= SCREEN_TEXT_GRAPHEMES && units <= SCREEN_TEXT_UNITS && head.length === s.length) {
    return s;
  }
  // One grapheme longer than the room: truncate cuts it between code points.
  if (keep === 0) return truncate(head, SCREEN_TEXT_UNITS);
  return `${s.slice(0, keep).trimEnd()}…`;
}

// Typographic quotes and dashes as a keyboard types them: apps write "Don’t allow" and "Wi‑Fi"
// (U+2019, U+2011), an agent types "Don't allow" and "Wi-Fi".
const QUOTES = /[\u2018\u2019\u201a\u201b\u2032\uff07]/g;
const DOUBLE_QUOTES = /[\u201c\u201d\u201e\u201f\u2033\uff02]/g;
const DASHES = /[\u2010-\u2015\u2212\ufe58\ufe63\uff0d]/g;

/**
 * What names are compared by, on both sides, so a name matches however its text was written:
 * screen text on one line (oneLine), compatibility forms folded (NFKC: full-width letters, "…"
 * as "..."), typographic quotes and dashes as typed, lower case, and final sigma as sigma (a cut
 * can end a word that did not end).
 */
export function nameKey(text: string): string {
  if (PLAIN.test(text)) return text.toLowerCase();
  return oneLine(text).normalize("NFKC").replace(QUOTES, "'").replace(DOUBLE_QUOTES, '"')
    .replace(DASHES, "-").toLowerCase().replaceAll("ς", "σ");
}

/** "45 s", "0.3 s": budgets and durations as the agent reads them. */
export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}
