// The one place that spawns adb: stdin closed, an allowlisted environment, output read up to a cap,
// and a deadline that holds. It reports what happened and leaves the meaning to errors.ts.

import { releaseBytes } from "../core/bytes.ts";
import { ADB_ENV_NAMES } from "../config/env_vars.ts";

const MiB = 1024 * 1024;

/** What a command prints on stdout, which sets how much of it phone-eye reads (OUTPUT_CAPS). */
export type OutputKind = "image" | "text";

/**
 * The most stdout phone-eye reads per command before it stops adb. An image is a screenshot: the
 * raw RGBA frame of a 4K tablet is 3840 × 2400 × 4 B ≈ 35 MiB (a PNG of the same screen is no
 * larger, since deflate's stored blocks add ~0.01 %), so 64 MiB leaves room. Text is a UI dump or a
 * command's few lines; 16 MiB is three times the 5 MiB dump the UI-tree tests and benchmark treat as
 * huge (tests/fixtures/ui/big_dump.ts), against ~100 KiB for a typical screen.
 */
export const OUTPUT_CAPS: Readonly<Record<OutputKind, number>> = {
  image: 64 * MiB,
  text: 16 * MiB,
};

/** adb's own complaints on stderr are a few lines; past this it is not adb talking. */
export const STDERR_CAP = 1 * MiB;

/**
 * How long the readers may still take once adb has exited or been killed. SIGKILL reaches adb
 * only: a wrapper or shim that forked keeps the pipes open, and they would never end on their own.
 * What adb wrote before it ended is already in the pipe (at most a pipe buffer, 64 KiB on Linux),
 * so this only has to cover reading it.
 */
export const DRAIN_GRACE_MS = 250;

/** What one adb invocation did; classifyAdbFailure() turns the failures into messages. */
export type AdbOutcome =
  | { kind: "spawn-failed"; error: Error }
  /** The caller's signal aborted: adb was killed (or never started) and its output dropped. */
  | { kind: "cancelled" }
  | { kind: "timeout"; timeoutMs: number; stdout: Uint8Array; stderr: string }
  | { kind: "too-large"; stream: "stdout" | "stderr"; capBytes: number; output: OutputKind }
  | { kind: "exited"; code: number; stdout: Uint8Array; stderr: string };

/** The bounds of one run: its deadline, and what its stdout carries (which sets the cap). */
export interface AdbRunLimits {
  timeoutMs: number;
  output: OutputKind;
  /**
   * Ends the run at once when it aborts: adb is killed like at the deadline. Only for commands
   * safe to stop halfway (reads); the device layer never passes one with an action.
   */
  signal?: AbortSignal | undefined;
}

/** Runs `adb <args>`; never throws for adb's own failures, only returns them. */
export type RunAdb = (args: readonly string[], limits: AdbRunLimits) => Promise<AdbOutcome>;

/**
 * The environment adb runs with: the variables of ADB_ENV_NAMES (lib/config/env_vars.ts) that are set,
 * and nothing else. adb starts a server that outlives the call (a daemon, fork-server), and
 * whatever environment the first call had stays readable in its /proc/<pid>/environ for as long
 * as it runs: the vision API key must not be in it. A name this build may not read counts as
 * unset, like main.ts's readEnv.
 */
export function adbEnvironment(
  get: (name: string) => string | undefined = (name) => {
    try {
      return Deno.env.get(name);
    } catch {
      return undefined;
    }
  },
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ADB_ENV_NAMES) {
    const value = get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** A pipe being read up to a cap: what it gave, and whether it went past the cap. */
interface Drain {
  done: Promise<{ bytes: Uint8Array; overflowed: boolean }>;
  /** Stops reading: a pending read ends at once and the pipe is closed on our side. */
  cancel(): void;
}

/** Bytes a pipe read may take: the size of a Linux pipe's buffer. */
const READ_BYTES = 64 * 1024;

/**
 * Reads a pipe until it ends or passes `cap`; past the cap it calls onOverflow and stops.
 *
 * Each read goes into one scratch buffer handed back and forth (a BYOB reader) and is copied into
 * an output that doubles as it fills. A default reader would allocate 64 KiB for every read, and
 * one more at the end of the pipe that it never hands out: two per adb call (stdout and stderr),
 * kept until a full collection, which made every call leave some 128 KiB behind
 * (bench/memory_bench.ts).
 */
function drain(stream: ReadableStream<Uint8Array>, cap: number, onOverflow: () => void): Drain {
  const reader = stream.getReader({ mode: "byob" });
  let overflowed = false;
  const done = (async () => {
    let scratch = new ArrayBuffer(READ_BYTES);
    let out = new Uint8Array(0);
    let size = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read(new Uint8Array(scratch));
        if (done || value === undefined) break;
        scratch = value.buffer as ArrayBuffer; // the read hands the buffer back
        if (size + value.length > cap) {
          // What arrived is of no use past the cap: let it go before anything else is allocated.
          overflowed = true;
          out = new Uint8Array(0);
          size = 0;
          onOverflow();
          await reader.cancel();
          break;
        }
        if (size + value.length > out.length) {
          const grown = new Uint8Array(
            Math.min(cap, Math.max(out.length * 2, size + value.length)),
          );
          grown.set(out.subarray(0, size));
          releaseBytes(out);
          out = grown;
        }
        out.set(value, size);
        size += value.length;
      }
    } catch {
      // The pipe broke or was closed under the read: keep what arrived.
    }
    const bytes = size === out.length ? out : new Uint8Array(out.buffer.transfer(size));
    return { bytes, overflowed };
  })();
  return { done, cancel: () => void reader.cancel().catch(() => {}) };
}

/**
 * Creates the real runner. stdin is "null" on purpose: `adb shell` reads its stdin (RemoteShell
 * starts stdin_read_thread_loop on STDIN_FILENO,
 * https://github.com/aosp-mirror/platform_system_core/blob/589da1a0e0220d9443dbdd03e9fb2a659bfd2f8c/adb/client/commandline.cpp#L610-L647,
 * tag platform-tools-29.0.6), and a child that inherited ours would swallow the MCP requests
 * arriving on it. The environment is read once, here: adbEnvironment() unless given.
 */
export interface AdbRunnerOptions {
  /** The adb to run (default "adb", found on PATH). */
  binary?: string;
  /** The whole environment adb gets (default adbEnvironment()). */
  env?: Record<string, string>;
  /** Where each adb process is kept while it runs, so main.ts can end them all on the way out. */
  running?: Set<Deno.ChildProcess> | undefined;
}

export function createAdbRunner(options: AdbRunnerOptions = {}): RunAdb {
  const { binary = "adb", env = adbEnvironment(), running } = options;
  return async (args, { timeoutMs, output, signal }) => {
    if (signal?.aborted) return { kind: "cancelled" };
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command(binary, {
        args: [...args],
        env,
        clearEnv: true,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
    } catch (error) {
      return { kind: "spawn-failed", error: error as Error };
    }
    running?.add(child);
    let stopped: "timeout" | "cancelled" | "stdout" | "stderr" | undefined;
    const stop = (why: NonNullable<typeof stopped>) => {
      if (stopped !== undefined) return;
      stopped = why;
      // SIGKILL, not SIGTERM: the deadline must hold whatever state adb is in, and SIGKILL is the
      // one signal that cannot be caught, blocked or ignored.
      try {
        child.kill("SIGKILL");
      } catch {
        // It exited between the decision and the kill: nothing to do.
      }
    };
    const stdout = drain(child.stdout, OUTPUT_CAPS[output], () => stop("stdout"));
    const stderr = drain(child.stderr, STDERR_CAP, () => stop("stderr"));
    const timer = setTimeout(() => stop("timeout"), timeoutMs);
    const cancel = () => stop("cancelled");
    signal?.addEventListener("abort", cancel, { once: true });
    let code: number;
    try {
      code = (await child.status).code;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", cancel);
      running?.delete(child);
    }
    // adb has ended. Its pipes end with it unless a process it forked still holds them: the readers
    // get DRAIN_GRACE_MS more, then are cancelled, so the answer never waits on that process.
    const drained = Promise.all([stdout.done, stderr.done]);
    let grace: ReturnType<typeof setTimeout> | undefined;
    const inTime = await Promise.race([
      drained.then(() => true),
      new Promise<false>((resolve) => grace = setTimeout(() => resolve(false), DRAIN_GRACE_MS)),
    ]);
    clearTimeout(grace);
    if (!inTime) {
      stdout.cancel();
      stderr.cancel();
    }
    const [out, err] = await drained;
    if (stopped === "stdout" || stopped === "stderr") {
      return {
        kind: "too-large",
        stream: stopped,
        capBytes: stopped === "stdout" ? OUTPUT_CAPS[output] : STDERR_CAP,
        output,
      };
    }
    if (stopped === "cancelled") {
      releaseBytes(out.bytes);
      return { kind: "cancelled" };
    }
    const errText = new TextDecoder().decode(err.bytes);
    return stopped === "timeout"
      ? { kind: "timeout", timeoutMs, stdout: out.bytes, stderr: errText }
      : { kind: "exited", code, stdout: out.bytes, stderr: errText };
  };
}
