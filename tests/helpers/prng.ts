// A seeded pseudo-random generator for the fuzz and soak tests: a failure names its seed, and the
// same seed replays the same inputs.
//
//   const rng = seededRandom("PHONE_EYE_FUZZ_SEED");   // the variable's value, or a fresh seed
//   rng.int(10); rng.pick(["a", "b"]); rng.seed;

export interface Random {
  /** The seed this sequence started from: print it, and pass it back to replay the run. */
  readonly seed: number;
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  /** One element of a non-empty list. */
  pick<T>(list: readonly T[]): T;
  /** True with probability p. */
  chance(p: number): boolean;
}

/** mulberry32 (Tommy Ettinger's 32-bit generator): small, fast, and plenty for test inputs. */
export function randomFrom(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return {
    seed: seed >>> 0,
    next,
    int,
    pick: (list) => {
      if (list.length === 0) throw new Error("pick from an empty list");
      return list[int(list.length)]!;
    },
    chance: (p) => next() < p,
  };
}

/** A generator seeded from the environment variable `name` when set, else from a fresh seed. */
export function seededRandom(name: string): Random {
  const given = Deno.env.get(name);
  if (given !== undefined && given !== "") {
    const seed = Number(given);
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
      throw new Error(`${name} must be an integer from 0 to 4294967295, not ${given}`);
    }
    return randomFrom(seed);
  }
  return randomFrom(crypto.getRandomValues(new Uint32Array(1))[0]!);
}
