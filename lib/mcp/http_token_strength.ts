// How guessable a PHONE_EYE_HTTP_TOKEN is: an estimate of its entropy in bits, from the kinds of
// character it uses and how much of it a pattern (a run, a repeated stretch) predicts.

/** The kinds of character a token may mix, and how many characters each kind holds. */
const KINDS: ReadonlyArray<{ test: RegExp; size: number }> = [
  { test: /[a-z]/, size: 26 },
  { test: /[A-Z]/, size: 26 },
  { test: /[0-9]/, size: 10 },
  // The printable ASCII symbols: the token is printable ASCII (http_settings.ts checks it first).
  { test: /[^A-Za-z0-9]/, size: 32 },
];

/** A stretch of at least this many characters seen earlier in the token counts as one. */
const MIN_REPEAT = 4;
/** A run (aaa, abc, 987) of at least this many characters counts as its first two. */
const MIN_RUN = 3;
/**
 * Only the first 256 characters are estimated, so a huge variable cannot stall the start (the
 * repeat search is quadratic); 256 characters of any kind are far past 128 bits when random.
 */
const ESTIMATED_LENGTH = 256;

export interface TokenStrength {
  /** Estimated entropy: counted × log2(alphabet), rounded down. */
  bits: number;
  /** The size of the alphabet the token's kinds of character span. */
  alphabet: number;
  /** Characters no pattern predicts (a run counts as 2, a repeated stretch as 1). */
  counted: number;
}

/**
 * Estimates a token's entropy as (characters no simple pattern predicts) × log2(alphabet of the
 * kinds of character it uses). It is generous to random tokens (`openssl rand -hex 32` scores
 * 64 × log2(36) ≈ 330; its real entropy is 256) and hard on typed ones: a run such as "abcdef" or
 * "4321" counts as two characters, a stretch of four or more seen earlier counts as one, so
 * "0123456789abcdef0123456789abcdef" scores 5 × log2(36) ≈ 25.
 */
export function tokenStrength(token: string): TokenStrength {
  const text = token.slice(0, ESTIMATED_LENGTH);
  const alphabet = KINDS.reduce((sum, kind) => sum + (kind.test.test(text) ? kind.size : 0), 0);
  let counted = 0;
  for (let i = 0; i < text.length;) {
    const repeat = repeatedLength(text, i);
    if (repeat >= MIN_REPEAT) {
      counted += 1;
      i += repeat;
      continue;
    }
    const run = runLength(text, i);
    counted += run >= MIN_RUN ? 2 : 1;
    i += run >= MIN_RUN ? run : 1;
  }
  return { bits: Math.floor(counted * Math.log2(Math.max(alphabet, 1))), alphabet, counted };
}

/** How long the stretch starting at `i` is that already began earlier (overlap allowed). */
function repeatedLength(text: string, i: number): number {
  let length = 0;
  while (i + length < text.length && text.indexOf(text.slice(i, i + length + 1)) < i) length++;
  return length;
}

/** How long the run starting at `i` is: each step the same, and that step -1, 0 or +1. */
function runLength(text: string, i: number): number {
  const step = text.charCodeAt(i + 1) - text.charCodeAt(i);
  if (!(Math.abs(step) <= 1)) return 1;
  let end = i + 1;
  while (end + 1 < text.length && text.charCodeAt(end + 1) - text.charCodeAt(end) === step) end++;
  return end - i + 1;
}
