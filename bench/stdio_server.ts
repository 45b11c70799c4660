// Any MCP server on stdio, driven by the SDK's real Client, with the timings and memory a bench
// compares across servers: spawn → initialize answered, → tools/list answered, and RSS.

import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

export interface StdioServerCommand {
  command: string;
  args: string[];
  /** Given in full on top of the SDK's few inherited variables (HOME, PATH, ...). */
  env: Record<string, string>;
  cwd?: string;
}

export interface StdioServer {
  client: Client;
  /** The spawned process: the server itself when `command` is its runtime (deno, node). */
  pid: number;
  /** Spawn → the initialize result received (what `client.connect` waits for). */
  initializeMs: number;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

/** Starts the server and completes the MCP handshake, timing it from just before the spawn. */
export async function startStdioServer(cmd: StdioServerCommand): Promise<StdioServer> {
  const transport = new StdioClientTransport({
    command: cmd.command,
    args: cmd.args,
    env: cmd.env,
    ...(cmd.cwd === undefined ? {} : { cwd: cmd.cwd }),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => {
    // Bounded: a chatty server must not grow the bench's own memory without end.
    if (stderr.length < 64 * 1024) stderr += new TextDecoder().decode(chunk);
  });
  const client = new Client({ name: "phone-eye-bench", version: "0" });
  const start = performance.now();
  try {
    await client.connect(transport);
  } catch (error) {
    await transport.close();
    throw new Error(
      `${cmd.command} ${cmd.args.join(" ")} did not complete the MCP handshake: ${
        (error as Error).message
      }${stderr ? `\nits stderr:\n${stderr.slice(-2000)}` : ""}`,
    );
  }
  const initializeMs = performance.now() - start;
  const pid = transport.pid;
  if (pid === null) throw new Error(`${cmd.command} exited right after the handshake`);
  return { client, pid, initializeMs, stderr: () => stderr, close: () => client.close() };
}

/**
 * Resident memory of a process in MiB (VmRSS in /proc/<pid>/status on Linux), or null when it
 * cannot be read. Read through `cat`: Deno grants another process's /proc entries only to
 * --allow-all, and a bench has no business asking for that.
 */
export async function rssMiB(pid: number): Promise<number | null> {
  try {
    const out = await new Deno.Command("cat", { args: [`/proc/${pid}/status`], stdin: "null" })
      .output();
    const kib = /^VmRSS:\s+(\d+)\s+kB$/m.exec(new TextDecoder().decode(out.stdout))?.[1];
    return kib === undefined ? null : Number(kib) / 1024;
  } catch {
    return null;
  }
}
