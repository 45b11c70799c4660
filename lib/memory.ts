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
 * A screenshot turns over some 15 MB of typed-array backing stores (the inflater's chunks, the
 * reduced frame, the encoder's rows) and, for a JPEG, megabytes of jpeg-js's tables on the JS
 * heap. V8 counts the first against an external allowance of about 64 MB before it collects on
 * its own and keeps the heap pages the second grew, so resident memory climbs and steps. A full
 * collection of the last-resort flavour (V8's CollectAllAvailableGarbage, which also hands emptied
 * pages back) keeps it at its working size: bench/memory_bench.ts ends 200 calls near 85-95 MiB,
 * against 317 MiB before. It takes some 5-10 ms, so it runs once the answer has been written, not
 * while the agent waits for it: collected before the write, a screenshot took ~20 ms longer.
 */
export function createGarbageCollector(
  gc: ExposedGc | undefined = (globalThis as { gc?: ExposedGc }).gc,
): GarbageCollector {
  let pending = false;
  return {
    request() {
      pending = gc !== undefined;
    },
    afterSend() {
      if (!pending) return;
      pending = false;
      gc?.({ type: "major", flavor: "last-resort" });
    },
  };
}
