// Serves MCP on stdin and stdout: the wire, the servers' shared resources, the preload of the eyes
// once the tool list is out, and the end: at the end of input the calls are answered, then adb ends.

import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { type Config, VERSION } from "../config/config.ts";
import { createServer, preloadAfterFirstAnswer, preloadTools } from "../mcp/server.ts";
import { StdioWire } from "../mcp/stdio_wire.ts";
import { logError, writeErr } from "./print.ts";
import { serverDeps } from "./real_deps.ts";

/**
 * Said once on stderr when a person starts phone-eye in a terminal (stdin is a TTY): it is a
 * stdio server waiting for an MCP client, and a silent terminal would otherwise look like a hang.
 */
export const TERMINAL_HINT =
  `phone-eye ${VERSION} is an MCP server and is waiting for an MCP client on stdin: add it to your client instead (the README's "Add it to your MCP client" has the Claude Code, Codex and Cursor configs). "phone-eye --doctor" (from source: deno task doctor) checks adb, the phone and vision. Ctrl-C quits.`;

/** Serves until stdin ends; then the process exits once every answer is out. */
export function serveOnStdio(config: Config): void {
  if (Deno.stdin.isTerminal()) writeErr(TERMINAL_HINT);
  const { deps, memory, running } = serverDeps(config);
  const preload = preloadAfterFirstAnswer(() => preloadTools(logError));
  // Answers every line that is not a JSON-RPC message, and survives one that is too long.
  const wire = new StdioWire(Deno.stdin, Deno.stdout, {
    afterSend(message) {
      // A screenshot's garbage, collected once its answer has been written (lib/core/memory.ts).
      memory.afterSend();
      // The eyes, loaded once the client has its tool list, so the first look is not slower.
      preload(message);
    },
    // At the end of input each call still in flight is answered first: the longest one is a look
    // (its budget) whose device may first need one adb call to come back (its deadline).
    drainLimitMs: config.lookBudgetMs + config.adbTimeoutMs,
  });
  // Every answer is out (or the drain limit passed): what adb still runs has no one to answer to.
  void wire.closed.then(() => {
    for (const child of running) {
      try {
        child.kill("SIGKILL");
      } catch {
        // It exited on its own in the meantime.
      }
    }
    Deno.exit(0);
  });
  serveStdio(() => createServer(deps), {
    transport: wire,
    onerror: (error) => writeErr(`phone-eye: transport error: ${error.message}`),
  });
}
