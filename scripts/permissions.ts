// Build tooling: the Deno permission set as data, read from deno.json, turned into --allow-*
// flags, narrowed for audited builds, checked against the production rules, explained line by line.
// Only `deno task compile` and the tests use it; the running server never does.

import { grantReason } from "./env_grants.ts";

/** One Deno permission set, as written under deno.json "permissions". */
export interface PermissionSet {
  run?: string[] | boolean;
  env?: string[] | boolean;
  net?: string[] | boolean;
  read?: string[] | boolean;
  write?: string[] | boolean;
  sys?: string[] | boolean;
  ffi?: string[] | boolean;
  import?: string[] | boolean;
  all?: boolean;
}

type ListKind = Exclude<keyof PermissionSet, "all">;

/** Flag order is fixed so the same set always yields the same command line. */
const LIST_KINDS: readonly ListKind[] = [
  "run",
  "env",
  "net",
  "read",
  "write",
  "sys",
  "ffi",
  "import",
];

/**
 * Reads the permission set `name` from a parsed deno.json, checking its shape.
 * Throws an Error naming the set and the offending key when the shape is not one this module
 * can turn into flags (for instance Deno's `{ allow, deny }` object form).
 */
export function readPermissionSet(denoJson: unknown, name = "default"): PermissionSet {
  const sets = isRecord(denoJson) ? denoJson["permissions"] : undefined;
  if (!isRecord(sets)) {
    throw new Error(
      'deno.json has no "permissions" object; the permission sets must live there (see "permissions.default")',
    );
  }
  const raw = sets[name];
  if (!isRecord(raw)) {
    throw new Error(
      `deno.json has no permission set "${name}"; it defines: ${
        Object.keys(sets).join(", ") || "none"
      }`,
    );
  }
  const set: PermissionSet = {};
  for (const [key, value] of Object.entries(raw)) {
    const where = `deno.json permissions.${name}.${key}`;
    if (key === "all") {
      if (typeof value !== "boolean") throw new Error(`${where} must be true or false`);
      set.all = value;
      continue;
    }
    if (!isListKind(key)) {
      throw new Error(
        `${where} is not a permission this project handles; use only: all, ${
          LIST_KINDS.join(", ")
        }`,
      );
    }
    if (typeof value === "boolean") {
      set[key] = value;
    } else if (Array.isArray(value) && value.every((item) => typeof item === "string")) {
      set[key] = [...value];
    } else {
      throw new Error(
        `${where} must be true, false or a list of strings (the { allow, deny } object form is not supported here)`,
      );
    }
  }
  return set;
}

/**
 * The name of the set deno.json "compile.permissions" bakes into binaries.
 * Only a set name is accepted: an inline object there would be a second copy of the rules.
 */
export function compilePermissionSetName(denoJson: unknown): string {
  const compile = isRecord(denoJson) ? denoJson["compile"] : undefined;
  const name = isRecord(compile) ? compile["permissions"] : undefined;
  if (typeof name !== "string" || name === "") {
    throw new Error(
      'deno.json "compile.permissions" must name a permission set (e.g. "default") so binaries bake the same set "deno task start" runs with',
    );
  }
  return name;
}

/**
 * The deno run/compile flags granting exactly `set`, in a fixed order.
 * `true` grants the whole kind, a list grants those entries, `false`, an empty list or a missing
 * key grants nothing. Throws when an entry cannot be written as a flag value.
 */
export function permissionFlags(set: PermissionSet): string[] {
  const flags: string[] = set.all === true ? ["--allow-all"] : [];
  for (const kind of LIST_KINDS) {
    const value = set[kind];
    if (value === true) {
      flags.push(`--allow-${kind}`);
    } else if (Array.isArray(value) && value.length > 0) {
      for (const entry of value) {
        // Deno splits flag values on commas and has no escape for them.
        if (entry === "" || entry.includes(",")) {
          throw new Error(
            `Cannot write ${kind} entry ${
              JSON.stringify(entry)
            } as a Deno flag: entries must be non-empty and contain no comma`,
          );
        }
      }
      flags.push(`--allow-${kind}=${unique(value).join(",")}`);
    }
  }
  return flags;
}

/**
 * The same set with net replaced by exactly `hosts` (an audited build bakes one vision host;
 * integration tests swap in 127.0.0.1). Throws on an empty list or an entry that is not a host.
 */
export function withVisionHosts(set: PermissionSet, hosts: string[]): PermissionSet {
  if (hosts.length === 0) {
    throw new Error("No vision host given: pass at least one host name, IP address or CIDR range");
  }
  for (const host of hosts) {
    const problem = netEntryProblem(host);
    if (problem !== undefined) throw new Error(problem);
  }
  return { ...copySet(set), net: unique(hosts) };
}

/**
 * The same set plus read and write access to exactly `dir`, the screenshot folder
 * (PHONE_EYE_SHOTS). The path must be absolute: a baked relative path would resolve against
 * whatever directory the binary happens to start in.
 */
export function withShotsDir(set: PermissionSet, dir: string): PermissionSet {
  return withFolder(set, dir, "screenshot folder");
}

/**
 * The same set plus read and write access to exactly `dir`, the journal's folder (the folder of
 * PHONE_EYE_JOURNAL's file): write to append, read to learn its size and roll it over.
 */
export function withJournalDir(set: PermissionSet, dir: string): PermissionSet {
  return withFolder(set, dir, "journal folder");
}

function withFolder(set: PermissionSet, dir: string, what: string): PermissionSet {
  const problem = pathEntryProblem("read", dir);
  if (problem !== undefined) throw new Error(`Invalid ${what}: ${problem}`);
  const next = copySet(set);
  for (const kind of ["read", "write"] as const) {
    const current = next[kind];
    // A blanket grant already covers the folder; checkProductionSet reports it separately.
    if (current !== true) next[kind] = unique([...(current || []), dir]);
  }
  return next;
}

/**
 * What stops `set` from being the production set: broad or unneeded grants, and grants that
 * no documented reason explains. An empty list means it passes.
 */
export function checkProductionSet(set: PermissionSet): string[] {
  const problems: string[] = [];
  if (set.all === true) {
    problems.push(
      "all: grants every permission; phone-eye needs only run, env, net (and read/write for a screenshot folder)",
    );
  }
  for (const kind of ["sys", "ffi", "import"] as const) {
    if (granted(set[kind])) {
      problems.push(`${kind}: granted, but phone-eye never needs it; remove it from the set`);
    }
  }
  for (const kind of ["run", "env", "net", "read", "write"] as const) {
    if (set[kind] === true) {
      problems.push(
        `${kind}: blanket grant (true); list exactly the ${
          kind === "run"
            ? "programs"
            : kind === "env"
            ? "variables"
            : kind === "net"
            ? "hosts"
            : "paths"
        } instead`,
      );
    }
  }
  const run = list(set.run);
  if (set.run !== true && !run.includes("adb")) {
    problems.push('run: "adb" is not granted, so no phone command can run');
  }
  for (const program of run) {
    if (program !== "adb") {
      problems.push(`run: grants "${program}", but phone-eye runs only adb`);
    }
  }
  for (const name of list(set.env)) {
    if (grantReason(name) === undefined) {
      problems.push(
        `env: grants ${name}, which no documented setting uses; drop it, or add its name to lib/config/env_vars.ts and its reason to scripts/env_grants.ts`,
      );
    }
  }
  for (const host of list(set.net)) {
    const problem = netEntryProblem(host);
    if (problem !== undefined) problems.push(`net: ${problem}`);
  }
  for (const kind of ["read", "write"] as const) {
    for (const path of list(set[kind])) {
      const problem = pathEntryProblem(kind, path);
      if (problem !== undefined) problems.push(`${kind}: ${problem}`);
    }
  }
  return problems;
}

/**
 * One human line per grant saying what it allows and why phone-eye needs it, for
 * `phone-eye --doctor` and docs/permissions.md's table. Also says when screenshots have no
 * folder, since that absence is a guarantee worth showing.
 */
export function describePermissions(
  set: PermissionSet,
  folders: { journalDir?: string | undefined } = {},
): string[] {
  if (set.all === true) return ["all: every permission (not a production set: nothing is fenced)"];
  const lines: string[] = [];
  if (set.run === true) {
    lines.push("run (any program): not a production grant; phone-eye runs only adb");
  }
  for (const program of list(set.run)) {
    lines.push(
      program === "adb"
        ? "run adb: every phone action goes through the adb client; Deno looks it up on PATH once, at start-up"
        : `run ${program}: not needed by phone-eye`,
    );
  }
  if (set.env === true) {
    lines.push("env (all variables): not a production grant; phone-eye reads only its own");
  }
  for (const name of list(set.env)) {
    lines.push(`env ${name}: ${grantReason(name) ?? "not read by phone-eye"}`);
  }
  if (set.net === true) {
    lines.push("net (any host): not a production grant; phone-eye talks only to its vision host");
  }
  const net = list(set.net);
  const listen = net.filter((host) => hostKind(host) === "listen");
  const loopback = net.filter((host) => hostKind(host) === "loopback");
  const lan = net.filter((host) => hostKind(host) === "lan");
  const hosted = net.filter((host) => hostKind(host) === "hosted");
  if (loopback.length > 0) {
    lines.push(
      `net ${
        loopback.join(", ")
      }: a vision model served on this machine (llama.cpp, Ollama, vLLM, an MCP vision server)`,
    );
  }
  if (lan.length > 0) {
    lines.push(`net ${lan.join(", ")}: a vision model on the local network, for offline labs`);
  }
  if (listen.length > 0) {
    lines.push(
      `net ${
        listen.join(", ")
      }: listening on every interface, for --http (phone-eye-http, deno task serve-http); revoked once the socket is bound`,
    );
  }
  if (hosted.length > 0) {
    lines.push(
      `net ${hosted.join(", ")}: hosted vision endpoint${
        hosted.length > 1 ? "s" : ""
      } (OpenAI-compatible or MCP); screenshots go only to the one configured`,
    );
  }
  for (const kind of ["read", "write"] as const) {
    if (set[kind] === true) {
      lines.push(`${kind} (any path): not a production grant; only the screenshot folder needs it`);
    }
    for (const path of list(set[kind])) {
      if (path === folders.journalDir) {
        lines.push(
          `${kind} ${path}: the journal folder (PHONE_EYE_JOURNAL)${
            kind === "read" ? ", to roll the file over" : "; the journal is written nowhere else"
          }`,
        );
        continue;
      }
      lines.push(
        `${kind} ${path}: the screenshot folder (PHONE_EYE_SHOTS)${
          kind === "read" ? "" : "; screenshots are written nowhere else"
        }`,
      );
    }
  }
  if (!granted(set.read) && !granted(set.write)) {
    lines.push("read/write: none; screenshots stay in memory and never touch disk");
  }
  for (const kind of ["sys", "ffi", "import"] as const) {
    if (granted(set[kind])) lines.push(`${kind}: granted, but phone-eye never needs it`);
  }
  return lines;
}

function netEntryProblem(host: string): string | undefined {
  const named = /^(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:\d{1,5})?$/;
  const ipv6 = /^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;
  const cidr4 = /^\d{1,3}(\.\d{1,3}){3}\/(\d|[12]\d|3[0-2])$/;
  if (named.test(host) || ipv6.test(host) || cidr4.test(host)) return undefined;
  return `${
    JSON.stringify(host)
  } is not a network host: give a host name (api.example.com), host:port, an IP address, [IPv6] or an IPv4 CIDR range, not a URL`;
}

function pathEntryProblem(kind: "read" | "write", path: string): string | undefined {
  if (path === "" || path.includes(",")) {
    return `${kind} path ${
      JSON.stringify(path)
    } must be non-empty and contain no comma (Deno splits flag values on commas)`;
  }
  if (!isAbsolutePath(path)) {
    return `${kind} path ${
      JSON.stringify(path)
    } is relative; give an absolute path, since a baked relative path resolves against the directory the binary starts in`;
  }
  return undefined;
}

/** Absolute on either family, because a Linux runner may build the Windows binary. */
function isAbsolutePath(path: string): boolean {
  return path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\\\");
}

/**
 * Sorts a net entry for describePermissions: every interface (what --http listens on), this
 * machine, the LAN, or the internet.
 */
function hostKind(host: string): "listen" | "loopback" | "lan" | "hosted" {
  if (host === "0.0.0.0" || host === "[::]") return "listen";
  const bare = host.startsWith("[")
    ? host.slice(0, host.indexOf("]") + 1)
    : host.replace(/\/\d+$/, "").replace(/:\d+$/, "");
  if (bare === "localhost" || bare === "[::1]") return "loopback";
  const octets = bare.split(".").map(Number);
  if (octets.length !== 4 || octets.some((n) => !Number.isInteger(n))) return "hosted";
  const [a = -1, b = -1] = octets;
  if (a === 127) return "loopback";
  return a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)
    ? "lan"
    : "hosted";
}

function copySet(set: PermissionSet): PermissionSet {
  const copy: PermissionSet = {};
  if (set.all !== undefined) copy.all = set.all;
  for (const kind of LIST_KINDS) {
    const value = set[kind];
    if (value !== undefined) copy[kind] = Array.isArray(value) ? [...value] : value;
  }
  return copy;
}

function granted(value: string[] | boolean | undefined): boolean {
  return value === true || (Array.isArray(value) && value.length > 0);
}

function list(value: string[] | boolean | undefined): string[] {
  return Array.isArray(value) ? value : [];
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function isListKind(key: string): key is ListKind {
  return (LIST_KINDS as readonly string[]).includes(key);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
