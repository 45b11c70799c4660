// Runs `main.ts --http` as a subprocess under deno.json's "http" permission set (-P=http, as
// `deno task serve-http` does) and connects the SDK's real Client to it over Streamable HTTP.
//
//   await using eye = await startHttpEye({ env: rig.env, args: ["--http", "127.0.0.1:0"] });
//   const client = await eye.connect({ token });

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { runtimeFlags } from "../../scripts/runtime_flags.ts";
import { denoDir } from "./phone_eye.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

/** deno.json's serve-http task's runtime flags: as `deno task serve-http` runs main.ts. */
async function serveHttpFlags(): Promise<string[]> {
  return runtimeFlags(JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)), "serve-http");
}

export interface HttpEyeOptions {
  /** ANDROID_SERIAL, the adb server, PHONE_EYE_HTTP_TOKEN … */
  env: Record<string, string>;
  /** main.ts's arguments: --http HOST:PORT and the TLS flags. */
  args: string[];
  /** Flags added after -P=http (--allow-read for the TLS files). */
  extraFlags?: string[];
  /** A lower limit on open descriptors, set by `ulimit -n` in a `sh` that then execs deno. */
  maxOpenFiles?: number;
}

export interface ConnectOptions {
  token?: string;
  /** The 2026-07-28 revision (pinned) or the 2025 handshake (the SDK client's default). */
  protocol?: "2026-07-28" | "2025-11-25";
  /** A fetch that trusts a test certificate. */
  fetch?: typeof fetch;
}

export interface HttpEye extends AsyncDisposable {
  /** The URL phone-eye printed it serves MCP at. */
  url: string;
  /** The deno process running main.ts (for /proc/<pid>/status). */
  pid: number;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** A connected SDK client; closed with the server. */
  connect(options?: ConnectOptions): Promise<Client>;
  close(): Promise<void>;
}

/** The outcome of a start that did not get to serving: the exit code and what was said. */
export interface RefusedStart {
  code: number;
  stderr: string;
}

function command(options: HttpEyeOptions, deno: string, flags: string[]): Deno.Command {
  // exec keeps the pid: the limited process is the one `pid` names.
  const limited = options.maxOpenFiles === undefined
    ? []
    : ["-c", `ulimit -n ${options.maxOpenFiles} && exec "$0" "$@"`, Deno.execPath()];
  return new Deno.Command(limited.length === 0 ? Deno.execPath() : "sh", {
    args: [
      ...limited,
      "run",
      "-q",
      "-P=http",
      "--no-prompt",
      ...(options.extraFlags ?? []),
      ...flags,
      `${ROOT}main.ts`,
      ...options.args,
    ],
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      DENO_DIR: deno,
      NO_COLOR: "1",
      ...options.env,
    },
    clearEnv: true,
    cwd: ROOT,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  });
}

/** Runs main.ts --http expecting it to refuse to start: waits for its exit. */
export async function refusedStart(options: HttpEyeOptions): Promise<RefusedStart> {
  const child = command(options, await denoDir(), await serveHttpFlags()).spawn();
  const [status, stderr] = await Promise.all([
    child.status,
    new Response(child.stderr).text(),
  ]);
  return { code: status.code, stderr };
}

/** Starts main.ts --http and waits for the line that says where it serves. */
export async function startHttpEye(options: HttpEyeOptions): Promise<HttpEye> {
  const child = command(options, await denoDir(), await serveHttpFlags()).spawn();
  let text = "";
  const decoder = new TextDecoder();
  const reader = child.stderr.getReader();
  const { promise: ready, resolve: announced, reject: failed } = Promise.withResolvers<string>();
  const reading = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      const url = /serving MCP at (\S+)/.exec(text)?.[1];
      if (url !== undefined) announced(url);
    }
    failed(new Error(`phone-eye --http exited before serving: ${text.trim()}`));
  })();
  let url: string;
  try {
    url = await ready;
  } catch (error) {
    await child.status;
    await reading;
    throw error;
  }
  const clients: Client[] = [];
  let closing: Promise<void> | undefined;
  const close = () =>
    closing ??= (async () => {
      for (const client of clients) await client.close().catch(() => {});
      try {
        child.kill("SIGTERM");
      } catch {
        // already gone
      }
      await child.status;
      await reading;
    })();
  return {
    url,
    pid: child.pid,
    stderr: () => text,
    async connect(connect = {}) {
      const transport = new StreamableHTTPClientTransport(new URL(url), {
        ...(connect.token === undefined
          ? {}
          : { requestInit: { headers: { Authorization: `Bearer ${connect.token}` } } }),
        ...(connect.fetch === undefined ? {} : { fetch: connect.fetch }),
      });
      const client = new Client(
        { name: "phone-eye-http-test", version: "0" },
        connect.protocol === "2026-07-28"
          ? { versionNegotiation: { mode: { pin: "2026-07-28" } } }
          : {},
      );
      await client.connect(transport);
      clients.push(client);
      return client;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
