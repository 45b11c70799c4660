// Turns environment variables (and --serial, which the command line gives) into one Config value.
// Pure: the caller passes the env reader, so tests need no permissions. flags.ts reads argv.

import { isLoopbackHost } from "../core/hosts.ts";
import denoJson from "../../deno.json" with { type: "json" };
import { ConfigError } from "./config_error.ts";
import type { EnvVar } from "./env_vars.ts";
import { isSerial } from "./serial.ts";
import { wholeNumber, type WholeNumberRule } from "./whole_number.ts";

export { ConfigError } from "./config_error.ts";

/** deno.json's version: the release workflow checks the tag against it, so there is one source. */
export const VERSION: string = denoJson.version;

export type { EnvVar } from "./env_vars.ts";
export type ReadEnv = (name: EnvVar) => string | undefined;

export const DEFAULT_BASE_URL = "https://api.openai.com/v1";
export const DEFAULT_MODEL = "gpt-4o-mini";
export const DEFAULT_VISION_TOOL = "describe_image";
export const DEFAULT_ADB_TIMEOUT_MS = 20_000;
/**
 * What phone-eye's screenshots may take in PHONE_EYE_SHOTS, in MiB. A phone's screenshot is
 * some 25 KB to 3 MB (the sim's 25 KB, a photo-heavy 1440×3200 screen near the top), so 256 MiB
 * keeps a long session's latest hundreds of shots, and no more than a small share of a laptop's
 * disk. At least 8: one saved shot may take 8 MiB (lib/screen/shots.ts, MAX_SAVED_SHOT_BYTES).
 */
export const DEFAULT_SHOTS_MAX_MB = 256;
const SHOTS_MAX_MB: WholeNumberRule = {
  unit: "MiB",
  min: 8,
  max: 1_048_576,
  minWhy: "one screenshot may take 8 MiB",
};
/** PHONE_EYE_ADB_TIMEOUT_MS and PHONE_EYE_VISION_TIMEOUT_MS: a tenth of a second to ten minutes. */
const TIMEOUT_MS: WholeNumberRule = { unit: "milliseconds", min: 100, max: 600_000 };
/**
 * Short enough that the screenshot and the vision call fit DEFAULT_LOOK_BUDGET_MS together: a hung
 * vision server then costs the agent 30 s, not the whole look.
 */
export const DEFAULT_VISION_TIMEOUT_MS = 30_000;

/**
 * The longest a phone_look runs before it answers with whatever has arrived. Claude Code and Codex
 * wait at least 150 s for a tool call by default, but a user may set a shorter hard limit
 * (MCP_TOOL_TIMEOUT, tool_timeout_sec) that progress does not extend (docs/clients.md),
 * and a look that times out in the client loses the UI tree along with the vision answer.
 */
export const DEFAULT_LOOK_BUDGET_MS = 45_000;
/** What a look keeps for the screenshot (usually under a second) ahead of the vision call. */
export const SCREENSHOT_ALLOWANCE_MS = 15_000;

export type VisionConfig =
  | {
    route: "direct";
    baseUrl: string;
    apiKey: string | undefined;
    model: string;
    timeoutMs: number;
  }
  | { route: "mcp"; url: string; tool: string; timeoutMs: number }
  /** No vision; `problem` says why when the settings were given but invalid. */
  | { route: "none"; problem?: string };

/**
 * The phones this server may drive. "default": nothing set, adb's default device as before (a
 * `device` argument may name any phone adb lists); "listed": ANDROID_SERIAL, --serial or
 * PHONE_EYE_DEVICES named them; "any": PHONE_EYE_DEVICES=*, any phone adb lists, and phone-eye never
 * runs `adb connect` for a serial an agent gave.
 */
export type PhoneSet =
  | { kind: "default" }
  | {
    kind: "listed";
    serials: readonly [string, ...string[]];
    from: "--serial" | "ANDROID_SERIAL" | "PHONE_EYE_DEVICES";
  }
  | { kind: "any" };

export interface Config {
  /** The phones this process may drive (PhoneSet). */
  phones: PhoneSet;
  adbTimeoutMs: number;
  vision: VisionConfig;
  /** Folder where screenshots are kept; undefined = screenshots never touch disk. */
  shotsDir: string | undefined;
  /** What phone-eye's own files in shotsDir may take together, in bytes. */
  shotsMaxBytes: number;
  /** The journal file (--journal, else PHONE_EYE_JOURNAL); undefined = nothing is recorded. */
  journalFile: string | undefined;
  /** How long phone_look may run before it answers with what has arrived (lookBudgetMs). */
  lookBudgetMs: number;
  /**
   * PHONE_EYE_VISION_ALLOW_HTTP=1: the user let the vision credentials go over plain http:// to a
   * host other than this machine (keyInClear says when they would).
   */
  visionAllowHttp: boolean;
}

/** What loadConfig is given beside the environment. */
export interface LoadOptions {
  /** The --serial flag's value (lib/config/flags.ts): the one phone to drive, over ANDROID_SERIAL. */
  serial?: string | undefined;
  /** The --journal flag's value: the journal file, over PHONE_EYE_JOURNAL. */
  journal?: string | undefined;
  /**
   * How vision credentials that would travel unencrypted (keyInClear) are treated.
   * "refuse" (serving): a ConfigError, so phone-eye does not start. "report" (--doctor): vision
   * is turned off with the refusal as its problem, so the doctor prints it as a FAIL line and
   * sends nothing.
   */
  keyInClear?: "refuse" | "report";
}

/**
 * Builds the Config from the environment. PHONE_EYE_DEVICES wins over ANDROID_SERIAL: ANDROID_SERIAL
 * is adb's own variable, often set in a shell profile for every adb tool, so refusing the pair would
 * make the new setting unusable until a global one is unset. --serial beside PHONE_EYE_DEVICES is
 * refused: both are given to phone-eye alone, and they contradict each other.
 */
export function loadConfig(readEnv: ReadEnv, options: LoadOptions = {}): Config {
  const phones = loadPhoneSet(readEnv, options.serial);
  const visionAllowHttp = readAllowHttp(readEnv);
  // Read before the vision settings, whose problems only turn vision off: a bad number is
  // refused at start like every other numeric setting.
  const visionTimeoutMs = readNumber(readEnv, "PHONE_EYE_VISION_TIMEOUT_MS", TIMEOUT_MS, {
    fallback: DEFAULT_VISION_TIMEOUT_MS,
  });
  let vision = loadVisionConfigOrProblem(readEnv, visionTimeoutMs);
  const inClear = visionAllowHttp ? undefined : keyInClear(vision);
  if (inClear !== undefined) {
    if ((options.keyInClear ?? "refuse") === "refuse") throw new ConfigError(inClear);
    vision = { route: "none", problem: inClear };
  }
  return {
    phones,
    adbTimeoutMs: readNumber(readEnv, "PHONE_EYE_ADB_TIMEOUT_MS", TIMEOUT_MS, {
      fallback: DEFAULT_ADB_TIMEOUT_MS,
    }),
    vision,
    shotsDir: nonEmpty(readEnv("PHONE_EYE_SHOTS")),
    shotsMaxBytes: readNumber(readEnv, "PHONE_EYE_SHOTS_MAX_MB", SHOTS_MAX_MB, {
      fallback: DEFAULT_SHOTS_MAX_MB,
    }) * 1024 * 1024,
    journalFile: nonEmpty(options.journal) ?? nonEmpty(readEnv("PHONE_EYE_JOURNAL")),
    lookBudgetMs: lookBudgetMs(vision),
    visionAllowHttp,
  };
}

/** The opt-in is one exact value, so a stray "0" or "false" can never mean yes. */
function readAllowHttp(readEnv: ReadEnv): boolean {
  const raw = nonEmpty(readEnv("PHONE_EYE_VISION_ALLOW_HTTP"));
  if (raw === undefined) return false;
  if (raw === "1") return true;
  throw new ConfigError(
    `PHONE_EYE_VISION_ALLOW_HTTP must be 1 or unset, not ${
      JSON.stringify(raw.slice(0, 20))
    }: set it to 1 only to send the vision key unencrypted over plain http:// to a LAN host`,
  );
}

/**
 * Why the vision settings would send a credential unencrypted, or undefined when they would not:
 * the direct route with a key, or either route with a query string in its URL (where a token
 * goes), to a plain http:// host that is not this machine. Anyone on the path could read it.
 */
export function keyInClear(vision: VisionConfig): string | undefined {
  if (vision.route === "none") return undefined;
  const [name, raw] = vision.route === "direct"
    ? ["PHONE_EYE_VISION_BASE_URL", vision.baseUrl] as const
    : ["PHONE_EYE_VISION_URL", vision.url] as const;
  const url = new URL(raw);
  if (url.protocol !== "http:" || isLoopbackHost(url.hostname)) return undefined;
  const what = vision.route === "direct" && vision.apiKey !== undefined
    ? "PHONE_EYE_VISION_API_KEY"
    : url.search.length > 1
    ? `the query of ${name} (a token, perhaps)`
    : undefined;
  if (what === undefined) return undefined;
  return `Refused: ${name} is plain http:// to ${url.host}, which is not this machine, so ${what} ` +
    `would travel unencrypted and anyone on the network could read it. Use the server's https:// ` +
    `address; or, only for a model server on a LAN you trust that has no TLS, set ` +
    `PHONE_EYE_VISION_ALLOW_HTTP=1`;
}

function loadPhoneSet(readEnv: ReadEnv, serialFlag: string | undefined): PhoneSet {
  // Exactly empty is unset: an MCP bundle hands a field its user left blank over as "".
  const raw = readEnv("PHONE_EYE_DEVICES");
  const devices = raw === "" ? undefined : raw;
  const flag = nonEmpty(serialFlag);
  if (devices !== undefined) {
    if (flag !== undefined) {
      throw new ConfigError(
        "--serial and PHONE_EYE_DEVICES both name the phones to drive; give one of them (PHONE_EYE_DEVICES for several)",
      );
    }
    return parseDeviceList(devices);
  }
  const serial = flag ?? nonEmpty(readEnv("ANDROID_SERIAL"));
  if (serial === undefined) return { kind: "default" };
  checkSerial(serial, flag !== undefined ? "--serial" : "ANDROID_SERIAL");
  return {
    kind: "listed",
    serials: [serial],
    from: flag !== undefined ? "--serial" : "ANDROID_SERIAL",
  };
}

/** How to write PHONE_EYE_DEVICES, for its refusals. */
const DEVICES_FORM =
  'list the serials "adb devices" prints, separated by commas (R58N123ABC,10.0.4.21:5555), or * for any phone adb lists';

/**
 * PHONE_EYE_DEVICES: `*`, or serials separated by commas (spaces around each ignored). A value
 * that names no phone (" ", ",,") or has an empty entry ("a,,b", "a,") is refused: taken as
 * unset it would fall back to ANDROID_SERIAL or to adb's default phone, where an agent may name
 * any phone adb lists, wider than the list its user meant to write.
 */
export function parseDeviceList(value: string): PhoneSet {
  const items = value.split(",").map((item) => item.trim());
  if (items.every((item) => item === "")) {
    throw new ConfigError(
      `PHONE_EYE_DEVICES is ${
        quoted(value)
      }, which names no phone: ${DEVICES_FORM}; or unset it to drive ANDROID_SERIAL's phone or adb's default`,
    );
  }
  const empty = items.indexOf("");
  if (empty >= 0) {
    throw new ConfigError(
      `PHONE_EYE_DEVICES has an empty entry (entry ${empty + 1} of ${
        quoted(value)
      }): ${DEVICES_FORM}, with no comma doubled or at either end`,
    );
  }
  if (items.length === 1 && items[0] === "*") return { kind: "any" };
  if (items.includes("*")) {
    throw new ConfigError(
      "PHONE_EYE_DEVICES is either * (any phone adb lists) or a list of serials, not both",
    );
  }
  for (const item of items) checkSerial(item, "PHONE_EYE_DEVICES");
  const [first, ...rest] = [...new Set(items)];
  return { kind: "listed", serials: [first!, ...rest], from: "PHONE_EYE_DEVICES" };
}

function checkSerial(serial: string, from: string): void {
  if (!isSerial(serial)) {
    throw new ConfigError(
      `Invalid serial ${
        quoted(serial)
      } in ${from}: use the serial "adb devices" prints, or host:port for Wi-Fi (letters, digits and . : _ - [ ] %, at most 100 characters)`,
    );
  }
}

/** A value the user gave, quoted with its control characters escaped and cut to a line. */
function quoted(value: string): string {
  return value.length > 60 ? `${JSON.stringify(value.slice(0, 60))}…` : JSON.stringify(value);
}

/**
 * A look's budget: DEFAULT_LOOK_BUDGET_MS, or more when PHONE_EYE_VISION_TIMEOUT_MS was raised
 * for a slow model, so that setting still buys the model its time (the user then raises the
 * client's tool timeout too, as docs/vision.md says).
 */
export function lookBudgetMs(vision: VisionConfig): number {
  const visionMs = vision.route === "none" ? 0 : vision.timeoutMs;
  return Math.max(DEFAULT_LOOK_BUDGET_MS, visionMs + SCREENSHOT_ALLOWANCE_MS);
}

/**
 * Invalid vision settings disable vision only, with the reason kept for phone_look and --doctor:
 * the verbs fail independently, so a typo in a URL must not stop the hand.
 */
function loadVisionConfigOrProblem(readEnv: ReadEnv, timeoutMs: number): VisionConfig {
  try {
    return loadVisionConfig(readEnv, timeoutMs);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { route: "none", problem: error.message };
  }
}

function loadVisionConfig(readEnv: ReadEnv, timeoutMs: number): VisionConfig {
  const apiKey = nonEmpty(readEnv("PHONE_EYE_VISION_API_KEY"));
  const baseUrl = nonEmpty(readEnv("PHONE_EYE_VISION_BASE_URL"));
  if (apiKey !== undefined || baseUrl !== undefined) {
    return {
      route: "direct",
      baseUrl: checkHttpUrl(baseUrl ?? DEFAULT_BASE_URL, "PHONE_EYE_VISION_BASE_URL").replace(
        /\/+$/,
        "",
      ),
      apiKey,
      model: nonEmpty(readEnv("PHONE_EYE_VISION_MODEL")) ?? DEFAULT_MODEL,
      timeoutMs,
    };
  }
  const url = nonEmpty(readEnv("PHONE_EYE_VISION_URL"));
  if (url !== undefined) {
    const tool = nonEmpty(readEnv("PHONE_EYE_VISION_TOOL")) ?? DEFAULT_VISION_TOOL;
    return { route: "mcp", url: checkHttpUrl(url, "PHONE_EYE_VISION_URL"), tool, timeoutMs };
  }
  return { route: "none" };
}

function checkHttpUrl(value: string, name: EnvVar): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${name} is not a URL: use e.g. http://127.0.0.1:8080/v1`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(`${name} must be an http:// or https:// URL, not ${url.protocol}`);
  }
  if (url.username || url.password) {
    throw new ConfigError(
      `${name} must not carry credentials; put the key in PHONE_EYE_VISION_API_KEY`,
    );
  }
  return value;
}

/** A numeric setting, through the one reader every numeric variable goes through. */
function readNumber(
  readEnv: ReadEnv,
  name: EnvVar,
  rule: WholeNumberRule,
  options: { fallback: number },
): number {
  return wholeNumber(name, readEnv(name), rule, options.fallback);
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
