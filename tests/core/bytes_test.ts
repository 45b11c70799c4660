import assert from "node:assert/strict";
import { concatBytes, releaseBytes, releaseChunk } from "../../lib/core/bytes.ts";

Deno.test("concatBytes joins in order, and an empty list is an empty array", () => {
  const joined = concatBytes([Uint8Array.of(1, 2), new Uint8Array(0), Uint8Array.of(3)]);
  assert.deepEqual([...joined], [1, 2, 3]);
  assert.equal(concatBytes([]).length, 0);
});

Deno.test("releaseBytes detaches an array that owns its buffer, and leaves a shared view alone", () => {
  const whole = new Uint8Array(64 * 1024).fill(7);
  releaseBytes(whole);
  assert.equal(whole.buffer.detached, true);
  assert.equal(whole.length, 0);

  // A view into a larger buffer: the rest of the buffer may belong to someone else.
  const shared = new Uint8Array(16).fill(9);
  const view = shared.subarray(4, 8);
  releaseBytes(view);
  assert.equal(shared.buffer.detached, false);
  assert.deepEqual([...view], [9, 9, 9, 9]);
  const offset = new Uint8Array(shared.buffer, 0, 8);
  releaseBytes(offset);
  assert.equal(shared.buffer.detached, false);
});

Deno.test("releaseChunk detaches a pipe chunk's whole buffer, though the chunk fills part of it", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", "await Deno.stdout.write(new Uint8Array(3000))"],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const chunks: Uint8Array[] = [];
  for await (const chunk of child.stdout) chunks.push(chunk);
  await child.status;
  const first = chunks[0]!;
  assert.ok(first.byteLength < first.buffer.byteLength, "a read fills part of its buffer");
  releaseChunk(first);
  assert.equal((first.buffer as ArrayBuffer).detached, true);
  releaseChunk(first); // twice is harmless
});
