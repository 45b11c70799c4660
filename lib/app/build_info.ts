// What this process was given when it was built: the net grants baked at compile time (and the
// screenshot folder), read from build_source.ts or what the compile swaps in; else deno.json's set.

// `deno task compile` remaps this one module, through an import map, to a generated one.
import { BUILD_INFO } from "./build_source.ts";
import denoJson from "../../deno.json" with { type: "json" };

export interface BuildInfo {
  /** "compiled": `deno task compile` generated the facts; "source": a run from a checkout. */
  kind: "compiled" | "source";
  /** The net grants the process starts with, before start-up narrowing. */
  net: readonly string[];
  /** The audited build's --vision-host, when one was given. */
  visionHost?: string;
  /** The audited build's --shots-dir, when one was given. */
  shotsDir?: string;
  /** The audited build's --journal-dir, when one was given. */
  journalDir?: string;
}

const strings = (value: unknown): string[] | undefined =>
  Array.isArray(value) && value.every((v) => typeof v === "string") ? [...value] : undefined;

/**
 * Reads the build-info module's value. Anything malformed counts as a run from source with
 * `sourceNet`, which is what `deno task start` grants.
 */
export function readBuildInfo(raw: unknown, sourceNet: readonly string[]): BuildInfo {
  const source: BuildInfo = { kind: "source", net: sourceNet };
  if (typeof raw !== "object" || raw === null) return source;
  const info = raw as Record<string, unknown>;
  const net = strings(info["net"]);
  if (info["kind"] !== "compiled" || net === undefined) return source;
  const build: BuildInfo = { kind: "compiled", net };
  if (typeof info["visionHost"] === "string") build.visionHost = info["visionHost"];
  if (typeof info["shotsDir"] === "string") build.shotsDir = info["shotsDir"];
  if (typeof info["journalDir"] === "string") build.journalDir = info["journalDir"];
  return build;
}

/** This process's build. */
export const BUILD: BuildInfo = readBuildInfo(BUILD_INFO, denoJson.permissions.default.net);
