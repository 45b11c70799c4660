// The names of the environment variables phone-eye reads, as its settings or to pass on to adb.
// Names only: their text lives beside what prints it (lib/app/help.ts, scripts/env_grants.ts).

/**
 * Every variable phone-eye reads as a setting of its own, in the order --help and docs/configuration.md list
 * them; deno.json's `permissions.default.env` grants exactly these and ADB_ENV_NAMES
 * (GRANTED_ENV_VARS).
 */
export const ENV_VARS = [
  "ANDROID_SERIAL",
  "PHONE_EYE_DEVICES",
  "PHONE_EYE_VISION_API_KEY",
  "PHONE_EYE_VISION_BASE_URL",
  "PHONE_EYE_VISION_MODEL",
  "PHONE_EYE_VISION_URL",
  "PHONE_EYE_VISION_TOOL",
  "PHONE_EYE_VISION_ALLOW_HTTP",
  "PHONE_EYE_SHOTS",
  "PHONE_EYE_SHOTS_MAX_MB",
  "PHONE_EYE_JOURNAL",
  "PHONE_EYE_ADB_TIMEOUT_MS",
  "PHONE_EYE_VISION_TIMEOUT_MS",
] as const;

/**
 * The settings of `phone-eye --http` alone (lib/mcp/http_settings.ts). deno.json grants them in the
 * "http" permission set only, so the stdio binaries and `deno task start` cannot read them.
 */
export const HTTP_ENV_VARS = ["PHONE_EYE_HTTP_TOKEN", "PHONE_EYE_HTTP_ORIGINS"] as const;

export type HttpEnvVar = typeof HTTP_ENV_VARS[number];

export type EnvVar = typeof ENV_VARS[number] | HttpEnvVar;

/**
 * The variables phone-eye passes on to adb, which runs with these and ANDROID_SERIAL alone
 * (lib/adb/runner.ts): a cleared environment keeps the vision key out of the adb server, which
 * outlives the call. None is a setting of phone-eye's, so --help, --doctor's count and the configuration
 * table (docs/configuration.md) leave them out; each is granted in deno.json's production set only so that
 * phone-eye may read it to pass it on (scripts/env_grants.ts says why, name by name).
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
export const ADB_ENV_VARS = [
  "PATH",
  "HOME",
  "TMPDIR",
  "TMP",
  "TEMP",
  "USERPROFILE",
  "APPDATA",
  "LOCALAPPDATA",
  "SystemRoot",
  "WINDIR",
  "ANDROID_ADB_SERVER_PORT",
  "ANDROID_ADB_SERVER_ADDRESS",
  "ADB_SERVER_SOCKET",
  "ANDROID_ADB_LOG_PATH",
  "ADB_VENDOR_KEYS",
  "ADB_TRACE",
  "ADB_MDNS",
  "ADB_MDNS_AUTO_CONNECT",
  "ADB_MDNS_OPENSCREEN",
  "ADB_USB",
  "ADB_LIBUSB",
  "ADB_EMU",
  "ADB_LOCAL_TRANSPORT_MAX_PORT",
  "ADB_TCP_KEEPALIVE_INTERVAL",
] as const;

export type AdbEnvVar = typeof ADB_ENV_VARS[number];

/** Every variable adb runs with: ANDROID_SERIAL (phone-eye's own too) and ADB_ENV_VARS. */
export const ADB_ENV_NAMES: readonly string[] = ["ANDROID_SERIAL", ...ADB_ENV_VARS];

/** Every variable deno.json's production set grants: phone-eye's own, then those adb gets. */
export const GRANTED_ENV_VARS: readonly string[] = [
  ...new Set([...ENV_VARS, ...ADB_ENV_NAMES]),
];

/** Every variable deno.json's "http" set grants: the production set's, then HTTP_ENV_VARS. */
export const HTTP_GRANTED_ENV_VARS: readonly string[] = [...GRANTED_ENV_VARS, ...HTTP_ENV_VARS];
