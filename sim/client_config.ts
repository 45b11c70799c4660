// The client configuration `deno task sim` prints: the command that runs phone-eye from this
// checkout (deno.json's start task, with main.ts made absolute) with ANDROID_SERIAL set. Pure.

/** The start task's shape, as scripts/runtime_flags.ts reads it: `deno run <flags> main.ts`. */
const START_TASK = /^deno run\s+(.*?)\s*main\.ts$/;

export interface ServerCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * phone-eye's command line for an MCP client: `deno` (the sim passes the absolute path of the
 * Deno running it: a client's PATH is often trimmed), the start task's flags read from deno.json
 * so they cannot drift, then main.ts as an absolute path, from which Deno finds deno.json (the
 * permission set, the imports) whatever the client's working folder.
 */
export function serverCommand(
  denoJson: unknown,
  where: { deno: string; mainTs: string; serial: string },
): ServerCommand {
  const { deno, mainTs, serial } = where;
  const tasks = (denoJson as { tasks?: Record<string, unknown> } | null)?.tasks;
  const start = tasks?.["start"];
  const match = typeof start === "string" ? START_TASK.exec(start.trim()) : null;
  if (!match) {
    throw new Error(
      `deno.json's "start" task must read "deno run <flags> main.ts" (got ${
        JSON.stringify(start)
      })`,
    );
  }
  const flags = match[1]!.split(/\s+/).filter((f) => f !== "");
  return { command: deno, args: ["run", ...flags, mainTs], env: { ANDROID_SERIAL: serial } };
}

/** POSIX single quoting where a word needs it, so the line pastes into sh, bash and zsh. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** `claude mcp add phone-eye --env K=V -- command args…` */
export function claudeMcpAdd(c: ServerCommand): string {
  const env = Object.entries(c.env).flatMap(([k, v]) => ["--env", `${k}=${v}`]);
  return ["claude", "mcp", "add", "phone-eye", ...env, "--", c.command, ...c.args]
    .map(shellWord).join(" ");
}

/** The `mcpServers` JSON most clients take (Cursor, Claude Desktop, Windsurf…). */
export function mcpServersJson(c: ServerCommand): string {
  return JSON.stringify(
    { mcpServers: { "phone-eye": { command: c.command, args: c.args, env: c.env } } },
    null,
    2,
  );
}
