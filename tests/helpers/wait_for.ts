// Waits for a condition on in-process state that announces no event of its own (a simulated
// phone's transport count, a fixture's request log): rechecked every turn of the event loop.

/** Resolves once `check()` is true; throws naming `what` if that takes longer than `timeoutMs`. */
export async function waitFor(
  check: () => boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}, in vain`);
    // One macrotask: lets sockets, timers and child processes make progress before rechecking.
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}
