// Why deno.json's production set grants each environment variable, name by name: the lines
// `deno task compile` prints for the baked env grant, and the bundle's variable descriptions.

import type { AdbEnvVar, EnvVar } from "../lib/config/env_vars.ts";

/** Why phone-eye may read each of its own settings (lib/app/help.ts says what each sets). */
const SETTINGS: { readonly [name in EnvVar]: string } = {
  ANDROID_SERIAL: "picks the one phone this process drives (same as --serial)",
  PHONE_EYE_DEVICES:
    "lists the phones this process may drive (serials, host:port, or * for any adb lists)",
  PHONE_EYE_VISION_API_KEY:
    "key for the direct vision route; sent only as an Authorization: Bearer header",
  PHONE_EYE_VISION_BASE_URL: "OpenAI-compatible base URL of the direct vision route",
  PHONE_EYE_VISION_MODEL: "model name for the direct vision route",
  PHONE_EYE_VISION_URL: "MCP vision server (streamable HTTP) for the MCP route",
  PHONE_EYE_VISION_TOOL: "tool to call on the MCP vision server",
  PHONE_EYE_VISION_ALLOW_HTTP:
    "opts in to sending the vision key over plain http:// to a LAN host (refused otherwise)",
  PHONE_EYE_SHOTS: "folder to keep screenshots in; unset means they never touch disk",
  PHONE_EYE_SHOTS_MAX_MB: "how much of that folder phone-eye's screenshots may take",
  PHONE_EYE_JOURNAL: "the journal file (one line per tool call); unset means nothing is recorded",
  PHONE_EYE_ADB_TIMEOUT_MS: "timeout for each adb call",
  PHONE_EYE_VISION_TIMEOUT_MS: "timeout for each vision call",
  PHONE_EYE_HTTP_TOKEN: "the bearer token of --http serving (granted by the http set only)",
  PHONE_EYE_HTTP_ORIGINS: "the web origins --http serving lets in (granted by the http set only)",
};

/** What adb does with each variable phone-eye passes on to it (lib/config/env_vars.ts says where from). */
const PASSED_TO_ADB: { readonly [name in AdbEnvVar]: string } = {
  PATH: "the search path adb and the programs it starts use",
  HOME: "where adb keeps its key pair (~/.android/adbkey)",
  TMPDIR: "where the adb server writes its log",
  TMP: "Windows: where the adb server writes its log",
  TEMP: "Windows: where the adb server writes its log",
  USERPROFILE: "Windows: the user's profile folder, adb's home",
  APPDATA: "Windows: the user's roaming application data folder",
  LOCALAPPDATA: "Windows: the user's local application data folder",
  SystemRoot: "Windows: where the system libraries adb loads (Winsock) are found",
  WINDIR: "Windows: where the system libraries adb loads are found",
  ANDROID_ADB_SERVER_PORT: "adb's setting: the port of the adb server to use",
  ANDROID_ADB_SERVER_ADDRESS: "adb's setting: the host of the adb server to use",
  ADB_SERVER_SOCKET: "adb's setting: the socket of the adb server to use",
  ANDROID_ADB_LOG_PATH: "adb's setting: the adb server's log file",
  ADB_VENDOR_KEYS: "adb's setting: more keys to authenticate to phones with",
  ADB_TRACE: "adb's setting: what adb logs, for debugging",
  ADB_MDNS: "adb's setting: finding phones by mDNS, on or off",
  ADB_MDNS_AUTO_CONNECT: "adb's setting: which mDNS services adb connects to by itself",
  ADB_MDNS_OPENSCREEN: "adb's setting: which mDNS backend adb uses",
  ADB_USB: "adb's setting: finding phones on USB, on or off",
  ADB_LIBUSB: "adb's setting: which USB backend adb uses",
  ADB_EMU: "adb's setting: scanning for emulators, on or off",
  ADB_LOCAL_TRANSPORT_MAX_PORT: "adb's setting: the last port of the emulator scan",
  ADB_TCP_KEEPALIVE_INTERVAL: "adb's setting: the keepalive of Wi-Fi links",
};

const REASONS = new Map<string, string>([
  ...Object.entries(SETTINGS),
  // Granted only to be passed on: the reason says so.
  ...Object.entries(PASSED_TO_ADB).map(([name, use]) =>
    [name, `passed on to adb: ${use}`] as const
  ),
]);

/** Why deno.json grants `name`, or undefined for a variable phone-eye does not read. */
export function grantReason(name: string): string | undefined {
  return REASONS.get(name);
}
