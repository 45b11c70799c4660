// lib/ has no import cycle: `deno info --json main.ts` gives the module graph (static, dynamic and
// type-only imports alike), and no set of lib/ files may import one another in a ring.

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const ROOT = new URL("..", import.meta.url);
const LIB = new URL("lib/", ROOT).href;

/** Module → the modules it imports. */
type Graph = Map<string, string[]>;

/**
 * The import cycles of `graph`: each strongly connected component of more than one module, and
 * each module that imports itself (Tarjan's algorithm, one pass, iterative so depth is no limit).
 */
function findCycles(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    // Each frame is a module and how many of its imports have been followed.
    const frames: Array<{ node: string; edge: number }> = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++]!;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          frames.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.node);
      if (component.length > 1 || edges.includes(frame.node)) cycles.push(component.sort());
    }
  }
  return cycles;
}

Deno.test({
  name: "findCycles finds a two-file ring, a longer ring and a self-import, and nothing in a tree",
  permissions: "none",
  fn() {
    const graph = (edges: Record<string, string[]>): Graph => new Map(Object.entries(edges));
    assert.deepEqual(findCycles(graph({ a: ["b", "c"], b: ["c"], c: [] })), []);
    assert.deepEqual(findCycles(graph({ vision: ["direct", "shared"], direct: ["vision"] })), [
      ["direct", "vision"],
    ]);
    assert.deepEqual(
      findCycles(graph({ a: ["b"], b: ["c"], c: ["d", "a"], d: [], e: ["e"], f: ["a"] })),
      [["a", "b", "c"], ["e"]],
    );
  },
});

interface DenoInfo {
  modules: Array<{
    specifier: string;
    dependencies?: Array<{ code?: { specifier?: string }; type?: { specifier?: string } }>;
  }>;
}

/** lib/'s part of main.ts's module graph, keyed by path from the repository root. */
async function libGraph(): Promise<Graph> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "main.ts"],
    cwd: fileURLToPath(ROOT),
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  const info: DenoInfo = JSON.parse(new TextDecoder().decode(stdout));
  const inLib = (specifier: string | undefined): specifier is string =>
    specifier?.startsWith(LIB) === true;
  const name = (specifier: string) => specifier.slice(ROOT.href.length);
  const graph: Graph = new Map();
  for (const module of info.modules) {
    if (!inLib(module.specifier)) continue;
    const imports = (module.dependencies ?? [])
      .flatMap((d) => [d.code?.specifier, d.type?.specifier])
      .filter(inLib)
      .map(name);
    graph.set(name(module.specifier), [...new Set(imports)]);
  }
  return graph;
}

Deno.test("lib/ has no import cycle: vision.ts picks a route, the routes never import it back", async () => {
  const graph = await libGraph();
  // The graph is the real one: the seam and its lazily imported MCP route are in it.
  assert.ok(graph.get("lib/vision/vision.ts")?.includes("lib/vision/direct.ts"));
  assert.ok(graph.get("lib/vision/vision.ts")?.includes("lib/vision/mcp.ts"));
  assert.ok(graph.size >= 20, `only ${graph.size} lib/ modules in main.ts's graph`);
  assert.deepEqual(findCycles(graph), []);
});
