// The doctor's permission checks: the grants the running Deno reports (adb, env, net, the screenshot
// folder, the rest refused) against the intended set, and where screenshots go as a result.

import type { Config } from "../config/config.ts";
import { ENV_VARS, HTTP_ENV_VARS } from "../config/env_vars.ts";
import { HTTP_LISTEN_GRANTS } from "../mcp/http_settings.ts";
import { shotsGrantFix } from "../screen/shots.ts";
import { JOURNAL_MAX_BYTES, journalFolder, journalGrantFix } from "../mcp/journal.ts";
import type { BuildInfo } from "./build_info.ts";
import type { Check } from "./doctor_check.ts";
import { grantCovers, queryTarget, visionHost, visionPort } from "./sandbox.ts";

/** Asks Deno whether a permission is granted now (Deno.permissions.query in production). */
export type QueryPermission = (descriptor: Deno.PermissionDescriptor) => Promise<boolean>;

export interface PermissionDeps {
  config: Config;
  query: QueryPermission;
  /** What the build was given (its net grants, before start-up narrowing). */
  build: BuildInfo;
  /**
   * adb is not on PATH (the adb check says so): Deno then reports --allow-run=adb refused, since it
   * grants it to an adb found on PATH at start-up, so that grant is not judged.
   */
  adbNotOnPath?: boolean;
}

/**
 * The permission check's lines as they are written ("ok  …" as intended, "!!  …" not), and
 * whether every one came out as intended.
 */
class PermissionLines {
  readonly lines: string[] = [];
  #ok = true;

  constructor(readonly query: QueryPermission) {}

  get ok(): boolean {
    return this.#ok;
  }

  pass(line: string): void {
    this.lines.push(`ok  ${line}`);
  }

  fail(line: string): void {
    this.#ok = false;
    this.lines.push(`!!  ${line}`);
  }

  /** A line written whole by its maker (the http set's "--" is neither a pass nor a failure). */
  add(line: string): void {
    this.lines.push(line);
  }

  expectGranted(descriptor: Deno.PermissionDescriptor, label: string): Promise<void> {
    return this.#expect(descriptor, { want: true, label });
  }

  expectRefused(descriptor: Deno.PermissionDescriptor, label: string): Promise<void> {
    return this.#expect(descriptor, { want: false, label });
  }

  async #expect(descriptor: Deno.PermissionDescriptor, how: { want: boolean; label: string }) {
    const granted = await this.query(descriptor);
    const line = `${how.label}: ${granted ? "granted" : "refused"}`;
    if (granted === how.want) this.pass(line);
    else this.fail(line);
  }
}

/**
 * The net grants, the screenshot folder and the rest of the sandbox, as the running Deno reports
 * them. Returns the check and whether the screenshot folder is usable, which the screenshot
 * check reports on so the two never disagree.
 */
export async function checkPermissions(
  deps: PermissionDeps,
): Promise<Check & { shotsUsable: boolean; journalUsable: boolean }> {
  const report = new PermissionLines(deps.query);
  report.pass(whereGrantsCameFrom(deps.build));
  await checkRunAndEnv(report, deps.adbNotOnPath === true);
  await checkBakedNetGrants(report, deps);
  await checkVisionEndpoint(report, deps);
  const shotsUsable = await checkShotsFolder(report, deps.config);
  const journalUsable = await checkJournalFolder(report, deps.config);
  await report.expectRefused(
    { name: "read", path: "/etc/passwd" },
    "read outside the screenshot folder",
  );
  await report.expectRefused({ name: "ffi" }, "ffi");
  report.add(await httpSetLine(deps.query));
  return {
    ok: report.ok,
    title: report.ok ? "permissions as intended" : "permissions differ from the intended set",
    detail: report.lines,
    shotsUsable,
    journalUsable,
  };
}

/** The first line: the grants baked into a compiled binary, or the start command's. */
function whereGrantsCameFrom(build: BuildInfo): string {
  return build.kind === "compiled"
    ? `built with net ${build.net.join(", ") || "none"}${
      build.shotsDir === undefined ? "" : ` and screenshot folder ${build.shotsDir}`
    } (baked by deno task compile)`
    : "from source: the grants of the start command (deno task start: deno.json's permissions.default)";
}

/** adb and nothing else may run; phone-eye's variables may be read and nothing else. */
async function checkRunAndEnv(report: PermissionLines, adbNotOnPath: boolean): Promise<void> {
  if (adbNotOnPath) {
    report.add(
      "--  run adb: not judged, because adb is not on PATH (the run grant is given to the adb found there at start-up; see the adb line)",
    );
  } else await report.expectGranted({ name: "run", command: "adb" }, "run adb");
  await report.expectRefused({ name: "run", command: "sh" }, "run sh (anything but adb)");
  const envGranted: string[] = [];
  for (const name of ENV_VARS) {
    if (await report.query({ name: "env", variable: name })) envGranted.push(name);
  }
  report.pass(
    `env: ${envGranted.length} of phone-eye's ${ENV_VARS.length} variables readable${
      envGranted.length < ENV_VARS.length ? " (the rest count as unset)" : ""
    }`,
  );
  await report.expectRefused(
    { name: "env", variable: "AWS_SECRET_ACCESS_KEY" },
    "env of anything else",
  );
}

/** Each baked net grant: kept when it covers the configured vision host, revoked otherwise. */
async function checkBakedNetGrants(report: PermissionLines, deps: PermissionDeps): Promise<void> {
  const host = visionHost(deps.config.vision);
  const port = visionPort(deps.config.vision);
  const revoked: string[] = [];
  for (const entry of deps.build.net) {
    const needed = host !== undefined && grantCovers(entry, host, port);
    const granted = await report.query({ name: "net", host: queryTarget(entry) });
    if (granted === needed) {
      if (granted) report.pass(`net ${entry}: granted (the configured vision host)`);
      else revoked.push(entry);
    } else {
      report.fail(`net ${entry}: ${granted ? "still granted, but unused" : "refused, but needed"}`);
    }
  }
  if (revoked.length > 0) {
    report.pass(
      `net: ${revoked.length} other baked grants revoked at start-up (${revoked.join(", ")})`,
    );
  }
}

/** The configured vision endpoint must be reachable, and the fix names how to allow it. */
async function checkVisionEndpoint(report: PermissionLines, deps: PermissionDeps): Promise<void> {
  const host = visionHost(deps.config.vision);
  if (host === undefined) return;
  const port = visionPort(deps.config.vision);
  // With the port: a build for 192.168.1.50:8080 reaches that port of that host only.
  const target = port === undefined ? host : `${host}:${port}`;
  if (await report.query({ name: "net", host: target })) {
    report.pass(`net ${target}: allowed (the configured vision endpoint, port included)`);
    return;
  }
  report.fail(
    `net ${target}: refused, so this process cannot reach the configured vision endpoint; ${
      deps.build.kind === "compiled"
        ? `build a binary for it with "deno task compile --vision-host ${target}"`
        : `from source, start with --allow-net=${target} (deno run -P --allow-net=${target} --no-prompt main.ts; the flag replaces the set's net list) or add ${host} to permissions.default.net in deno.json`
    }`,
  );
}

/** Read and write on PHONE_EYE_SHOTS when it is set; returns whether screenshots can be kept. */
async function checkShotsFolder(report: PermissionLines, config: Config): Promise<boolean> {
  const shots = config.shotsDir;
  if (shots === undefined) return true;
  const refused: string[] = [];
  for (const kind of ["read", "write"] as const) {
    if (!(await report.query({ name: kind, path: shots }))) refused.push(kind);
  }
  if (refused.length === 0) {
    report.pass(`read/write ${shots} (PHONE_EYE_SHOTS): granted`);
    return true;
  }
  report.fail(
    `${refused.join("/")} ${shots} (PHONE_EYE_SHOTS): refused, so screenshots are not kept there; ${
      shotsGrantFix(shots)
    }`,
  );
  return false;
}

/** Read and write on the journal's folder when journaling is on; returns whether it can write. */
async function checkJournalFolder(report: PermissionLines, config: Config): Promise<boolean> {
  if (config.journalFile === undefined) {
    report.pass("journal: off (PHONE_EYE_JOURNAL and --journal unset), so no call is recorded");
    return true;
  }
  const dir = journalFolder(config.journalFile);
  const refused: string[] = [];
  for (const kind of ["read", "write"] as const) {
    if (!(await report.query({ name: kind, path: dir }))) refused.push(kind);
  }
  if (refused.length === 0) {
    report.pass(`read/write ${dir} (the folder of PHONE_EYE_JOURNAL): granted`);
    return true;
  }
  report.fail(
    `${
      refused.join("/")
    } ${dir} (the folder of PHONE_EYE_JOURNAL): refused, so no call is recorded; ${
      journalGrantFix(dir)
    }`,
  );
  return false;
}

/**
 * Where the journal goes and how the file is bounded, when journaling is on (null when off: the
 * permission check's "journal: off" line says so). Information: a refused folder already fails
 * the permission check, which sets the exit status.
 */
export function journalPolicy(config: Config, folder: { usable: boolean }): Check | null {
  const file = config.journalFile;
  if (file === undefined) return null;
  if (!folder.usable) {
    return {
      ok: true,
      info: true,
      title: `journal not written: ${journalFolder(file)} is refused`,
      detail: ["see the permissions above for the fix; calls are served, but none is recorded"],
    };
  }
  return {
    ok: true,
    info: true,
    title: `journal on: ${file}`,
    detail: [
      "one JSON line per tool call (docs/journal.md); typed text is left out for password fields",
      `past ${
        JOURNAL_MAX_BYTES / (1024 * 1024)
      } MiB the file becomes ${file}.1 (one previous file kept)`,
    ],
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
export function shotsPolicy(config: Config, folder: { usable: boolean }): Check {
  if (config.shotsDir === undefined) {
    return {
      ok: true,
      title: "screenshots stay in memory",
      detail: [
        "PHONE_EYE_SHOTS is unset: screenshots never touch disk, and go only to the vision host",
      ],
    };
  }
  if (!folder.usable) {
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
