// A fixture several Deno.tests of one file share (phones, an adb server, one phone-eye): started by
// the first of them that runs and closed once the last has run, each test still its own Deno.test.
//
//   const versions = sharedFixture(() => startVersionPhones());
//   versions.test("Android 10: …", async (phones) => { … });
//
// A phone-eye start is most of what an end-to-end test costs, and tests that start the same
// configuration need not pay it each. The tests' sanitizers are off: the fixture's processes and
// sockets are opened in the first test and closed in the last. A filter that skips the last one
// leaves the fixture to afterAll.

export interface SharedFixture<T> {
  /** Registers a Deno.test that runs `fn` against the fixture, starting it on first use. */
  test(name: string, fn: (fixture: T, t: Deno.TestContext) => Promise<void>): void;
}

export function sharedFixture<T extends AsyncDisposable>(
  start: () => Promise<T>,
): SharedFixture<T> {
  let registered = 0;
  let ran = 0;
  let running: Promise<T> | undefined;
  const close = async () => {
    const started = running;
    running = undefined;
    // A start that failed has already failed the test that asked for it, and left nothing open.
    const fixture = await started?.catch(() => undefined);
    await fixture?.[Symbol.asyncDispose]();
  };
  Deno.test.afterAll(close);
  return {
    test(name, fn) {
      registered++;
      Deno.test({
        name,
        sanitizeOps: false,
        sanitizeResources: false,
        async fn(t) {
          try {
            await fn(await (running ??= start()), t);
          } finally {
            if (++ran === registered) await close();
          }
        },
      });
    },
  };
}
