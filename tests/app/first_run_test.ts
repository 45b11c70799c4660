// A first run as a person makes it: `deno task start` typed in a terminal (a real pty, through
// util-linux `script`) says once that phone-eye waits for an MCP client and where the client
// configs are, without Deno's experimental-permissions warning; an MCP client's pipe gets nothing.

import assert from "node:assert/strict";
import denoJson from "../../deno.json" with { type: "json" };
import { TERMINAL_HINT } from "../../lib/app/serve_stdio.ts";
import { denoDir, denoEnv } from "../helpers/phone_eye.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

const hasScript = await new Deno.Command("script", { args: ["--version"], stdout: "null" })
  .output().then((o) => o.success, () => false);

Deno.test({
  name: "deno task start in a terminal says it waits for an MCP client, once, and nothing else",
  ignore: !hasScript,
  async fn() {
    const home = await Deno.makeTempDir({ prefix: "phone_eye_first_run_" });
    // `script` gives the command a pty for stdin/stdout/stderr and copies what it prints to ours.
    const child = new Deno.Command("script", {
      args: ["-q", "-e", "-c", "deno task start", "/dev/null"],
      cwd: ROOT,
      clearEnv: true,
      env: {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        HOME: home,
        DENO_DIR: await denoDir(),
        NO_COLOR: "1",
        TERM: "dumb",
      },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const stdin = child.stdin.getWriter();
    let seen = "";
    let interrupted = false;
    // A watchdog, not a wait: if the hint never comes, Ctrl-C ends the run and the test fails.
    const watchdog = setTimeout(() => {
      if (!interrupted) {
        interrupted = true;
        stdin.write(new Uint8Array([3])).then(() => stdin.close()).catch(() => {});
      }
    }, 60_000);
    try {
      const decoder = new TextDecoder();
      for await (const chunk of child.stdout) {
        seen += decoder.decode(chunk, { stream: true });
        if (!interrupted && seen.includes(TERMINAL_HINT)) {
          interrupted = true;
          // What a person does next: Ctrl-C, which the pty turns into SIGINT for the task.
          await stdin.write(new Uint8Array([3]));
          await stdin.close();
        }
      }
    } finally {
      clearTimeout(watchdog);
      const status = await child.status;
      await child.stderr.cancel();
      await Deno.remove(home, { recursive: true });
      assert.ok(seen.includes(TERMINAL_HINT), `no hint in: ${JSON.stringify(seen)}`);
      assert.notEqual(status.code, 0, "ended by Ctrl-C");
    }
    const lines = seen.split(/\r?\n/).filter((l) => l.trim() !== "" && l.trim() !== "^C");
    assert.deepEqual(lines, [`Task start ${denoJson.tasks.start}`, TERMINAL_HINT]);
    assert.doesNotMatch(seen, /experimental feature/);
    assert.match(TERMINAL_HINT, /waiting for an MCP client on stdin/);
    assert.match(TERMINAL_HINT, /"Add it to your MCP client"/);
  },
});

Deno.test("an MCP client's pipe on stdin gets no terminal hint", async () => {
  // The start task's own command line, runtime flags included, as the client configs run it.
  const { code, stderr, stdout } = await new Deno.Command(Deno.execPath(), {
    args: denoJson.tasks.start.split(" ").slice(1),
    cwd: ROOT,
    clearEnv: true,
    env: await denoEnv(),
    // Closed at once: the server reads the end of its input and exits.
    stdin: "null",
  }).output();
  assert.equal(code, 0);
  assert.equal(new TextDecoder().decode(stderr), "");
  assert.equal(new TextDecoder().decode(stdout), "");
});
