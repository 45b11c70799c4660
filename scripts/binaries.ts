// The two binaries a release builds for each target: phone-eye (stdio, deno.json's compile set, as
// `deno task start` runs) and phone-eye-http (the set `deno task serve-http` runs with), and what
// each one's set must and must not grant. Build tooling: the running server never imports it.

import { HTTP_ENV_VARS } from "../lib/config/env_vars.ts";
import { HTTP_BINARY } from "../lib/mcp/http_settings.ts";
import { HTTP_LISTEN_GRANTS } from "../lib/mcp/http_settings.ts";
import { compilePermissionSetName, type PermissionSet } from "./permissions.ts";

export type BinaryKind = "stdio" | "http";

/** Each binary's file name stem and the deno.json task whose set and runtime flags it bakes. */
export const BINARIES: { readonly [kind in BinaryKind]: { stem: string; task: string } } = {
  stdio: { stem: "phone-eye", task: "start" },
  http: { stem: HTTP_BINARY, task: "serve-http" },
};

/** The start task's shape: `deno run`, flags, then main.ts. */
const RUN_TASK = /^deno run\s+(.*?)\s*main\.ts$/;

/**
 * The permission set a deno.json task runs main.ts with: a bare `-P` loads "default", `-P=NAME`
 * (or --permission-set=NAME) names one. Throws when the task gives none.
 */
export function taskPermissionSetName(denoJson: unknown, task: string): string {
  const tasks = (denoJson as { tasks?: Record<string, unknown> } | null)?.tasks;
  const line = tasks?.[task];
  const flags = typeof line === "string" ? RUN_TASK.exec(line.trim())?.[1] : undefined;
  for (const flag of flags?.split(/\s+/) ?? []) {
    const named = /^(?:-P|--permission-set)(?:=(.+))?$/.exec(flag);
    if (named) return named[1] ?? "default";
  }
  throw new Error(
    `deno.json's "${task}" task must run "deno run -P[=SET] … main.ts" so its binary bakes that set (got ${
      JSON.stringify(line)
    })`,
  );
}

/**
 * The set a binary bakes: the stdio one, the set deno.json "compile.permissions" names (the start
 * task's, a test checks); the http one, the set the serve-http task runs with, so the binary
 * serves as `deno task serve-http` does.
 */
export function binarySetName(denoJson: unknown, kind: BinaryKind): string {
  return kind === "stdio"
    ? compilePermissionSetName(denoJson)
    : taskPermissionSetName(denoJson, BINARIES.http.task);
}

/**
 * What stops `set` from being the set of a `kind` binary, beside the production rules: a stdio
 * binary may not read the HTTP variables or listen on every interface (it never serves the
 * network), an http binary must read the HTTP variables (or --http with a token is refused).
 */
export function binarySetProblems(set: PermissionSet, kind: BinaryKind): string[] {
  const env = Array.isArray(set.env) ? set.env : [];
  const net = Array.isArray(set.net) ? set.net : [];
  if (kind === "http") {
    return HTTP_ENV_VARS.filter((name) => set.env !== true && !env.includes(name)).map((name) =>
      `env: ${name} is not granted, so ${HTTP_BINARY} could not read it and --http would be refused`
    );
  }
  return [
    ...HTTP_ENV_VARS.filter((name) => set.env === true || env.includes(name)).map((name) =>
      `env: grants ${name}, which only ${HTTP_BINARY} reads: the stdio binary never serves the network`
    ),
    ...HTTP_LISTEN_GRANTS.filter((host) => net.includes(host)).map((host) =>
      `net: grants ${host} (listening on every interface), which only ${HTTP_BINARY} needs`
    ),
  ];
}

/** The binary's default file name: dist/STEM[-TRIPLE][.exe]. */
export function binaryOutput(
  kind: BinaryKind,
  target: string | undefined,
  windows: boolean,
): string {
  const suffix = target === undefined ? "" : `-${target}`;
  return `dist/${BINARIES[kind].stem}${suffix}${windows ? ".exe" : ""}`;
}

/**
 * The shell lines that fetch a release binary, check it against SHA256SUMS.txt and its build
 * attestation, and install it on PATH as `installAs`: the README's and the lab page's alike.
 */
export function fetchAndInstall(
  release: { url: string; slug: string; version: string },
  binary: string,
  installAs: string,
): string[] {
  return [
    `base=${release.url}/releases/download/v${release.version}`,
    `curl -fLO "$base/${binary}"`,
    `curl -fLO "$base/SHA256SUMS.txt"`,
    "sha256sum -c --ignore-missing SHA256SUMS.txt   # macOS: shasum -a 256 -c --ignore-missing SHA256SUMS.txt",
    `gh attestation verify ${binary} --repo ${release.slug}`,
    `chmod +x ${binary}`,
    `sudo mv ${binary} /usr/local/bin/${installAs}`,
  ];
}
