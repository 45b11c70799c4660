// Which host names mean this machine: the one loopback rule, used where a key may travel in clear
// (lib/config/config.ts) and where a server may listen without a token (lib/mcp/http_settings.ts).

/**
 * Whether `hostname` (as a URL gives it: lower-case, IPv6 in brackets) names this machine:
 * localhost, any 127.x.y.z, [::1], or an IPv4-mapped 127.x address ([::ffff:7f00:1]). A name that
 * only starts like one (127.0.0.1.nip.io, localhost.evil.example) does not. URL has already
 * normalised the other spellings (2130706433 and 0x7f.1 become 127.x).
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === "localhost" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) ||
    host === "[::1]" || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(host);
}
