// Hands a screenshot's short-lived native buffers back as soon as the tool is done with them.
// A no-op unless V8 exposes gc: deno.json's start task passes --expose-gc.

/** The gc V8 exposes under --expose-gc (v8/src/extensions/gc-extension.cc's options). */
type ExposedGc = (options?: {
  type?: "minor" | "major";
  execution?: "sync" | "async";
  flavor?: "regular" | "last-resort";
}) => void;

/**
 * Collects everything a screenshot left behind, in a task of its own right after the tool call
 * (`execution: "async"`: the answer is not held up). A screenshot turns over some 15 MB of
 * typed-array backing stores (the inflater's chunks, the reduced frame, the encoder's rows) and,
 * when it is a JPEG, megabytes of jpeg-js's tables on the JS heap; V8 counts the first against an
 * external allowance of about 64 MB before it collects on its own, and keeps the heap pages the
 * second grew. The last-resort flavour is the full collection that also hands emptied pages back
 * (V8's CollectAllAvailableGarbage), so resident memory stays at its working size instead of
 * climbing: bench/memory_bench.ts ends 200 calls near 85-92 MiB this way, against 317 MiB before.
 * Without --expose-gc (a plain `deno run main.ts`) nothing happens and V8 collects when it will.
 */
export function releaseScreenshotGarbage(): void {
  (globalThis as { gc?: ExposedGc }).gc?.({
    type: "major",
    execution: "async",
    flavor: "last-resort",
  });
}
