// Near-name matching: which installed package names (or on-screen labels) are closest to one an
// agent got wrong, so a refusal can say what the phone has instead. Pure and bounded.

import { nameKey } from "./text.ts";

/**
 * The `count` names in `known` closest to `wanted`, best first: those that share a dotted part
 * with it or contain one another come before the rest, then by edit distance. Names are cut to
 * 100 characters for the distance, so the work stays bounded (known.length × 100²; a package list
 * holds at most 5,000, parsePackageList).
 */
export function closestPackages(
  wanted: string,
  known: readonly string[],
  count = 3,
): string[] {
  const want = wanted.toLowerCase().slice(0, 100);
  const parts = new Set(want.split(".").filter((p) => p.length >= 3 && !GENERIC_PARTS.has(p)));
  const scored = known.map((name) => {
    const lower = name.toLowerCase().slice(0, 100);
    const shared = lower.includes(want) || want.includes(lower) ||
      lower.split(".").some((p) => parts.has(p));
    return { name, shared, distance: editDistance(want, lower) };
  });
  scored.sort((a, b) =>
    Number(b.shared) - Number(a.shared) || a.distance - b.distance || a.name.localeCompare(b.name)
  );
  return scored.slice(0, count).map((s) => s.name);
}

/** How many names closestNames weighs, and how much of each: its work is bounded by these. */
export const NAMES_WEIGHED = 1000;
export const NAME_CHARS_WEIGHED = 64;
/** How many runs of words inside one name are weighed against the wanted name. */
const RUNS_WEIGHED = 8;

/**
 * The `count` names in `known` closest to `wanted`, best first: those that contain it or that it
 * contains (ignoring case), then by edit distance to the whole name or to a run of its words as
 * long as the wanted name, whichever is nearer ("Bluetoth" finds "Bluetooth, pairing" before
 * "Battery"). A run counts only when it is a near miss (at most one edit in three), so a short word
 * inside a long label does not crowd out whole labels. Compared as nameKey compares names. Only
 * the first NAMES_WEIGHED names, each cut to NAME_CHARS_WEIGHED characters, are weighed.
 */
export function closestNames(wanted: string, known: readonly string[], count = 5): string[] {
  const want = nameKey(wanted).slice(0, NAME_CHARS_WEIGHED);
  const wantWords = wordsOf(want).length;
  const nearMiss = Math.floor(want.length / 3);
  const scored = known.slice(0, NAMES_WEIGHED).map((name) => {
    const key = nameKey(name).slice(0, NAME_CHARS_WEIGHED);
    const shared = key.includes(want) || want.includes(key);
    let distance = editDistance(want, key);
    for (const run of wordRuns(key, wantWords)) {
      if (Math.abs(run.length - want.length) > nearMiss) continue;
      const d = editDistance(want, run, nearMiss);
      if (d <= nearMiss) distance = Math.min(distance, d);
    }
    return { name, shared, distance };
  });
  scored.sort((a, b) =>
    Number(b.shared) - Number(a.shared) || a.distance - b.distance || a.name.localeCompare(b.name)
  );
  return scored.slice(0, count).map((s) => s.name);
}

function wordsOf(text: string): string[] {
  return text.match(/[\p{L}\p{N}\p{M}]+/gu) ?? [];
}

/** Runs of `length` consecutive words of `text`, joined by one space; at most RUNS_WEIGHED. */
function wordRuns(text: string, length: number): string[] {
  const words = wordsOf(text);
  if (length < 1 || words.length <= length) return [];
  const runs: string[] = [];
  for (let i = 0; i + length <= words.length && runs.length < RUNS_WEIGHED; i++) {
    runs.push(words.slice(i, i + length).join(" "));
  }
  return runs;
}

/** Dotted parts almost every package shares, which say nothing about closeness. */
const GENERIC_PARTS = new Set(["com", "org", "net", "android", "google", "app", "apps"]);

/**
 * Levenshtein distance, two rows. With `limit`, any answer above it may come back as limit + 1:
 * the rows stop once every cell of one is past it.
 */
function editDistance(a: string, b: string, limit = Infinity): number {
  let prev = new Int32Array(b.length + 1).map((_, j) => j);
  let row = new Int32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    let least = i;
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(
        prev[j]! + 1,
        row[j - 1]! + 1,
        prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      least = Math.min(least, row[j]!);
    }
    if (least > limit) return limit + 1;
    [prev, row] = [row, prev];
  }
  return prev[b.length]!;
}
