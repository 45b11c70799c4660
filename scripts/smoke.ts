// `deno task smoke`: starts phone-eye (main.ts under the production permission set, or a compiled
// binary) as an MCP client would, calls tools/list over stdio (or, with --http, over HTTP with a
// token) and checks the eight verbs are there; --refuses-http checks a stdio build refuses --http.
// deno-lint-ignore-file no-console -- a CLI script: the terminal is its only output

import { parseArgs } from "node:util";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import denoJson from "../deno.json" with { type: "json" };
import { HTTP_BINARY } from "../lib/mcp/http_settings.ts";
import { BINARIES, type BinaryKind, binarySetName } from "./binaries.ts";
import { runtimeFlags } from "./runtime_flags.ts";

/** The verbs of SPEC §4 and phone_devices; a binary that lists any other set is not phone-eye. */
export const EXPECTED_TOOLS = [
  "phone_look",
  "phone_tap",
  "phone_swipe",
  "phone_type",
  "phone_shot",
  "phone_key",
  "phone_intent",
  "phone_devices",
] as const;

const USAGE = `Usage: deno task smoke [--binary PATH] [--http | --refuses-http] [--timeout-ms N]

  --binary PATH    a compiled phone-eye to check (default: main.ts as deno.json's start task
                   runs it, or with --http as its serve-http task does)
  --http           serve --http 127.0.0.1:0 with a fresh PHONE_EYE_HTTP_TOKEN and call
                   tools/list over Streamable HTTP with it (for ${HTTP_BINARY})
  --refuses-http   also check that --http is refused (exit 2) with words naming ${HTTP_BINARY}:
                   a stdio build never serves the network
  --timeout-ms N   give up after N milliseconds (default 120000: a first run may install npm packages)`;

/** What is wrong with a tools/list answer, or an empty list when it names exactly the eight verbs. */
export function toolListProblems(names: readonly string[]): string[] {
  const problems: string[] = [];
  for (const name of EXPECTED_TOOLS) {
    if (!names.includes(name)) problems.push(`missing tool ${name}`);
  }
  for (const name of names) {
    if (!(EXPECTED_TOOLS as readonly string[]).includes(name)) {
      problems.push(`unexpected tool ${name}`);
    }
  }
  return problems;
}

/** The environment a smoke starts phone-eye with: unconfigured, as a fresh install is. */
function cleanEnv(): Record<string, string> {
  // A stray vision variable could make the server refuse to start.
  return Object.fromEntries(
    Object.entries(Deno.env.toObject()).filter(([name]) =>
      name !== "ANDROID_SERIAL" && !name.startsWith("PHONE_EYE_")
    ),
  );
}

/** `work` raced against a deadline of `timeoutMs`; `cleanup` runs either way. */
async function withDeadline<T>(
  work: Promise<T>,
  timeoutMs: number,
  cleanup: () => Promise<void>,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
    await cleanup();
  }
}

async function listTools(command: Command, timeoutMs: number): Promise<string[]> {
  const transport = new StdioClientTransport({ ...command, env: cleanEnv(), stderr: "inherit" });
  const client = new Client({ name: "phone-eye-smoke", version: "1.0.0" });
  return await withDeadline(
    (async () => {
      await client.connect(transport);
      const { tools } = await client.listTools();
      return tools.map((tool) => tool.name);
    })(),
    timeoutMs,
    () => client.close(),
  );
}

/** A token as `openssl rand -hex 32` makes one: 64 random hex characters. */
function freshToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Serves `--http 127.0.0.1:0` with a fresh token, waits for the line that says where, and calls
 * tools/list there with the token: what a lab does with the binary it downloaded.
 */
async function listToolsOverHttp(command: Command, timeoutMs: number): Promise<string[]> {
  const token = freshToken();
  const child = new Deno.Command(command.command, {
    args: [...command.args, "--http", "127.0.0.1:0"],
    cwd: command.cwd,
    env: { ...cleanEnv(), PHONE_EYE_HTTP_TOKEN: token },
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const said = readUntil(child.stderr, /serving MCP at (\S+)/);
  const client = new Client({ name: "phone-eye-smoke", version: "1.0.0" });
  return await withDeadline(
    (async () => {
      const url = await said.match;
      const transport = new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      });
      await client.connect(transport);
      const { tools } = await client.listTools();
      return tools.map((tool) => tool.name);
    })(),
    timeoutMs,
    async () => {
      await client.close().catch(() => {});
      try {
        child.kill("SIGTERM");
      } catch {
        // it has exited already
      }
      await child.status;
      await said.done;
    },
  );
}

/**
 * Reads `stream` to its end, resolving `match` with the first group of `pattern` once the text
 * holds it, or rejecting with everything said when the stream ends first; `done` is all of it.
 */
function readUntil(
  stream: ReadableStream<Uint8Array>,
  pattern: RegExp,
): { match: Promise<string>; done: Promise<string> } {
  const { promise: match, resolve, reject } = Promise.withResolvers<string>();
  match.catch(() => {});
  const done = (async () => {
    let text = "";
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      text += decoder.decode(chunk, { stream: true });
      const found = pattern.exec(text)?.[1];
      if (found !== undefined) resolve(found);
    }
    reject(new Error(`it exited before serving: ${text.trim() || "(nothing on stderr)"}`));
    return text;
  })();
  return { match, done };
}

/**
 * Runs `--http 127.0.0.1:0` with a token exported and returns what is wrong: a stdio build must
 * exit 2 before it binds, naming the binary and the task that can serve.
 */
async function httpRefusalProblems(command: Command): Promise<string[]> {
  const child = new Deno.Command(command.command, {
    args: [...command.args, "--http", "127.0.0.1:0"],
    cwd: command.cwd,
    env: { ...cleanEnv(), PHONE_EYE_HTTP_TOKEN: freshToken() },
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const said = readUntil(child.stderr, /(serving MCP at \S+)/);
  // A build that serves never exits by itself: it is stopped once it says where it serves.
  const served = await said.match.then(() => true, () => false);
  if (served) child.kill("SIGTERM");
  const [{ code }, text] = await Promise.all([child.status, said.done]);
  if (served) return [`--http was served (${text.trim()}): a stdio build must refuse it`];
  const problems: string[] = [];
  if (code !== 2) problems.push(`--http exited ${code}, not 2 (refused at start)`);
  if (!text.includes(`${HTTP_BINARY} --http`) || !text.includes("deno task serve-http")) {
    problems.push(
      `--http was not refused with words naming ${HTTP_BINARY} and deno task serve-http: ${
        JSON.stringify(text.trim().slice(0, 300))
      }`,
    );
  }
  return problems;
}

/** How a smoke starts phone-eye: a program, its arguments, and where. */
interface Command {
  command: string;
  args: string[];
  cwd: string;
}

/** main.ts as the task of `kind`'s binary runs it: that set (-P=NAME) and those runtime flags. */
function fromSource(kind: BinaryKind, root: string): Command {
  const set = binarySetName(denoJson, kind);
  return {
    command: Deno.execPath(),
    args: [
      "run",
      set === "default" ? "-P" : `-P=${set}`,
      "--no-prompt",
      ...runtimeFlags(denoJson, BINARIES[kind].task),
      "main.ts",
    ],
    cwd: root,
  };
}

async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        binary: { type: "string" },
        http: { type: "boolean" },
        "refuses-http": { type: "boolean" },
        "timeout-ms": { type: "string", default: "120000" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const timeoutMs = Number(values["timeout-ms"]);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    console.error(`--timeout-ms must be a positive whole number, not ${values["timeout-ms"]}`);
    return 2;
  }
  if (values.http && values["refuses-http"]) {
    console.error(`--http and --refuses-http check different builds; give one\n\n${USAGE}`);
    return 2;
  }
  const kind: BinaryKind = values.http ? "http" : "stdio";
  const root = fileURLToPath(new URL("..", import.meta.url));
  // An absolute path, so the binary is not looked up on PATH instead.
  const command: Command = values.binary !== undefined
    ? { command: resolve(values.binary), args: [], cwd: root }
    : fromSource(kind, root);
  const task = BINARIES[kind].task;
  const label = `${values.binary ?? `deno task ${task}`}${values.http ? " over HTTP" : ""}`;
  let names: string[];
  try {
    names = values.http
      ? await listToolsOverHttp(command, timeoutMs)
      : await listTools(command, timeoutMs);
  } catch (err) {
    console.error(`smoke: FAIL ${label}: tools/list failed: ${(err as Error).message}`);
    return 1;
  }
  const problems = [
    ...toolListProblems(names),
    ...(values["refuses-http"] ? await httpRefusalProblems(command) : []),
  ];
  if (problems.length > 0) {
    console.error(
      `smoke: FAIL ${label}: ${problems.join("; ")} (tools/list answered: ${
        names.join(", ") || "nothing"
      })`,
    );
    return 1;
  }
  console.log(
    `smoke: ok ${label}: ${names.join(", ")}${
      values["refuses-http"] ? `; --http refused, naming ${HTTP_BINARY}` : ""
    }`,
  );
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
