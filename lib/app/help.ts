// What `phone-eye --help` prints: the flags, and each setting's meaning and default. main.ts loads
// it for --help only, and docs/configuration.md's table is rendered from the same rows.

import {
  DEFAULT_ADB_TIMEOUT_MS,
  DEFAULT_BASE_URL,
  DEFAULT_MODEL,
  DEFAULT_SHOTS_MAX_MB,
  DEFAULT_VISION_TIMEOUT_MS,
  DEFAULT_VISION_TOOL,
  VERSION,
} from "../config/config.ts";
import { ENV_VARS, type EnvVar, HTTP_ENV_VARS } from "../config/env_vars.ts";

/** One setting as --help and the docs show it. `code` spans: the docs keep them, --help not. */
export interface EnvVarHelp {
  readonly name: EnvVar;
  /** The command-line flag that sets the same thing, if any (it wins over the variable). */
  readonly flag?: string;
  /** What the variable sets, in one line. */
  readonly meaning: string;
  /** What applies when it is unset: a literal `value`, a `phrase`, or nothing at all. */
  readonly default: { readonly value: string } | { readonly phrase: string } | "unset";
}

/** Keyed by name, so a variable added to lib/config/env_vars.ts without its text here does not compile. */
const HELP: { readonly [name in EnvVar]: Omit<EnvVarHelp, "name"> } = {
  ANDROID_SERIAL: {
    flag: "--serial",
    meaning: "the one phone this process drives (`ip:port` for Wi-Fi)",
    default: { phrase: "adb's default device" },
  },
  PHONE_EYE_DEVICES: {
    meaning:
      "several phones for one server: serials separated by commas (a `host:port` one is connected on first use), or `*` for any phone adb lists; each call picks one with `device`; wins over ANDROID_SERIAL",
    default: "unset",
  },
  PHONE_EYE_VISION_API_KEY: {
    meaning: "selects the direct route; sent only as `Authorization: Bearer`",
    default: "unset",
  },
  PHONE_EYE_VISION_BASE_URL: {
    meaning:
      "OpenAI-compatible base URL (also selects the direct route, for keyless local servers)",
    default: { value: DEFAULT_BASE_URL },
  },
  PHONE_EYE_VISION_MODEL: {
    meaning: "model name for the direct route",
    default: { value: DEFAULT_MODEL },
  },
  PHONE_EYE_VISION_URL: {
    meaning: "MCP vision server (streamable HTTP), used when the direct route is not selected",
    default: "unset",
  },
  PHONE_EYE_VISION_TOOL: {
    meaning: "tool called on the MCP vision server",
    default: { value: DEFAULT_VISION_TOOL },
  },
  PHONE_EYE_VISION_ALLOW_HTTP: {
    meaning: "`1` lets the key go unencrypted to a plain `http://` host not on this machine",
    default: { phrase: "refused" },
  },
  PHONE_EYE_SHOTS: {
    meaning: "folder where screenshots are kept; unset = screenshots never touch disk",
    default: "unset",
  },
  PHONE_EYE_SHOTS_MAX_MB: {
    meaning:
      "MiB phone-eye's own screenshots may take in PHONE_EYE_SHOTS (at least 8); the oldest go first, other files stay",
    default: { value: String(DEFAULT_SHOTS_MAX_MB) },
  },
  PHONE_EYE_JOURNAL: {
    flag: "--journal",
    meaning:
      "file to append one JSON line per tool call to (docs/journal.md); past 16 MiB it becomes FILE.1; unset = nothing recorded",
    default: "unset",
  },
  PHONE_EYE_ADB_TIMEOUT_MS: {
    meaning: "limit for each adb call",
    default: { value: String(DEFAULT_ADB_TIMEOUT_MS) },
  },
  PHONE_EYE_VISION_TIMEOUT_MS: {
    meaning: "limit for each vision call",
    default: { value: String(DEFAULT_VISION_TIMEOUT_MS) },
  },
  PHONE_EYE_HTTP_TOKEN: {
    meaning:
      "with `--http`: the bearer token every request must carry (32 characters or more); unset = loopback only",
    default: "unset",
  },
  PHONE_EYE_HTTP_ORIGINS: {
    meaning:
      "with `--http`: comma-separated web origins allowed to call (`https://app.example`); a request from any other origin gets 403",
    default: { phrase: "none" },
  },
};

/** Every setting phone-eye reads, in lib/config/env_vars.ts's order (HTTP's last), with its text. */
export const ENV_HELP: readonly EnvVarHelp[] = [...ENV_VARS, ...HTTP_ENV_VARS].map((name) => ({
  name,
  ...HELP[name],
}));

/** The `Environment:` block of --help: one row per variable, wrapped to `width` columns. */
export function envUsage(width = 100): string {
  const column = Math.max(...ENV_HELP.map((row) => row.name.length)) + 4;
  return ENV_HELP.map((row) => {
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

export const USAGE =
  `phone-eye ${VERSION}: an MCP server (stdio) that lets an AI agent see and drive an Android phone

Usage: phone-eye [--serial SERIAL] [--http HOST:PORT [--tls-cert FILE --tls-key FILE]]
                 [--doctor | --help | --version]
       phone-eye [--journal FILE] ...    (as above, each tool call on record)
       phone-eye --replay FILE [--device SERIAL]
       phone-eye --maestro FILE

  --serial SERIAL     the one phone to drive (as in "adb devices"; ip:port for Wi-Fi).
                      Overrides ANDROID_SERIAL.
  --http HOST:PORT    serve MCP over Streamable HTTP at http://HOST:PORT/mcp instead of stdio
                      (run with the "http" permission set: deno task serve-http). Without
                      PHONE_EYE_HTTP_TOKEN only a loopback address is served.
  --tls-cert FILE     with --http: serve HTTPS with this PEM certificate (chain)
  --tls-key FILE      with --http: the PEM private key of that certificate
  --journal FILE      append one JSON line per tool call to FILE. Overrides PHONE_EYE_JOURNAL.
  --replay FILE       run a journal's actions on a phone, without a model, waiting before each
                      step for what the recording saw; exit 0 all matched, 1 one diverged,
                      2 bad input (docs/replay.md)
  --device SERIAL     with --replay: the phone to replay on (default: as when serving)
  --maestro FILE      write a journal's actions as a Maestro flow (YAML) on stdout
  --doctor            check adb, the phone, the vision route and the permissions, then exit
  --help              print this help
  --version           print the version

Environment:
${envUsage()}

adb must be on PATH when phone-eye starts.`;
