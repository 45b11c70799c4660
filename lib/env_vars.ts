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

/**
 * Every variable phone-eye reads as a setting of its own; deno.json's `permissions.default.env`
 * grants exactly these and ADB_ENV_TABLE's (GRANTED_ENV_VARS).
 */
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

/**
 * The variables phone-eye passes on to adb, which runs with these and ANDROID_SERIAL alone
 * (lib/adb/runner.ts): a cleared environment keeps the vision key out of the adb server, which
 * outlives the call. None is a setting of phone-eye's, so --help, --doctor's count and the README's
 * configuration table leave them out; each is granted in deno.json's production set only so that
 * phone-eye may read it to pass it on.
 * - HOME, where adb keeps ~/.android/adbkey (adb_get_homedir_path), and TMPDIR, where the server
 *   writes its log (GetLogFilePath), both in adb_utils.cpp:
 *   https://github.com/aosp-mirror/platform_system_core/blob/589da1a0e0220d9443dbdd03e9fb2a659bfd2f8c/adb/adb_utils.cpp#L289-L350
 * - Windows: TEMP, TMP and USERPROFILE are where GetTempPathW (same file) looks for the log folder;
 *   SystemRoot and WINDIR are how system libraries such as Winsock's providers are found.
 * - adb's own settings: every getenv() of the host side of adb 29 (the adb folder at the commit
 *   above) and of platform-tools since (GrapheneOS/platform_packages_modules_adb at
 *   4d73d56bfacd2c1bcb8bdda4b8aa8030e0f224bb); the device-side, build-tree and logcat ones are
 *   left out, as phone-eye never asks for them.
 */
export const ADB_ENV_TABLE: readonly EnvVarDoc[] = [
  {
    name: "PATH",
    meaning: "the search path adb and the programs it starts use",
    default: "unset",
    grant: "passed on to adb: the search path adb and the programs it starts use",
  },
  {
    name: "HOME",
    meaning: "where adb keeps its key pair (~/.android/adbkey)",
    default: "unset",
    grant: "passed on to adb: where adb keeps its key pair (~/.android/adbkey)",
  },
  {
    name: "TMPDIR",
    meaning: "where the adb server writes its log",
    default: "unset",
    grant: "passed on to adb: where the adb server writes its log",
  },
  {
    name: "TMP",
    meaning: "Windows: where the adb server writes its log",
    default: "unset",
    grant: "passed on to adb: Windows: where the adb server writes its log",
  },
  {
    name: "TEMP",
    meaning: "Windows: where the adb server writes its log",
    default: "unset",
    grant: "passed on to adb: Windows: where the adb server writes its log",
  },
  {
    name: "USERPROFILE",
    meaning: "Windows: the user's profile folder, adb's home",
    default: "unset",
    grant: "passed on to adb: Windows: the user's profile folder, adb's home",
  },
  {
    name: "APPDATA",
    meaning: "Windows: the user's roaming application data folder",
    default: "unset",
    grant: "passed on to adb: Windows: the user's roaming application data folder",
  },
  {
    name: "LOCALAPPDATA",
    meaning: "Windows: the user's local application data folder",
    default: "unset",
    grant: "passed on to adb: Windows: the user's local application data folder",
  },
  {
    name: "SystemRoot",
    meaning: "Windows: where the system libraries adb loads (Winsock) are found",
    default: "unset",
    grant: "passed on to adb: Windows: where the system libraries adb loads (Winsock) are found",
  },
  {
    name: "WINDIR",
    meaning: "Windows: where the system libraries adb loads are found",
    default: "unset",
    grant: "passed on to adb: Windows: where the system libraries adb loads are found",
  },
  {
    name: "ANDROID_ADB_SERVER_PORT",
    meaning: "adb's setting: the port of the adb server to use",
    default: "unset",
    grant: "passed on to adb: adb's setting: the port of the adb server to use",
  },
  {
    name: "ANDROID_ADB_SERVER_ADDRESS",
    meaning: "adb's setting: the host of the adb server to use",
    default: "unset",
    grant: "passed on to adb: adb's setting: the host of the adb server to use",
  },
  {
    name: "ADB_SERVER_SOCKET",
    meaning: "adb's setting: the socket of the adb server to use",
    default: "unset",
    grant: "passed on to adb: adb's setting: the socket of the adb server to use",
  },
  {
    name: "ANDROID_ADB_LOG_PATH",
    meaning: "adb's setting: the adb server's log file",
    default: "unset",
    grant: "passed on to adb: adb's setting: the adb server's log file",
  },
  {
    name: "ADB_VENDOR_KEYS",
    meaning: "adb's setting: more keys to authenticate to phones with",
    default: "unset",
    grant: "passed on to adb: adb's setting: more keys to authenticate to phones with",
  },
  {
    name: "ADB_TRACE",
    meaning: "adb's setting: what adb logs, for debugging",
    default: "unset",
    grant: "passed on to adb: adb's setting: what adb logs, for debugging",
  },
  {
    name: "ADB_MDNS",
    meaning: "adb's setting: finding phones by mDNS, on or off",
    default: "unset",
    grant: "passed on to adb: adb's setting: finding phones by mDNS, on or off",
  },
  {
    name: "ADB_MDNS_AUTO_CONNECT",
    meaning: "adb's setting: which mDNS services adb connects to by itself",
    default: "unset",
    grant: "passed on to adb: adb's setting: which mDNS services adb connects to by itself",
  },
  {
    name: "ADB_MDNS_OPENSCREEN",
    meaning: "adb's setting: which mDNS backend adb uses",
    default: "unset",
    grant: "passed on to adb: adb's setting: which mDNS backend adb uses",
  },
  {
    name: "ADB_USB",
    meaning: "adb's setting: finding phones on USB, on or off",
    default: "unset",
    grant: "passed on to adb: adb's setting: finding phones on USB, on or off",
  },
  {
    name: "ADB_LIBUSB",
    meaning: "adb's setting: which USB backend adb uses",
    default: "unset",
    grant: "passed on to adb: adb's setting: which USB backend adb uses",
  },
  {
    name: "ADB_EMU",
    meaning: "adb's setting: scanning for emulators, on or off",
    default: "unset",
    grant: "passed on to adb: adb's setting: scanning for emulators, on or off",
  },
  {
    name: "ADB_LOCAL_TRANSPORT_MAX_PORT",
    meaning: "adb's setting: the last port of the emulator scan",
    default: "unset",
    grant: "passed on to adb: adb's setting: the last port of the emulator scan",
  },
  {
    name: "ADB_TCP_KEEPALIVE_INTERVAL",
    meaning: "adb's setting: the keepalive of Wi-Fi links",
    default: "unset",
    grant: "passed on to adb: adb's setting: the keepalive of Wi-Fi links",
  },
];

/** Every variable adb runs with: ANDROID_SERIAL (phone-eye's own too) and ADB_ENV_TABLE's. */
export const ADB_ENV_NAMES: readonly string[] = [
  "ANDROID_SERIAL",
  ...ADB_ENV_TABLE.map((row) => row.name),
];

/** Every variable deno.json's production set grants: phone-eye's own, then those adb gets. */
export const GRANTED_ENV_VARS: readonly string[] = [
  ...new Set([...ENV_VARS, ...ADB_ENV_NAMES]),
];

/** The row for `name` in either table, or undefined for a variable phone-eye does not read. */
export function envVarDoc(name: string): EnvVarDoc | undefined {
  return [...ENV_TABLE as readonly EnvVarDoc[], ...ADB_ENV_TABLE].find((row) => row.name === name);
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
