// `deno task smoke`: starts phone-eye (main.ts under the production permission set, or a compiled
// binary) as an MCP client would, calls tools/list over stdio and checks the eight verbs are there.
// deno-lint-ignore-file no-console -- a CLI script: the terminal is its only output

import { parseArgs } from "node:util";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import denoJson from "../deno.json" with { type: "json" };
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

const USAGE = `Usage: deno task smoke [--binary PATH] [--timeout-ms N]

  --binary PATH    a compiled phone-eye to check (default: deno.json's start task,
                   the production permission set from deno.json)
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

async function listTools(
  command: string,
  args: string[],
  cwd: string,
  timeoutMs: number,
): Promise<string[]> {
  // The server must start unconfigured: a stray vision variable could make it refuse to start.
  const env = Object.fromEntries(
    Object.entries(Deno.env.toObject()).filter(([name]) =>
      name !== "ANDROID_SERIAL" && !name.startsWith("PHONE_EYE_")
    ),
  );
  const transport = new StdioClientTransport({ command, args, cwd, env, stderr: "inherit" });
  const client = new Client({ name: "phone-eye-smoke", version: "1.0.0" });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no tools/list answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([
      (async () => {
        await client.connect(transport);
        const { tools } = await client.listTools();
        return tools.map((tool) => tool.name);
      })(),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
    await client.close();
  }
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
  const root = fileURLToPath(new URL("..", import.meta.url));
  // An absolute path, so the binary is not looked up on PATH instead.
  const [command, args] = values.binary !== undefined
    ? [resolve(values.binary), []]
    : [Deno.execPath(), ["run", "-P", "--no-prompt", ...runtimeFlags(denoJson), "main.ts"]];
  const label = values.binary ?? denoJson.tasks.start;
  let names: string[];
  try {
    names = await listTools(command, args, root, timeoutMs);
  } catch (err) {
    console.error(`smoke: FAIL ${label}: tools/list failed: ${(err as Error).message}`);
    return 1;
  }
  const problems = toolListProblems(names);
  if (problems.length > 0) {
    console.error(
      `smoke: FAIL ${label}: ${problems.join("; ")} (tools/list answered: ${
        names.join(", ") || "nothing"
      })`,
    );
    return 1;
  }
  console.log(`smoke: ok ${label}: ${names.join(", ")}`);
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
