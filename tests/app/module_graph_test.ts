// lib/ has no import cycle: `deno info --json main.ts` gives the module graph (static, dynamic and
// type-only imports alike), and no set of lib/ files may import one another in a ring. Start-up
// loads only main.ts's static closure, which leaves the eyes, vision routes and doctor out.

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import denoJson from "../../deno.json" with { type: "json" };
import { runtimeFlags } from "../../scripts/runtime_flags.ts";
import { denoInfoOfMain } from "../helpers/main_graph.ts";

const ROOT = new URL("../..", import.meta.url);
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
    /** An npm module's package, as "name@version" (a key of npmPackages). */
    npmPackage?: string;
    dependencies?: Array<{
      code?: { specifier?: string };
      type?: { specifier?: string };
      isDynamic?: boolean;
    }>;
  }>;
  redirects: Record<string, string>;
  npmPackages: Record<string, { name: string; dependencies: string[] }>;
}

/** Runs `deno ARGS` in the repository and returns its stdout; a failure fails the test. */
async function deno(args: string[]): Promise<string> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: fileURLToPath(ROOT),
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  return new TextDecoder().decode(stdout);
}

/** `deno info main.ts`, asked once per test process (runtime_graph_test.ts reads it too). */
async function denoInfo(): Promise<DenoInfo> {
  return await denoInfoOfMain() as DenoInfo;
}

/** lib/'s part of main.ts's module graph, keyed by path from the repository root. */
async function libGraph(): Promise<Graph> {
  const info = await denoInfo();
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

/** A module of main.ts's graph: a file or npm entry point (`specifier`), or an npm package. */
type Node = { specifier: string } | { npmPackage: string };

/**
 * What Deno evaluates before main.ts runs: its static imports, transitively (dynamic imports
 * load when a handler first runs), and every package an npm package it reaches depends on. Each
 * module (a local file by path from the root, an npm package as `npm:name`) maps to a shortest
 * chain of imports from main.ts to it, so a failure names the file that imports it. With
 * `dynamic`, dynamic imports are followed too: all that `deno compile` embeds.
 */
async function startupModules({ dynamic = false } = {}): Promise<Map<string, string[]>> {
  const info = await denoInfo();
  const modules = new Map(info.modules.map((m) => [m.specifier, m]));
  const name = (specifier: string) =>
    specifier.startsWith(ROOT.href)
      ? specifier.slice(ROOT.href.length)
      : specifier.replace(/^npm:\/?((?:@[^/]+\/)?[^@/]+).*$/, "npm:$1");
  /** What `node` imports statically, each with its name. */
  const importsOf = (node: Node): Array<[string, Node]> => {
    const module = "specifier" in node
      ? modules.get(info.redirects[node.specifier] ?? node.specifier)
      : undefined;
    // An npm package's own imports are not in the graph: its description names its dependencies.
    const npmPackage = "npmPackage" in node ? node.npmPackage : module?.npmPackage;
    if (npmPackage !== undefined) {
      return (info.npmPackages[npmPackage]?.dependencies ?? []).map((id) => [
        `npm:${info.npmPackages[id]?.name ?? id}`,
        { npmPackage: id },
      ]);
    }
    return (module?.dependencies ?? []).flatMap((dep): Array<[string, Node]> => {
      const to = dep.code?.specifier;
      return (dynamic || !dep.isDynamic) && to ? [[name(to), { specifier: to }]] : [];
    });
  };
  const chains = new Map([["main.ts", ["main.ts"]]]);
  const queue: Array<{ node: Node; chain: string[] }> = [
    { node: { specifier: new URL("main.ts", ROOT).href }, chain: ["main.ts"] },
  ];
  // Breadth first, so the chain each module is first reached by is a shortest one.
  for (let at = queue.shift(); at !== undefined; at = queue.shift()) {
    for (const [key, node] of importsOf(at.node)) {
      if (chains.has(key)) continue;
      const chain = [...at.chain, key];
      chains.set(key, chain);
      queue.push({ node, chain });
    }
  }
  return chains;
}

Deno.test("start-up loads only what initialize and tools/list need; the eyes, vision and doctor wait for first use", async () => {
  const startup = await startupModules();
  // tools/list shows each verb's zod schema, so the definitions load at start-up.
  for (const needed of ["lib/mcp/server.ts", "lib/tools/index.ts", "lib/tools/phone_look.ts"]) {
    assert.ok(
      startup.has(needed),
      `${needed} answers tools/list: it must be in the start-up graph`,
    );
  }
  assert.ok(startup.has("npm:@modelcontextprotocol/server"));
  const onFirstUse = [
    "lib/look/look.ts",
    "lib/screen/screen.ts",
    ...[
      "encode",
      "frame",
      "png_chunks",
      "png_decode",
      "png_other_layouts",
      "png_unfilter",
      "raw_screencap",
      "row_reducer",
      "row_sinks",
      "sizing",
    ].map((step) => `lib/image/${step}.ts`),
    ...["ui_tree", "ui_tree_labels", "ui_tree_summary", "ui_tree_xml"].map(
      (part) => `lib/screen/${part}.ts`,
    ),
    "lib/look/fusion.ts",
    ...["doctor", "doctor_check", "doctor_permissions", "doctor_phone", "doctor_vision"].map(
      (part) => `lib/app/${part}.ts`,
    ),
    "lib/app/help.ts",
    "lib/vision/direct.ts",
    "lib/vision/mcp.ts",
    "lib/vision/mcp_session.ts",
  ];
  assert.deepEqual(onFirstUse.flatMap((m) => startup.get(m)?.join(" -> ") ?? []), []);
  // No Node built-in at start-up: stdio runs on Deno's own streams (lib/mcp/stdio_wire.ts) and flags.ts
  // loads node:util's parseArgs only when there are flags; Node's compatibility layer costs time.
  assert.deepEqual([...startup.keys()].filter((m) => m.startsWith("node:")), []);
  // They are still in the graph, imported dynamically (so `deno info` and compile see them).
  const all = await libGraph();
  for (const lib of onFirstUse.filter((m) => m.startsWith("lib/"))) assert.ok(all.has(lib), lib);
});

Deno.test("start-up loads neither the MCP client SDK nor an image codec: each waits for the call that needs it", async () => {
  const startup = await startupModules();
  // The walk sees through npm packages (the server SDK depends on its core), so a codec pulled in
  // by another package (fflate under fast-png) would be named too.
  assert.ok(startup.has("npm:@modelcontextprotocol/core"));
  // Loading them costs some 90 ms of CPU (a script importing the server SDK, its stdio and zod
  // took ~220 ms a run, ~310 ms with these too), and only the MCP vision route, --replay or an
  // image needs one: a failure names the chain of imports that reaches it.
  const packages = ["@modelcontextprotocol/client", "fast-png", "jpeg-js", "fflate"];
  assert.deepEqual(packages.flatMap((p) => startup.get(`npm:${p}`)?.join(" -> ") ?? []), []);
  // ...while `deno compile` still embeds them: they are reached through dynamic imports.
  const embedded = await startupModules({ dynamic: true });
  for (const p of packages) assert.ok(embedded.has(`npm:${p}`), `${p} is not in main.ts's graph`);
});

Deno.test("under the start task's flags the MCP SDK picks its validator without AJV", async () => {
  const shims = `npm:@modelcontextprotocol/server@${
    denoJson.imports["@modelcontextprotocol/server"].split("@").at(-1)
  }/_shims`;
  const resolve = async (flags: string[]) =>
    (await deno([
      "eval",
      ...flags,
      `console.log(import.meta.resolve(${JSON.stringify(shims)}))`,
    ])).trim();
  const flags = runtimeFlags(denoJson);
  assert.ok(flags.includes("--conditions=browser"), `start task flags: ${flags.join(" ")}`);
  // The default export condition loads AJV with the Node shim; the start task's does not.
  assert.match(await resolve([]), /\/shimsNode\.mjs$/);
  assert.match(await resolve(flags), /\/shimsBrowser\.mjs$/);
});

/**
 * lib/'s folders from the bottom up: a module imports only from its own folder and the folders
 * before it (type imports too). docs/structure.md says what each folder holds.
 */
export const LAYERS = [
  "core",
  "config",
  "adb",
  "image",
  "vision",
  "screen",
  "look",
  "tools",
  "mcp",
  "app",
] as const;

/** Each import in `graph` that reaches a later folder than its own, as `from -> to`. */
function upwardImports(graph: Graph): string[] {
  const rank = (path: string) => LAYERS.indexOf(path.split("/")[1] as typeof LAYERS[number]);
  const found: string[] = [];
  for (const [from, imports] of graph) {
    for (const to of imports) if (rank(to) > rank(from)) found.push(`${from} -> ${to}`);
  }
  return found.sort();
}

Deno.test({
  name: "upwardImports names the file that imports a later folder, and nothing in order",
  permissions: "none",
  fn() {
    const graph: Graph = new Map([
      ["lib/look/look.ts", ["lib/tools/tool.ts", "lib/screen/screen.ts"]],
      ["lib/screen/screen.ts", ["lib/adb/device.ts", "lib/core/text.ts"]],
    ]);
    assert.deepEqual(upwardImports(graph), ["lib/look/look.ts -> lib/tools/tool.ts"]);
  },
});

Deno.test("lib/'s folders are its layers: every module sits in one, and none imports a later one", async () => {
  const graph = await libGraph();
  const misplaced: string[] = [];
  for await (const entry of Deno.readDir(new URL("lib/", ROOT))) {
    if (!(LAYERS as readonly string[]).includes(entry.name)) misplaced.push(`lib/${entry.name}`);
  }
  assert.deepEqual(misplaced, [], `lib/ holds only the folders ${LAYERS.join(", ")}`);
  assert.deepEqual(upwardImports(graph), []);
});
