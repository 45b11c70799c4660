// Byte-array helpers shared by the parts that frame or build binary data (stdio lines, PNG
// chunks, adb's output). Pure.

/** `parts` joined into one new array, in order. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Hands an array's memory back now instead of at the next garbage collection, when the array is
 * the whole of its buffer (`ArrayBuffer.prototype.transfer(0)` detaches it); a view into a larger
 * buffer is left alone, since something else may share that buffer. After this the array is empty.
 *
 * Why: a screenshot turns over megabytes of short-lived arrays (rows, frames, chunks). Kept until a
 * collection, each is fresh memory the kernel must fault in, and on this project's 2-core VMs those
 * faults cost more than the decoding (~2,000 faults and ~30 ms a screenshot; bench/look_bench.ts
 * prints faults per call). Released as soon as it is used, the allocator hands the same pages to
 * the next one.
 */
export function releaseBytes(bytes: Uint8Array): void {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) releaseChunk(bytes);
}

/**
 * releaseBytes for a chunk read from a stream, which owns its buffer even when it fills only part
 * of it: a byte stream gives each read a buffer of its own (the Streams standard's
 * autoAllocateChunkSize; Deno's pipes allocate 64 KiB a read, whatever arrives), and the runtime's
 * DecompressionStream hands out a new array per chunk. A child's few-byte answer would otherwise
 * hold 64 KiB until a collection.
 */
export function releaseChunk(chunk: Uint8Array): void {
  const { buffer } = chunk;
  if (buffer instanceof ArrayBuffer && !buffer.detached) buffer.transfer(0);
}

/** A byte count for messages: "8 MiB", or "9.5 MiB" when it is not whole to one decimal. */
export function mib(bytes: number): string {
  return `${Number((bytes / (1024 * 1024)).toFixed(1))} MiB`;
}
