// Start-up narrowing of the baked net grants to the one vision host the configuration uses.
// Pure planning (which grants to revoke, and how to name them to Deno); narrow_net.ts carries it out.

import type { VisionConfig } from "../config/config.ts";

/** The host a vision route connects to (lower-cased, IPv6 in brackets), or undefined for none. */
export function visionHost(vision: VisionConfig): string | undefined {
  if (vision.route === "none") return undefined;
  return new URL(vision.route === "direct" ? vision.baseUrl : vision.url).hostname.toLowerCase();
}

/** The port a vision route connects to (the URL's, or 80/443 by its scheme); undefined for none. */
export function visionPort(vision: VisionConfig): number | undefined {
  if (vision.route === "none") return undefined;
  const url = new URL(vision.route === "direct" ? vision.baseUrl : vision.url);
  return url.port !== "" ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
}

function ipv4(text: string): number | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return undefined;
    value = value * 256 + Number(part);
  }
  return value;
}

/**
 * Whether a net grant entry (host, host:port, IPv4 CIDR) lets phone-eye reach `host`, on `port`
 * when one is given: an entry with a port covers that port only, one without covers them all.
 */
export function grantCovers(entry: string, host: string, port?: number): boolean {
  const entryPort = /^(?:\[[^\]]*\]|[^:\[\]]+):(\d+)$/.exec(entry)?.[1];
  if (port !== undefined && entryPort !== undefined && Number(entryPort) !== port) return false;
  const cidr = /^(\d+\.\d+\.\d+\.\d+)\/(\d{1,2})$/.exec(entry);
  if (cidr) {
    const base = ipv4(cidr[1]!);
    const ip = ipv4(host);
    const bits = Number(cidr[2]);
    if (base === undefined || ip === undefined || bits > 32) return false;
    const size = 2 ** (32 - bits);
    return Math.floor(ip / size) === Math.floor(base / size);
  }
  if (entry.startsWith("*.")) return host.endsWith(entry.slice(1));
  const bare = entry.startsWith("[")
    ? entry.slice(0, entry.indexOf("]") + 1)
    : entry.split(":")[0]!;
  return bare.toLowerCase() === host;
}

/**
 * A host descriptor whose revocation removes `entry`. Deno revokes every grant that covers the
 * descriptor, and a CIDR string itself matches no grant, so a CIDR is revoked through an address
 * inside it (its first host).
 */
function revocationTarget(entry: string): string {
  const cidr = /^(\d+\.\d+\.\d+\.\d+)\/(\d{1,2})$/.exec(entry);
  if (!cidr) return entry;
  const base = ipv4(cidr[1]!)!;
  const bits = Number(cidr[2]);
  const first = bits >= 31 ? base : base + 1;
  return [24, 16, 8, 0].map((shift) => (Math.floor(first / 2 ** shift) % 256)).join(".");
}

/**
 * The address to ask Deno about when checking a net grant entry. For a CIDR range it is the
 * range's last host, not the first one revocation names, so a check that the range is gone does
 * not merely re-ask about the one address that was revoked.
 */
export function queryTarget(entry: string): string {
  const cidr = /^(\d+\.\d+\.\d+\.\d+)\/(\d{1,2})$/.exec(entry);
  const base = cidr ? ipv4(cidr[1]!) : undefined;
  const bits = Number(cidr?.[2]);
  if (base === undefined || bits > 32) return entry;
  const size = 2 ** (32 - bits);
  const last = Math.floor(base / size) * size + size - (bits >= 31 ? 1 : 2);
  return [24, 16, 8, 0].map((shift) => (Math.floor(last / 2 ** shift) % 256)).join(".");
}

export interface NetPlan {
  /** Baked entries the configured host needs. */
  keep: string[];
  /** Host descriptors to pass to Deno.permissions.revoke, one per unused baked entry. */
  revoke: string[];
  /** The configured host is not in the baked list: this build cannot reach it. */
  unreachable: boolean;
}

/**
 * Which baked net grants stay. Only the grant(s) covering the configured vision host survive, so
 * the running process can reach nothing else; with no vision route, none survive. A CIDR range
 * that covers the host stays whole: Deno cannot narrow inside a range.
 */
export function planNetNarrowing(
  baked: readonly string[],
  host: string | undefined,
  port?: number,
): NetPlan {
  const keep = host === undefined ? [] : baked.filter((entry) => grantCovers(entry, host, port));
  const revoke = baked.filter((entry) => !keep.includes(entry)).map(revocationTarget)
    // Revoking an address inside a kept range would take the range with it.
    .filter((target) => !keep.some((entry) => grantCovers(entry, target)));
  return { keep, revoke, unreachable: host !== undefined && keep.length === 0 };
}
