// `phone-eye --doctor`: a checklist of adb, the phone, the vision route, the permissions in force
// and the screenshot policy, each failure with its fix. The world comes in as arguments.

import { ADB_KEYBOARD_RELEASES, imeStateCommand, parseImeState } from "../adb/adb_keyboard.ts";
import { getpropCommand } from "../adb/commands.ts";
import type { Device } from "../adb/device.ts";
import { AdbError } from "../adb/errors.ts";
import { type Config, keyInClear } from "../config/config.ts";
import type { Phones } from "../adb/phones.ts";
import { ENV_VARS, HTTP_ENV_VARS } from "../config/env_vars.ts";
import { HTTP_LISTEN_GRANTS } from "../mcp/http_settings.ts";
import { excerpt } from "../core/text.ts";
import { grantCovers, queryTarget, visionHost, visionPort } from "./sandbox.ts";
import { shotsGrantFix } from "../screen/shots.ts";
import type { BuildInfo } from "./build_info.ts";
import type { Vision, VisionImage } from "../vision/route.ts";

export interface Check {
  ok: boolean;
  title: string;
  detail: string[];
  /** Information only, shown as [info]: it is always ok and never sets the exit status. */
  info?: true;
  /** Which of EXIT_GATES this check is (every check but the information ones has one). */
  gate?: ExitGate;
}

/**
 * What the doctor's exit status depends on, in docs/security.md's words: it exits 1 when one of these
 * checks fails. The ADB Keyboard line is information (typing still works, ASCII only).
 */
export const EXIT_GATES = [
  "adb",
  "the phone",
  "the vision route (when one is configured)",
  "the permissions",
  "the screenshot folder (when PHONE_EYE_SHOTS is set)",
] as const;

export type ExitGate = typeof EXIT_GATES[number];

/** docs/security.md's sentence about the exit status, built from EXIT_GATES (tests/app/doctor_test.ts). */
export function exitStatusSentence(): string {
  const gates = `${EXIT_GATES.slice(0, -1).join(", ")} and ${EXIT_GATES.at(-1)}`;
  return `It exits 0 when ${gates} check out, and 1 otherwise; the ADB Keyboard line is information and never fails it.`;
}

/** Asks Deno whether a permission is granted now (Deno.permissions.query in production). */
export type QueryPermission = (descriptor: Deno.PermissionDescriptor) => Promise<boolean>;

export interface DoctorDeps {
  config: Config;
  phones: Phones;
  vision: Vision;
  query: QueryPermission;
  /** What the build was given (its net grants, before start-up narrowing). */
  build: BuildInfo;
}

const reason = (error: unknown) => error instanceof Error ? error.message : String(error);

async function checkAdb(phones: Phones): Promise<Check> {
  try {
    const out = await phones.host(["version"], "run adb");
    const [first = "", second = ""] = out.text.split(/\r?\n/);
    return { ok: true, title: "adb found", detail: [`${first.trim()} ${second.trim()}`.trim()] };
  } catch (error) {
    return { ok: false, title: "adb not usable", detail: [reason(error)] };
  }
}

async function checkPhone(device: Device): Promise<Check> {
  const where = device.serial ?? "adb's default device";
  try {
    const model =
      (await device.run(getpropCommand("ro.product.model"), { action: "reach the phone" }))
        .text.trim();
    const release = (await device.run(getpropCommand("ro.build.version.release"), {
      action: "reach the phone",
    })).text.trim();
    const size = await device.screenSize("read the screen size");
    return {
      ok: true,
      title: `phone reachable (${where})`,
      detail: [
        `${model || "unknown model"}, Android ${
          release || "?"
        }, screen ${size.width}×${size.height}`,
      ],
    };
  } catch (error) {
    return { ok: false, title: phoneTrouble(error, where), detail: [reason(error)] };
  }
}

/** The phone check's headline when it fails: the situation adb reported, in a few words. */
function phoneTrouble(error: unknown, where: string): string {
  if (!(error instanceof AdbError)) return `phone not reachable (${where})`;
  const listed = error.attached?.map((d) => `${d.serial} (${d.state})`).join(", ");
  switch (error.code) {
    case "MULTIPLE_DEVICES":
      return error.trouble?.serial === undefined
        ? `more than one phone attached${listed ? `: ${listed}` : ""}`
        : `more than one phone answers to ${where}`;
    case "UNAUTHORIZED":
      return `phone not authorized (${where})`;
    default:
      return `phone not reachable (${where})`;
  }
}

/**
 * Whether ADB Keyboard is installed: without it phone_type types printable ASCII only
 * (adb_keyboard.ts). Information, never a failure.
 */
async function checkKeyboard(device: Device): Promise<Check> {
  const install =
    `install it once: download the APK from ${ADB_KEYBOARD_RELEASES} and run "adb install ADBKeyboard.apk" (nothing to enable: phone_type selects it for each such call and puts the current keyboard back)`;
  try {
    const out = await device.run(imeStateCommand(), { action: "read the input methods" });
    const state = parseImeState(out.text);
    if (state === null) {
      return {
        ok: true,
        info: true,
        title: "ADB Keyboard unknown: the input method list was unreadable",
        detail: [`"ime list" answered: ${excerpt(out.text, 120)}`],
      };
    }
    return state.installed
      ? {
        ok: true,
        info: true,
        title: "ADB Keyboard installed: phone_type types any text",
        detail: [
          "phone-eye selects it for each non-ASCII phone_type and puts the current one back",
        ],
      }
      : {
        ok: true,
        info: true,
        title: "ADB Keyboard not installed: typing is ASCII only",
        detail: [`phone_type refuses other characters; to type any language, ${install}`],
      };
  } catch (error) {
    return {
      ok: true,
      info: true,
      title: "ADB Keyboard not checked",
      detail: [reason(error)],
    };
  }
}

/**
 * A small grey-and-white test card for the vision check: enough for a model to answer, nothing
 * private. 64×64, four 32 px squares, light (230) top-right and bottom-left, dark (90) elsewhere,
 * as an RGB PNG; a constant, so the doctor never loads the image codecs to make one.
 * tests/app/doctor_test.ts decodes it with the production decoder and checks every pixel.
 */
export const TEST_CARD_PNG = Uint8Array.fromBase64(
  "iVBORw0KGgoAAAANSUhEUgAAAEAAAABACAIAAAAlC+aJAAAAb0lEQVR4nO3SAQmAAAxFQVlMcxjDnOYwhIxDeJfgj7c5lz3L" +
    "5vi5DtAqoFVAq4BWAa0CWgW0CmgV0CqgVUCrgFYBrQJaBbS5l13LeiGtAloFtApoFdAqoFVAq4BWAa0CWgW0CmgV0Cqg" +
    "VUAbPeCrF7MC2IGEZ/dXAAAAAElFTkSuQmCC",
);

async function checkVision(vision: Vision, config: Config): Promise<Check> {
  if (vision.unavailable !== undefined) {
    // Unset is a choice (phone_look still returns the UI tree); settings given but invalid are not.
    const invalid = config.vision.route === "none" && config.vision.problem !== undefined;
    return {
      ok: !invalid,
      title: invalid ? "vision settings invalid" : "vision not configured (optional)",
      detail: [
        `${vision.unavailable.setup} The hand verbs work without it, and phone_look still returns the UI tree.`,
      ],
    };
  }
  const image: VisionImage = { bytes: TEST_CARD_PNG, mimeType: "image/png", width: 64, height: 64 };
  try {
    const answer = await vision.describe(
      image,
      "phone-eye --doctor connectivity check: reply with the single word OK.",
    );
    return {
      ok: true,
      title: `vision answers (${vision.route} route, ${vision.endpoint})`,
      detail: [`answer: ${excerpt(answer, 80)}`],
    };
  } catch (error) {
    return {
      ok: false,
      title: `vision does not answer (${vision.route} route, ${vision.endpoint})`,
      detail: [reason(error)],
    };
  }
}

/**
 * Shown whenever PHONE_EYE_VISION_ALLOW_HTTP=1 is set: the user opted in to an unencrypted key,
 * and the doctor says where it goes (or that nothing needs the opt-in). Information: the choice
 * was made on purpose, so it fails nothing.
 */
function keyTransport(config: Config): Check | null {
  if (!config.visionAllowHttp) return null;
  const inClear = keyInClear(config.vision);
  if (inClear === undefined) {
    return {
      ok: true,
      info: true,
      title: "PHONE_EYE_VISION_ALLOW_HTTP=1 is set but unused",
      detail: [
        "no vision credential goes over plain http:// to another host; unset it so a later http:// URL is refused again",
      ],
    };
  }
  const where = `${visionHost(config.vision)}:${visionPort(config.vision)}`;
  return {
    ok: true,
    info: true,
    title: `vision credentials sent unencrypted to ${where} (PHONE_EYE_VISION_ALLOW_HTTP=1)`,
    detail: [
      "anyone on that network can read them; use https:// when the server offers it, and unset PHONE_EYE_VISION_ALLOW_HTTP",
    ],
  };
}

/**
 * The net grants, the screenshot folder and the rest of the sandbox, as the running Deno reports
 * them. Returns the check and whether the screenshot folder is usable, which the screenshot
 * check reports on so the two never disagree.
 */
async function checkPermissions(deps: DoctorDeps): Promise<Check & { shotsUsable: boolean }> {
  const { query, config, build } = deps;
  const host = visionHost(config.vision);
  const port = visionPort(config.vision);
  const lines: string[] = [
    build.kind === "compiled"
      ? `ok  built with net ${build.net.join(", ") || "none"}${
        build.shotsDir === undefined ? "" : ` and screenshot folder ${build.shotsDir}`
      } (baked by deno task compile)`
      : "ok  from source: the grants of the start command (deno task start: deno.json's permissions.default)",
  ];
  let ok = true;
  const expect = async (descriptor: Deno.PermissionDescriptor, want: boolean, label: string) => {
    const granted = await query(descriptor);
    if (granted !== want) ok = false;
    lines.push(`${granted === want ? "ok " : "!! "} ${label}: ${granted ? "granted" : "refused"}`);
  };
  await expect({ name: "run", command: "adb" }, true, "run adb");
  await expect({ name: "run", command: "sh" }, false, "run sh (anything but adb)");
  const envGranted: string[] = [];
  for (const name of ENV_VARS) {
    if (await query({ name: "env", variable: name })) envGranted.push(name);
  }
  lines.push(
    `ok  env: ${envGranted.length} of phone-eye's ${ENV_VARS.length} variables readable${
      envGranted.length < ENV_VARS.length ? " (the rest count as unset)" : ""
    }`,
  );
  await expect({ name: "env", variable: "AWS_SECRET_ACCESS_KEY" }, false, "env of anything else");
  const revoked: string[] = [];
  for (const entry of build.net) {
    const needed = host !== undefined && grantCovers(entry, host, port);
    const granted = await query({ name: "net", host: queryTarget(entry) });
    if (granted === needed) {
      if (granted) lines.push(`ok  net ${entry}: granted (the configured vision host)`);
      else revoked.push(entry);
    } else {
      ok = false;
      lines.push(
        `!!  net ${entry}: ${granted ? "still granted, but unused" : "refused, but needed"}`,
      );
    }
  }
  if (revoked.length > 0) {
    lines.push(
      `ok  net: ${revoked.length} other baked grants revoked at start-up (${revoked.join(", ")})`,
    );
  }
  if (host !== undefined) {
    // With the port: a build for 192.168.1.50:8080 reaches that port of that host only.
    const target = port === undefined ? host : `${host}:${port}`;
    if (await query({ name: "net", host: target })) {
      lines.push(`ok  net ${target}: allowed (the configured vision endpoint, port included)`);
    } else {
      ok = false;
      lines.push(
        `!!  net ${target}: refused, so this process cannot reach the configured vision endpoint; ${
          build.kind === "compiled"
            ? `build a binary for it with "deno task compile --vision-host ${target}"`
            : `from source, start with --allow-net=${target} (deno run -P --allow-net=${target} --no-prompt main.ts; the flag replaces the set's net list) or add ${host} to permissions.default.net in deno.json`
        }`,
      );
    }
  }
  const shots = config.shotsDir;
  let shotsUsable = true;
  if (shots !== undefined) {
    const refused: string[] = [];
    for (const kind of ["read", "write"] as const) {
      if (!(await query({ name: kind, path: shots }))) refused.push(kind);
    }
    if (refused.length === 0) lines.push(`ok  read/write ${shots} (PHONE_EYE_SHOTS): granted`);
    else {
      ok = false;
      shotsUsable = false;
      lines.push(
        `!!  ${
          refused.join("/")
        } ${shots} (PHONE_EYE_SHOTS): refused, so screenshots are not kept there; ${
          shotsGrantFix(shots)
        }`,
      );
    }
  }
  await expect({ name: "read", path: "/etc/passwd" }, false, "read outside the screenshot folder");
  await expect({ name: "ffi" }, false, "ffi");
  lines.push(await httpSetLine(query));
  return {
    ok,
    title: ok ? "permissions as intended" : "permissions differ from the intended set",
    detail: lines,
    shotsUsable,
  };
}

/**
 * What serving over HTTP is granted beyond this set: deno.json's "http" set (deno task
 * serve-http), said whether or not this process runs with it, so the difference is never hidden.
 */
async function httpSetLine(query: QueryPermission): Promise<string> {
  const granted = await query({ name: "env", variable: HTTP_ENV_VARS[0] });
  const adds = `env ${HTTP_ENV_VARS.join(", ")} and net ${
    HTTP_LISTEN_GRANTS.join(", ")
  } (listening on every interface, revoked once the socket is bound); HTTPS adds --allow-read=CERT,KEY for the two files`;
  return granted
    ? `ok  http: this process has the "http" set (phone-eye --http HOST:PORT), which adds ${adds}`
    : `--  http: phone-eye --http HOST:PORT runs with the "http" set instead (deno task serve-http), which adds ${adds}; the stdio set above never reads them`;
}

/** Where screenshots go; a folder the permissions refuse is said as such, never as "kept". */
function shotsPolicy(config: Config, usable: boolean): Check {
  if (config.shotsDir === undefined) {
    return {
      ok: true,
      title: "screenshots stay in memory",
      detail: [
        "PHONE_EYE_SHOTS is unset: screenshots never touch disk, and go only to the vision host",
      ],
    };
  }
  if (!usable) {
    return {
      ok: false,
      title: `screenshots not kept: ${config.shotsDir} is refused`,
      detail: [
        "PHONE_EYE_SHOTS names a folder this process may not use (see the permissions above for the fix); screenshots stay in memory, and each phone_shot says it was not saved",
      ],
    };
  }
  return {
    ok: true,
    title: `screenshots kept in ${config.shotsDir}`,
    detail: [
      "each file gets a fresh name and is created exclusively (a planted symlink is never followed)",
      `each holds the image alone, at most 8 MiB; phone-eye's own files there are kept under ${
        config.shotsMaxBytes / (1024 * 1024)
      } MiB (PHONE_EYE_SHOTS_MAX_MB), the oldest removed first, and no other file is touched`,
    ],
  };
}

/** The phone, then, once it answers, its keyboard. */
async function checkPhoneAndKeyboard(device: Device): Promise<[Check, Check | null]> {
  const phone = await checkPhone(device);
  return [phone, phone.ok ? await checkKeyboard(device) : null];
}

/**
 * The phones PHONE_EYE_DEVICES allows, as an information line (none for one phone, as before), and
 * the Devices to check: the configured phone or adb's default, each listed one, or with `*` each
 * phone adb lists. Several phones are checked at once.
 */
async function checkPhones(phones: Phones): Promise<Check[]> {
  const { set } = phones;
  if (set.kind === "default" || (set.kind === "listed" && set.serials.length === 1)) {
    const [phone, keyboard] = await checkPhoneAndKeyboard(await phones.resolve(undefined));
    return keyboard === null ? [phone] : [phone, keyboard];
  }
  let roster;
  try {
    roster = await phones.roster();
  } catch (error) {
    return [{ ok: false, title: "phones not listed", detail: [reason(error)] }];
  }
  const allowed: Check = {
    ok: true,
    info: true,
    title: set.kind === "any"
      ? `PHONE_EYE_DEVICES=*: any phone adb lists (${roster.length} now); agents pick one with device`
      : `PHONE_EYE_DEVICES: ${set.serials.length} phones; agents pick one with device`,
    detail: roster.map((d) => `${d.serial} (${d.state})`),
  };
  if (roster.length === 0) {
    return [allowed, {
      ok: false,
      title: "no phone attached",
      detail: ['"adb devices" lists none'],
    }];
  }
  const checked = await Promise.all(
    roster.map(async (d) => await checkPhoneAndKeyboard(await phones.resolve(d.serial))),
  );
  return [
    allowed,
    ...checked.flatMap(([phone, keyboard]) => keyboard ? [phone, keyboard] : [phone]),
  ];
}

/** Runs every check; the phone and vision checks run at once since they are independent. */
export async function runDoctor(deps: DoctorDeps): Promise<Check[]> {
  const adb = await checkAdb(deps.phones);
  const [phoneChecks, vision] = await Promise.all([
    adb.ok ? checkPhones(deps.phones) : Promise.resolve<Check[]>([{
      ok: false,
      title: "phone not checked",
      detail: ["adb must work first"],
    }]),
    checkVision(deps.vision, deps.config),
  ]);
  const { shotsUsable, ...permissions } = await checkPermissions(deps);
  const gated = (check: Check, gate: ExitGate): Check => ({ ...check, gate });
  return [
    gated(adb, "adb"),
    ...phoneChecks.map((check) => check.info ? check : gated(check, "the phone")),
    gated(vision, "the vision route (when one is configured)"),
    ...[keyTransport(deps.config)].filter((c) => c !== null),
    gated(permissions, "the permissions"),
    gated(
      shotsPolicy(deps.config, shotsUsable),
      "the screenshot folder (when PHONE_EYE_SHOTS is set)",
    ),
  ];
}

export function formatChecks(checks: Check[]): string {
  return checks.map((c) =>
    [
      `[${c.info ? "info" : c.ok ? "ok" : "FAIL"}] ${c.title}`,
      ...c.detail.map((d) => `       ${d}`),
    ].join("\n")
  ).join("\n");
}
