// `deno info --json main.ts`, run once per test process: the graph tests of tests/app/ read the
// same graph (module_graph_test.ts its layers and start-up, runtime_graph_test.ts its packages),
// and the group module that holds both pays one process for it.

import assert from "node:assert/strict";

const ROOT = new URL("../..", import.meta.url).pathname;

let info: Promise<unknown> | undefined;

/** main.ts's module graph as `deno info --json` prints it, parsed; each caller types its part. */
export function denoInfoOfMain(): Promise<unknown> {
  return info ??= (async () => {
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", "main.ts"],
      cwd: ROOT,
      env: { NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decoder = new TextDecoder();
    assert.equal(code, 0, `deno info main.ts failed:\n${decoder.decode(stderr)}`);
    return JSON.parse(decoder.decode(stdout));
  })();
}
