// main.ts as a subprocess under the production permission set, spoken to in raw lines: for tests
// that must send what no SDK client would (broken JSON, odd ids, batches, huge lines) and read
// every line the server answers, whatever its id.
//
//   await using eye = await startRawPhoneEye({ env: rig.env });
//   await eye.initialize();
//   await eye.write('{"jsonrpc":"2.0","id":1,"method":"nope"}\n');
//   const reply = await eye.until((m) => m.id === 1);

import { lineSplitter } from "./deno_stdio_transport.ts";
import { denoEnv, testPermissionFlags } from "./phone_eye.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

/** One JSON-RPC line the server wrote, parsed. */
export interface Reply {
  jsonrpc?: string;
  id?: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
  method?: string;
}

export interface RawPhoneEye extends AsyncDisposable {
  /** The deno process running main.ts (for /proc/<pid>/status). */
  readonly pid: number;
  /** Writes text (UTF-8) or bytes to the server's stdin as they are. */
  write(data: string | Uint8Array): Promise<void>;
  /**
   * Waits for the first reply not yet taken that `match` accepts, and takes it. Replies it passes
   * over stay for later calls.
   */
  until(match: (reply: Reply) => boolean): Promise<Reply>;
  /** Takes every reply not yet taken. */
  drain(): Reply[];
  /** `initialize` then `notifications/initialized`, as any client opens. */
  initialize(): Promise<Reply>;
  /** Everything the server wrote to stderr so far (up to 1 MiB). */
  stderr(): string;
  /** Ends stdin and returns the exit status; SIGKILL after `graceMs` if the server stays. */
  close(graceMs?: number): Promise<Deno.CommandStatus>;
}

export interface RawPhoneEyeOptions {
  env: Record<string, string>;
  /**
   * Runtime flags before the permission flags (none by default). The start task's
   * (startFlags() in phone_eye.ts) run main.ts as production does, and its export condition
   * keeps the SDK from loading AJV: a cheaper start.
   */
  runtimeFlags?: string[];
}

const encoder = new TextEncoder();

export async function startRawPhoneEye(options: RawPhoneEyeOptions): Promise<RawPhoneEye> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      ...options.runtimeFlags ?? [],
      ...await testPermissionFlags(),
      `${ROOT}main.ts`,
    ],
    env: {
      ...await denoEnv(),
      ...options.env,
    },
    clearEnv: true,
    cwd: ROOT,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdin = child.stdin.getWriter();
  const pending: Reply[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  let failure: unknown;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };

  const reading = (async () => {
    try {
      const lines = child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(
        lineSplitter(64 * 1024 * 1024),
      );
      for await (const line of lines) {
        if (line.trim() === "") continue;
        pending.push(JSON.parse(line));
        notify();
      }
    } catch (error) {
      failure = error;
    } finally {
      ended = true;
      notify();
    }
  })();

  let stderr = "";
  const collecting = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      if (stderr.length < 1024 * 1024) stderr += chunk;
    }
  })();

  const until = async (match: (reply: Reply) => boolean): Promise<Reply> => {
    for (;;) {
      const i = pending.findIndex(match);
      if (i >= 0) return pending.splice(i, 1)[0]!;
      if (ended) {
        throw new Error(
          `phone-eye's stdout ended before the awaited reply${
            failure === undefined ? "" : ` (${String(failure)})`
          }; stderr: ${stderr.slice(-2000)}`,
        );
      }
      await new Promise<void>((resolve) => wake = resolve);
    }
  };

  let closing: Promise<Deno.CommandStatus> | undefined;
  const close = (graceMs = 5000) =>
    closing ??= (async () => {
      await stdin.close().catch(() => {});
      let timer: ReturnType<typeof setTimeout> | undefined;
      const killed = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          try {
            child.kill("SIGKILL");
          } catch { /* already gone */ }
          resolve();
        }, graceMs);
      });
      const status = await Promise.race([child.status, killed.then(() => child.status)]);
      clearTimeout(timer);
      await Promise.all([reading, collecting]);
      return status;
    })();

  let nextId = 0;
  return {
    pid: child.pid,
    write: (data) => stdin.write(typeof data === "string" ? encoder.encode(data) : data),
    until,
    drain: () => pending.splice(0),
    async initialize() {
      const id = `init-${nextId++}`;
      await stdin.write(encoder.encode(
        JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "raw-test", version: "0" },
          },
        }) + "\n" +
          JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n",
      ));
      return await until((m) => m.id === id);
    },
    stderr: () => stderr,
    close,
    [Symbol.asyncDispose]: async () => {
      await close();
    },
  };
}
