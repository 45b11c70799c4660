// Hands a screenshot's short-lived native buffers back as soon as the tool is done with them.
// A no-op unless V8 exposes gc (deno.json's start task passes --expose-gc; see releaseYoungGarbage).

/** The gc V8 exposes under --expose-gc: a full collection, here started as a task of its own. */
type ExposedGc = (options?: { type?: "minor" | "major"; execution?: "sync" | "async" }) => void;

/**
 * Runs a young-generation collection (a scavenge, well under a millisecond with phone-eye's small
 * heap). A screenshot turns over some 15 MB of typed-array backing stores (compressed chunks, the
 * inflater's output, the reduced frame, the encoder's rows) whose JS objects die young; V8 counts
 * that memory against an external allowance of about 64 MB before it collects on its own, and the
 * freed pages then stay in the process. Collecting right after each capture keeps resident memory
 * flat at its working size instead (bench/memory_bench.ts shows the curve with and without).
 * Without --expose-gc (a plain `deno run main.ts`) nothing happens and V8 collects when it will.
 */
export function releaseYoungGarbage(): void {
  (globalThis as { gc?: ExposedGc }).gc?.({ type: "major", execution: "async" });
}
