// Collects a screenshot's garbage right after the answer that carries it has been written out:
// the verbs mark it (MemoryHandle), the stdio wire's afterSend runs it. A no-op unless V8 exposes
// gc (deno.json's start task passes --expose-gc). Nothing here waits or reads the clock.

/** The gc V8 exposes under --expose-gc (v8/src/extensions/gc-extension.cc's options). */
type ExposedGc = (options?: {
  type?: "minor" | "major";
  execution?: "sync" | "async";
  flavor?: "regular" | "last-resort";
}) => void;

/** What the verbs hold (ToolDeps.memory): the one thing they know about memory. */
export interface MemoryHandle {
  /** This call left garbage worth collecting: collect once the next message has been written. */
  collectAfterAnswer(): void;
}

/** One per server (main.ts): verbs mark garbage, the stdio wire's afterSend collects it. */
export interface GarbageCollector extends MemoryHandle {
  /** Called after each message has gone out: collects when a verb asked for it. */
  afterSend(): void;
}

/**
 * How far the heap and external memory together may grow past what the last full collection left
 * before the next one runs. A screenshot's large buffers are handed back as soon as they are used
 * (lib/core/bytes.ts), so what a call leaves is small (tens of KiB: request bodies, strings, promoted
 * objects) and a young collection frees most of it; the rest is promoted and waits for a full
 * collection. bench/memory_bench.ts, 200 mixed calls back to back: collecting only the young
 * generation let RSS creep past 100 MiB; a full collection after nearly every screenshot (the
 * policy before the buffers were handed back) ended at 85 MiB but took 15.6 s, since each one
 * hands back pages the next screenshot faults in again; allowing 4 MiB of growth ends at
 * 93 MiB, flat, in 13 s, and 2 MiB gains nothing (93 MiB, 14 s).
 */
const GROWTH_LIMIT = 4 * 1024 * 1024;

/**
 * Once a screenshot's answer has been written (not while the agent waits for it), a young
 * collection (a scavenge, under a millisecond) frees what died young. When the heap and external
 * memory have grown by more than GROWTH_LIMIT since the last full collection, a full collection
 * of the last-resort flavour follows (V8's CollectAllAvailableGarbage, which also hands emptied
 * pages back to the system), and its result is the new baseline.
 */
export function createGarbageCollector(
  gc: ExposedGc | undefined = (globalThis as { gc?: ExposedGc }).gc,
  usedBytes: () => number = () => {
    const { heapUsed, external } = Deno.memoryUsage();
    return heapUsed + external;
  },
): GarbageCollector {
  let pending = false;
  let baseline: number | undefined;
  return {
    collectAfterAnswer() {
      pending = gc !== undefined;
    },
    afterSend() {
      if (!pending || gc === undefined) return;
      pending = false;
      gc({ type: "minor" });
      const used = usedBytes();
      baseline ??= used;
      if (used - baseline <= GROWTH_LIMIT) return;
      gc({ type: "major", flavor: "last-resort" });
      baseline = usedBytes();
    },
  };
}
