// Small numeric helpers the bench scripts share: the median of samples and the time one awaited
// call takes. Bench scripts print medians (robust to the odd slow sample on a shared machine).

/** The median of `values` (NaN for none). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Milliseconds `fn` takes, from the call to its promise settling. */
export async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}
