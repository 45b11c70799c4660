// Times the imports main.ts pays for before it can answer tools/list, in this process, and prints
// them as JSON. Run by bench/hand_bench.ts in a fresh process per sample (a module loads once).

const times: Record<string, number> = {};
let t = performance.now();
for (
  const [name, load] of [
    ["zod", () => import("zod")],
    ["mcp server sdk", () => import("@modelcontextprotocol/server")],
    ["mcp stdio", () => import("@modelcontextprotocol/server/stdio")],
    ["phone-eye lib", () => import("../lib/server.ts")],
  ] as const
) {
  await load();
  const now = performance.now();
  times[name] = now - t;
  t = now;
}
// deno-lint-ignore no-console
console.log(JSON.stringify(times));
