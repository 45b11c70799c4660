// The PNGs of the screens simulated phones drew lately, shared by every phone in the process: most
// tests start on the same launcher, which is then drawn and encoded once per test worker instead
// of once per phone. Bounded in bytes; the frame used least recently goes first.
//
// Module state on purpose (the one cache of the sim): a frame is a pure function of its key, so
// sharing it between phones changes no answer.

/** Enough for dozens of flat screens (30-150 KB each) and a few photos (3.4 MB each). */
const LIMIT_BYTES = 32 * 1024 * 1024;

const frames = new Map<string, Uint8Array>();
let heldBytes = 0;

/**
 * The PNG for `key`: the cached one, or `draw()`'s, kept for the next phone. `key` must name all
 * that decides the pixels. Callers must not change the bytes they get: other phones share them.
 */
export function cachedFrame(key: string, draw: () => Uint8Array): Uint8Array {
  const hit = frames.get(key);
  if (hit !== undefined) {
    frames.delete(key);
    frames.set(key, hit);
    return hit;
  }
  const png = draw();
  frames.set(key, png);
  heldBytes += png.length;
  for (const [k, old] of frames) {
    if (heldBytes <= LIMIT_BYTES || k === key) break;
    frames.delete(k);
    heldBytes -= old.length;
  }
  return png;
}
