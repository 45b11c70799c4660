// A stdio client transport for the SDK's Client on Deno.Command: spawns an MCP server, reads its
// JSON-RPC lines from stdout, keeps its stderr, and closes by ending stdin and awaiting the exit.
//
// Why not the SDK's StdioClientTransport: its close() races the child's "close" event against a
// 2 s timer it never clears (dist/stdio.mjs in @modelcontextprotocol/client 2.4.0), so every test
// either waited the timer out or switched the ops sanitizer off. Here the exit itself is the event,
// and the one bound (for a child that does not exit) is a timer cleared as soon as the child exits.

import {
  deserializeMessage,
  type JSONRPCMessage,
  serializeMessage,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
  type Transport,
} from "@modelcontextprotocol/client";

export interface DenoStdioServer {
  command: string;
  args?: string[];
  /** The child's whole environment: nothing is inherited from the test process. */
  env?: Record<string, string>;
  cwd?: string;
  /** Longest stdout line accepted, in UTF-16 units; default the SDK's stdio buffer cap (10 MiB). */
  maxLineChars?: number;
  /** stderr kept for stderrText(); the rest is read and dropped. Default 1 MiB. */
  maxStderrChars?: number;
  /**
   * How long close() lets the child exit after its stdin ends, and again after SIGTERM, before the
   * next step (SIGTERM, then SIGKILL); also how long it waits for pipes a grandchild still holds.
   * A bound, not a sleep: a child that exits promptly ends the wait at once. Default 5000 ms.
   */
  exitGraceMs?: number;
}

/**
 * Splits decoded text into lines without their "\n" or "\r\n". A line longer than `maxChars`
 * errors the stream, so a server that never writes a newline cannot grow memory without bound.
 */
export function lineSplitter(maxChars: number): TransformStream<string, string> {
  let partial = "";
  const tooLong = (length: number) =>
    new RangeError(`a stdout line exceeded ${maxChars} characters (${length} so far)`);
  return new TransformStream({
    transform(chunk, controller) {
      let start = 0;
      for (let nl = chunk.indexOf("\n"); nl >= 0; nl = chunk.indexOf("\n", start)) {
        const line = partial + chunk.slice(start, nl);
        partial = "";
        start = nl + 1;
        if (line.length > maxChars + 1) return controller.error(tooLong(line.length));
        controller.enqueue(line.endsWith("\r") ? line.slice(0, -1) : line);
      }
      partial += chunk.slice(start);
      if (partial.length > maxChars) controller.error(tooLong(partial.length));
    },
    flush(controller) {
      if (partial !== "") controller.enqueue(partial);
    },
  });
}

/** Resolves true when `promise` settles within `ms`, false otherwise; the timer never outlives it. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), ms));
  try {
    return await Promise.race([promise.then(() => true, () => true), expired]);
  } finally {
    clearTimeout(timer);
  }
}

const encoder = new TextEncoder();

export class DenoStdioClientTransport implements Transport {
  onclose?: Transport["onclose"];
  onerror?: Transport["onerror"];
  onmessage?: Transport["onmessage"];

  readonly #server: DenoStdioServer;
  #child: Deno.ChildProcess | undefined;
  #stdin: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #stderr = "";
  /** Cancels the stdout and stderr pipes when a grandchild keeps them open after the exit. */
  readonly #stopReading = new AbortController();
  /** Both pipes drained (or cancelled) and the exit status in; onclose has run. */
  #finished: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  #closedNotified = false;

  constructor(server: DenoStdioServer) {
    this.#server = server;
  }

  /** The child's exit status; rejects before start(). */
  get status(): Promise<Deno.CommandStatus> {
    if (this.#child === undefined) return Promise.reject(new Error("not started"));
    return this.#child.status;
  }

  /** The child's process id; undefined before start(). */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Everything the child wrote to stderr so far (up to maxStderrChars). */
  stderrText(): string {
    return this.#stderr;
  }

  start(): Promise<void> {
    if (this.#child !== undefined) {
      return Promise.reject(new Error("DenoStdioClientTransport already started"));
    }
    const server = this.#server;
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command(server.command, {
        args: server.args ?? [],
        env: server.env ?? {},
        clearEnv: true,
        ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
    } catch (error) {
      return Promise.reject(error);
    }
    this.#child = child;
    this.#stdin = child.stdin.getWriter();
    const drained = Promise.all([
      this.#readStdout(child.stdout),
      this.#collectStderr(child.stderr),
    ]);
    // A grandchild (a daemon the server started) may hold the pipes after the child exits: give
    // them the grace period once the child is gone, then stop reading them.
    const exited = child.status.then(async () => {
      if (!await settlesWithin(drained, server.exitGraceMs ?? 5000)) this.#stopReading.abort();
    });
    this.#finished = Promise.all([drained, exited]).then(() => this.#notifyClosed());
    return Promise.resolve();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#stdin === undefined || this.#closing !== undefined) {
      throw new Error("Not connected: the transport is not started or already closed");
    }
    await this.#stdin.write(encoder.encode(serializeMessage(message)));
  }

  /** Ends stdin and waits for the exit; SIGTERM, then SIGKILL, only for a child that stays. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    const child = this.#child;
    if (child === undefined) return this.#notifyClosed();
    const grace = this.#server.exitGraceMs ?? 5000;
    // Not awaited on its own: a child that stopped reading would hold a pending write forever.
    const stdinClosed = this.#stdin!.close().catch(() => {});
    for (const signal of ["SIGTERM", "SIGKILL"] as const) {
      if (await settlesWithin(child.status, grace)) break;
      try {
        child.kill(signal);
      } catch {
        // It exited between the check and the kill.
      }
    }
    await child.status;
    await stdinClosed;
    await this.#finished;
  }

  #notifyClosed(): void {
    if (this.#closedNotified) return;
    this.#closedNotified = true;
    this.onclose?.();
  }

  #error(error: unknown): void {
    this.onerror?.(error instanceof Error ? error : new Error(String(error)));
  }

  async #readStdout(stdout: ReadableStream<Uint8Array>): Promise<void> {
    const lines = stdout
      .pipeThrough(new TextDecoderStream(), { signal: this.#stopReading.signal })
      .pipeThrough(lineSplitter(this.#server.maxLineChars ?? STDIO_DEFAULT_MAX_BUFFER_SIZE));
    try {
      for await (const line of lines) {
        if (line.trim() === "") continue;
        let message: JSONRPCMessage;
        try {
          message = deserializeMessage(line);
        } catch (error) {
          this.#error(
            new Error(`stdout line is not a JSON-RPC message: ${line.slice(0, 200)}`, {
              cause: error,
            }),
          );
          continue;
        }
        try {
          this.onmessage?.(message);
        } catch (error) {
          this.#error(error);
        }
      }
    } catch (error) {
      if (this.#stopReading.signal.aborted) return;
      // The line cap tripped: nothing more from this child can be trusted to frame correctly.
      this.#error(error);
      void this.close();
    }
  }

  async #collectStderr(stderr: ReadableStream<Uint8Array>): Promise<void> {
    const max = this.#server.maxStderrChars ?? 1024 * 1024;
    try {
      const text = stderr.pipeThrough(new TextDecoderStream(), {
        signal: this.#stopReading.signal,
      });
      for await (const chunk of text) {
        if (this.#stderr.length < max) this.#stderr += chunk.slice(0, max - this.#stderr.length);
      }
    } catch (error) {
      if (!this.#stopReading.signal.aborted) this.#error(error);
    }
  }
}
