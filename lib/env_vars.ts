// The environment variables phone-eye reads, as one table: name, meaning, default, and why the
// sandbox grants it. --help, --doctor, the README rows and the compile task's checks read it.

export const DEFAULT_BASE_URL = "https://api.openai.com/v1";
export const DEFAULT_MODEL = "gpt-4o-mini";
export const DEFAULT_VISION_TOOL = "describe_image";
export const DEFAULT_ADB_TIMEOUT_MS = 20_000;
/**
 * Short enough that the screenshot and the vision call fit config.ts's DEFAULT_LOOK_BUDGET_MS
 * together: a hung vision server then costs the agent 30 s, not the whole look.
 */
export const DEFAULT_VISION_TIMEOUT_MS = 30_000;

/** One variable phone-eye reads. Text may hold `code` spans: the README keeps them, --help not. */
export interface EnvVarDoc {
  readonly name: string;
  /** The command-line flag that sets the same thing, if any (it wins over the variable). */
  readonly flag?: string;
  /** What the variable sets, in one line. */
  readonly meaning: string;
  /** What applies when it is unset: a literal `value`, a `phrase`, or nothing at all. */
  readonly default: { readonly value: string } | { readonly phrase: string } | "unset";
  /**
   * Why deno.json's production set lets phone-eye read it, for `deno task compile`'s list of
   * baked permissions. The compile task refuses an env grant that has no row here.
   */
  readonly grant: string;
}

/** Every variable phone-eye reads; deno.json's `permissions.default.env` grants exactly these. */
export const ENV_TABLE = [
  {
    name: "ANDROID_SERIAL",
    flag: "--serial",
    meaning: "the one phone this process drives (`ip:port` for Wi-Fi)",
    default: { phrase: "adb's default device" },
    grant: "picks the one phone this process drives (same as --serial)",
  },
  {
    name: "PHONE_EYE_VISION_API_KEY",
    meaning: "selects the direct route; sent only as `Authorization: Bearer`",
    default: "unset",
    grant: "key for the direct vision route; sent only as an Authorization: Bearer header",
  },
  {
    name: "PHONE_EYE_VISION_BASE_URL",
    meaning:
      "OpenAI-compatible base URL (also selects the direct route, for keyless local servers)",
    default: { value: DEFAULT_BASE_URL },
    grant: "OpenAI-compatible base URL of the direct vision route",
  },
  {
    name: "PHONE_EYE_VISION_MODEL",
    meaning: "model name for the direct route",
    default: { value: DEFAULT_MODEL },
    grant: "model name for the direct vision route",
  },
  {
    name: "PHONE_EYE_VISION_URL",
    meaning: "MCP vision server (streamable HTTP), used when the direct route is not selected",
    default: "unset",
    grant: "MCP vision server (streamable HTTP) for the MCP route",
  },
  {
    name: "PHONE_EYE_VISION_TOOL",
    meaning: "tool called on the MCP vision server",
    default: { value: DEFAULT_VISION_TOOL },
    grant: "tool to call on the MCP vision server",
  },
  {
    name: "PHONE_EYE_SHOTS",
    meaning: "folder where screenshots are kept; unset = screenshots never touch disk",
    default: "unset",
    grant: "folder to keep screenshots in; unset means they never touch disk",
  },
  {
    name: "PHONE_EYE_ADB_TIMEOUT_MS",
    meaning: "limit for each adb call",
    default: { value: String(DEFAULT_ADB_TIMEOUT_MS) },
    grant: "timeout for each adb call",
  },
  {
    name: "PHONE_EYE_VISION_TIMEOUT_MS",
    meaning: "limit for each vision call",
    default: { value: String(DEFAULT_VISION_TIMEOUT_MS) },
    grant: "timeout for each vision call",
  },
] as const satisfies readonly EnvVarDoc[];

export type EnvVar = typeof ENV_TABLE[number]["name"];

/** The names alone, in table order. */
export const ENV_VARS: readonly EnvVar[] = ENV_TABLE.map((row) => row.name);

/** The row for `name`, or undefined for a variable phone-eye does not read. */
export function envVarDoc(name: string): EnvVarDoc | undefined {
  return (ENV_TABLE as readonly EnvVarDoc[]).find((row) => row.name === name);
}

/** The `Environment:` block of --help: one row per variable, wrapped to `width` columns. */
export function envUsage(width = 100): string {
  const column = Math.max(...ENV_TABLE.map((row) => row.name.length)) + 4;
  return ENV_TABLE.map((row) => {
    const plain = (text: string) => text.replaceAll("`", "");
    const dflt = row.default === "unset"
      ? ""
      : `; default: ${"value" in row.default ? row.default.value : row.default.phrase}`;
    return wrap(`  ${row.name.padEnd(column - 2)}`, plain(row.meaning) + dflt, width);
  }).join("\n");
}

/** `lead` then `text`, words wrapped at `width`, continuation lines indented under the text. */
function wrap(lead: string, text: string, width: number): string {
  const lines: string[] = [];
  let line = lead;
  for (const word of text.split(" ")) {
    if (line.length > lead.length && line.length + 1 + word.length > width) {
      lines.push(line);
      line = " ".repeat(lead.length) + word;
    } else {
      line += line.length > lead.length ? ` ${word}` : word;
    }
  }
  lines.push(line);
  return lines.join("\n");
}
