// Loopback ports for servers a test stops and starts again on the same port (an adb server, an
// MCP vision server that "restarts"). A port the kernel hands out for `port: 0` comes from the
// ephemeral range, the same range it draws the source port of every outgoing connection from: in
// a suite that opens hundreds of connections (adb, MCP clients), one of them can take the port
// while the server is down, and the restart fails with AddrInUse. A port below that range is
// never anyone's source port, so only another listener could take it.

const LINUX_EPHEMERAL = "/proc/sys/net/ipv4/ip_local_port_range";
const DEFAULT_EPHEMERAL_LOW = 32768;
const LOWEST = 10000;

function ephemeralLow(): number {
  try {
    const low = Number(Deno.readTextFileSync(LINUX_EPHEMERAL).trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > LOWEST + 1000 ? low : DEFAULT_EPHEMERAL_LOW;
  } catch {
    return DEFAULT_EPHEMERAL_LOW;
  }
}

/** A loopback port that is free now and outside the kernel's ephemeral range. */
export function stablePort(): number {
  const low = ephemeralLow();
  for (let tries = 0; tries < 200; tries++) {
    const port = LOWEST + Math.floor(Math.random() * (low - LOWEST));
    try {
      Deno.listen({ hostname: "127.0.0.1", port }).close();
      return port;
    } catch (e) {
      if (!(e instanceof Deno.errors.AddrInUse)) throw e;
    }
  }
  throw new Error(`no free loopback port between ${LOWEST} and ${low}`);
}
