// The flags phone-eye runs with besides its permissions (npm export conditions, V8 settings), read
// from the one place they are written: deno.json's "start" task. Compile, tests and benches use it.

/** The start task's shape: `deno run`, flags, then main.ts and nothing after it. */
const START_TASK = /^deno run\s+(.*?)\s*main\.ts$/;

/**
 * Flags the start task carries that are not runtime flags: permissions come from the set, and
 * -q only quiets Deno's own notices.
 */
const NOT_RUNTIME = /^(-P(=.*)?|--permission-set(=.*)?|--no-prompt|-q|--quiet)$/;

/**
 * The runtime flags of deno.json's "start" task, in order: everything between `deno run` and
 * `main.ts` except the permission flags (-P, --no-prompt), which the permission set stands for,
 * and -q.
 * Throws when the task is missing or shaped otherwise, so a renamed task cannot silently drop
 * them from compiled binaries.
 */
export function runtimeFlags(denoJson: unknown, task = "start"): string[] {
  const tasks = (denoJson as { tasks?: Record<string, unknown> } | null)?.tasks;
  const start = tasks?.[task];
  const match = typeof start === "string" ? START_TASK.exec(start.trim()) : null;
  if (!match) {
    throw new Error(
      `deno.json's "${task}" task must read "deno run <flags> main.ts" (got ${
        JSON.stringify(start)
      })`,
    );
  }
  return match[1]!.split(/\s+/).filter((flag) => flag !== "" && !NOT_RUNTIME.test(flag));
}
