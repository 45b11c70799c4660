// Time as a dependency: the clock phone-eye reads and the timers it sets, one value main.ts makes
// and passes down, so tests advance a fake clock instead of waiting.

/** What code that waits or measures needs from time. */
export interface Clock {
  /** Milliseconds on a monotonic scale: only differences between two readings mean anything. */
  now(): number;
  /** Calls `fire` once, `ms` from now; the function returned cancels it (harmless once fired). */
  setTimer(ms: number, fire: () => void): () => void;
  /** Resolves `ms` from now, or rejects with the signal's reason as soon as it aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** `sleep` made from a clock's `setTimer`, so a fake clock's sleeps end when it is advanced. */
export function sleepOn(
  setTimer: Clock["setTimer"],
): (ms: number, signal?: AbortSignal) => Promise<void> {
  return (ms, signal) => {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        cancel();
        reject(signal?.reason);
      };
      const cancel = setTimer(ms, () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      });
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  };
}

function setRealTimer(ms: number, fire: () => void): () => void {
  const id = setTimeout(fire, ms);
  return () => clearTimeout(id);
}

/** The machine's clock: performance.now() and setTimeout. */
export const realClock: Clock = {
  now: () => performance.now(),
  setTimer: setRealTimer,
  sleep: sleepOn(setRealTimer),
};
