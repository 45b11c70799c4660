// Times, in this process, each part of what main.ts loads before it can answer tools/list, in load
// order, and prints them as JSON (milliseconds). Run by bench/hand_bench.ts in a fresh process per
// sample with the start task's flags (a module loads once per process). "deno start" is Deno's own
// start-up up to this module's first line (performance.now() counts from the process's start).

const times: Record<string, number> = { "deno start, to this module's first line": 0 };
times["deno start, to this module's first line"] = performance.now();
let t = performance.now();
const steps: Array<[string, () => Promise<unknown>]> = [
  ["zod", () => import("zod")],
  // The SDK's entry: its protocol schemas (built with zod at load), the server, the JSON Schema
  // validator the _shims export picks (the small cf-worker one under the browser condition).
  [
    "@modelcontextprotocol/server (schemas, server, validator)",
    () => import("@modelcontextprotocol/server"),
  ],
  ["@modelcontextprotocol/server/stdio", () => import("@modelcontextprotocol/server/stdio")],
  ["lib/adb (device, runner, commands, errors)", () => import("../lib/adb/device.ts")],
  // The verbs' definitions: zod schemas, handlers, adb commands; the eyes load on first use.
  ["lib/mcp/server.ts and the tool definitions", () => import("../lib/mcp/server.ts")],
  ["lib/config/config.ts, sandbox.ts, vision seam", () =>
    Promise.all([
      import("../lib/config/config.ts"),
      import("../lib/app/sandbox.ts"),
      import("../lib/vision/vision.ts"),
    ])],
  ["main.ts (the rest: doctor and vision stay unloaded)", () => import("../main.ts")],
];
for (const [name, load] of steps) {
  await load();
  const now = performance.now();
  times[name] = now - t;
  t = now;
}
// Building the server: createServer registers the eight zod definitions with the SDK (their
// JSON Schema is made when tools/list asks, not here).
const { createServer } = await import("../lib/mcp/server.ts");
const { createGarbageCollector } = await import("../lib/core/memory.ts");
const { realClock } = await import("../lib/core/clock.ts");
const { createVision } = await import("../lib/vision/vision.ts");
createServer({
  phones: {} as never,
  screens: {} as never,
  vision: createVision({ route: "none" }),
  saveShot: undefined,
  lookBudgetMs: 45_000,
  clock: realClock,
  memory: createGarbageCollector(),
  logError: () => {},
});
times["createServer (registers the eight tools)"] = performance.now() - t;
// Not start-up: what the first screenshot loads (the capture, the PNG decoder, the encoders).
t = performance.now();
await import("../lib/screen/screen.ts");
times["first screenshot: lib/screen/screen.ts and the image steps"] = performance.now() - t;
// deno-lint-ignore no-console
console.log(JSON.stringify(times));
