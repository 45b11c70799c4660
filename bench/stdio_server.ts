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
 * One /proc/<pid> file as text, or null when it cannot be read. Read through `cat`: Deno grants
 * another process's /proc entries only to --allow-all, and a bench has no business asking for that.
 */
async function procFile(pid: number, name: string): Promise<string | null> {
  try {
    const out = await new Deno.Command("cat", { args: [`/proc/${pid}/${name}`], stdin: "null" })
      .output();
    return out.success ? new TextDecoder().decode(out.stdout) : null;
  } catch {
    return null;
  }
}

/** Resident memory of a process in MiB (VmRSS in /proc/<pid>/status on Linux), or null. */
export async function rssMiB(pid: number): Promise<number | null> {
  const kib = /^VmRSS:\s+(\d+)\s+kB$/m.exec(await procFile(pid, "status") ?? "")?.[1];
  return kib === undefined ? null : Number(kib) / 1024;
}

/**
 * Minor page faults a process has taken so far (minflt, field 10 of /proc/<pid>/stat), or null.
 * Each is a page of memory touched for the first time; on a VM one costs microseconds.
 */
export async function minorFaults(pid: number): Promise<number | null> {
  const stat = await procFile(pid, "stat");
  // Fields after the command name, which is in parentheses and may itself hold spaces.
  const fields = stat?.slice(stat.lastIndexOf(")") + 2).split(" ");
  return fields?.[7] === undefined ? null : Number(fields[7]);
}
