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
  for (
    const { segment } of new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(head)
  ) {
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

/** A short, single-paragraph excerpt of program or server output, for an error message. */
export function excerpt(text: string, max = 300): string {
  return truncate(text.replace(/\s+/g, " ").trim(), max);
}
