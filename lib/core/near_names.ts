// Near-name matching: which installed package names (or on-screen labels) are closest to one an
// agent got wrong, so a refusal can say what the phone has instead. Pure and bounded.

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

/**
 * The `count` labels in `known` closest to `wanted`, best first: those that contain it or that it
 * contains (ignoring case), then by edit distance; each cut to 100 characters, as above.
 */
export function closestNames(wanted: string, known: readonly string[], count = 5): string[] {
  const want = wanted.trim().toLowerCase().slice(0, 100);
  const scored = known.map((name) => {
    const lower = name.toLowerCase().slice(0, 100);
    const shared = lower.includes(want) || want.includes(lower);
    return { name, shared, distance: editDistance(want, lower) };
  });
  scored.sort((a, b) =>
    Number(b.shared) - Number(a.shared) || a.distance - b.distance || a.name.localeCompare(b.name)
  );
  return scored.slice(0, count).map((s) => s.name);
}

/** Dotted parts almost every package shares, which say nothing about closeness. */
const GENERIC_PARTS = new Set(["com", "org", "net", "android", "google", "app", "apps"]);

/** Levenshtein distance, two rows. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(
        prev[j]! + 1,
        row[j - 1]! + 1,
        prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    prev = row;
  }
  return prev[b.length]!;
}
