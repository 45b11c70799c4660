// The one place that spawns adb: Deno.Command with stdin closed and a timeout that kills the child.
// It reports what happened (spawned or not, timed out or exited) and leaves the meaning to errors.ts.

/** What one adb invocation did; classifyAdbFailure() turns the failures into messages. */
export type AdbOutcome =
  | { kind: "spawn-failed"; error: Error }
  | { kind: "timeout"; timeoutMs: number; stdout: Uint8Array; stderr: string }
  | { kind: "exited"; code: number; stdout: Uint8Array; stderr: string };

/** Runs `adb <args>`; never throws for adb's own failures, only returns them. */
export type RunAdb = (args: readonly string[], timeoutMs: number) => Promise<AdbOutcome>;

/**
 * Creates the real runner. stdin is "null" on purpose: `adb shell` reads its stdin (RemoteShell
 * starts stdin_read_thread_loop on STDIN_FILENO,
 * https://github.com/aosp-mirror/platform_system_core/blob/589da1a0e0220d9443dbdd03e9fb2a659bfd2f8c/adb/client/commandline.cpp#L610-L647,
 * tag platform-tools-29.0.6), and a child that inherited ours would swallow the MCP requests
 * arriving on it.
 */
export function createAdbRunner(binary = "adb"): RunAdb {
  return async (args, timeoutMs) => {
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command(binary, {
        args: [...args],
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
    } catch (error) {
      return { kind: "spawn-failed", error: error as Error };
    }
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      // SIGKILL, not SIGTERM: the deadline must hold whatever state adb is in, and SIGKILL is the
      // one signal that cannot be caught, blocked or ignored.
      try {
        child.kill("SIGKILL");
      } catch {
        // It exited between the timer firing and the kill: nothing to do.
      }
    }, timeoutMs);
    try {
      const { code, stdout, stderr } = await child.output();
      const err = new TextDecoder().decode(stderr);
      return timedOut
        ? { kind: "timeout", timeoutMs, stdout, stderr: err }
        : { kind: "exited", code, stdout, stderr: err };
    } finally {
      clearTimeout(timer);
    }
  };
}
