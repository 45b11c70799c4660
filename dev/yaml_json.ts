// Reads YAML files with the `yaml` package and prints them as one JSON object, path → document,
// every scalar a string. For tests/app/workflows_test.ts, which checks what the workflows say.
//
//   deno run -P --no-prompt --config dev/deno.json dev/yaml_json.ts <file.yml>...
//
// It lives in dev/, a Deno project with its own lockfile, for the reason dev/actionlint.ts gives:
// a test-only package in the root lockfile would be downloaded on every install of the server.

import { parse } from "yaml";

const MAX_SOURCE = 1024 * 1024; // a workflow is a few KB; refuse to read without end

if (Deno.args.length === 0) throw new Error("usage: yaml_json.ts <file.yml>...");
const documents: Record<string, unknown> = {};
for (const path of Deno.args) {
  const { size } = await Deno.stat(path);
  if (size > MAX_SOURCE) throw new Error(`${path}: over ${MAX_SOURCE} bytes`);
  // The failsafe schema reads every scalar as the string written, which is how GitHub hands
  // `with:` inputs and `env:` values to a step; strict with unique keys fails on any doubt.
  documents[path] = parse(await Deno.readTextFile(path), {
    schema: "failsafe",
    strict: true,
    uniqueKeys: true,
    prettyErrors: true,
  });
}
await Deno.stdout.write(new TextEncoder().encode(JSON.stringify(documents)));
