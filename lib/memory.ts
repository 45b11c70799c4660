// Collects a screenshot's garbage right after the answer that carries it has been written out.
// A no-op unless V8 exposes gc: deno.json's start task passes --expose-gc.

/** The gc V8 exposes under --expose-gc (v8/src/extensions/gc-extension.cc's options). */
type ExposedGc = (options?: {
  type?: "minor" | "major";
  execution?: "sync" | "async";
  flavor?: "regular" | "last-resort";
}) => void;

/** One per process (main.ts): tools ask for a collection, the stdio wire runs it after a send. */
export interface GarbageCollector {
  /** A tool left garbage worth collecting: collect after the next message is written. */
  request(): void;
  /** Called after each message has gone out: collects when one was requested. */
  afterSend(): void;
}

/**
 * External memory (typed-array backing stores) a young collection may leave behind before a full
 * one runs too: about one screenshot's worth. bench/memory_bench.ts: at 24 MiB, 200 calls ended
 * near 100 MiB; with a full collection after every screenshot, the next one decoded ~10 ms slower
 * (the pages handed back are faulted in again).
 */
const EXTERNAL_LIMIT = 16 * 1024 * 1024;

/**
 * A screenshot turns over some 15 MB of typed-array backing stores (the inflater's chunks, the
 * reduced frame, the encoder's rows) and, for a JPEG, megabytes of jpeg-js's tables on the JS
 * heap. V8 counts the first against an external allowance of about 64 MB before it collects on
 * its own and keeps the heap pages the second grew, so resident memory climbs and steps. Once the
 * answer has been written (not while the agent waits for it), a young collection (a scavenge,
 * under a millisecond) frees what died young; when more than EXTERNAL_LIMIT is left, a full
 * collection of the last-resort flavour (V8's CollectAllAvailableGarbage, which also hands
 * emptied pages back) follows. bench/memory_bench.ts: 200 calls end near 90 MiB, flat, against
 * 317 MiB before.
 */
export function createGarbageCollector(
  gc: ExposedGc | undefined = (globalThis as { gc?: ExposedGc }).gc,
  externalBytes: () => number = () => Deno.memoryUsage().external,
): GarbageCollector {
  let pending = false;
  return {
    request() {
      pending = gc !== undefined;
    },
    afterSend() {
      if (!pending || gc === undefined) return;
      pending = false;
      gc({ type: "minor" });
      if (externalBytes() > EXTERNAL_LIMIT) gc({ type: "major", flavor: "last-resort" });
    },
  };
}
