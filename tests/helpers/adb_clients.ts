// The adb clients the end-to-end matrix runs under: the `adb` on PATH (Debian's 29.0.6 in CI) and
// a current-platform-tools client (adb 34: "adb: " error prefixes, docs/android.md, the adb client).
//
// adb 34 is found, in order, at $PHONE_EYE_TEST_ADB34 (set by .ci/run, which builds it with
// shared/tools/adb-34.sh into a private folder), then at /tmp/adb34/bin/adb (that script's default
// DEST, for a local `DEST=/tmp/adb34 bash ../shared/tools/adb-34.sh`). A variable that names no
// working adb 34 fails the run: CI must not silently test one client where it meant two.

/** One adb client: its binary and the version it reports. */
export interface AdbClient {
  /** "adb 29.0.6-debian", from `adb version`: what test names show. */
  name: string;
  /** Absolute path, or "adb" for the one on PATH. */
  binary: string;
  major: number;
}

export const ADB34_VARIABLE = "PHONE_EYE_TEST_ADB34";
export const ADB34_DEFAULT = "/tmp/adb34/bin/adb";

/** `adb version`'s "Version X.Y.Z…", or null when the binary does not run. */
async function versionOf(binary: string): Promise<{ name: string; major: number } | null> {
  try {
    const { code, stdout } = await new Deno.Command(binary, {
      args: ["version"],
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
    const version = /^Version (\d+)\.\S+/m.exec(new TextDecoder().decode(stdout));
    if (code !== 0 || !version) return null;
    return { name: `adb ${version[0].slice("Version ".length)}`, major: Number(version[1]) };
  } catch {
    return null;
  }
}

/**
 * The clients to test with, and, when adb 34 is not there, why (for an ignored test that says so
 * in the output). Two clients of the same version count once.
 */
export async function adbClients(): Promise<{ clients: AdbClient[]; missing: string | null }> {
  const clients: AdbClient[] = [];
  const onPath = await versionOf("adb");
  if (onPath) clients.push({ ...onPath, binary: "adb" });

  const named = Deno.env.get(ADB34_VARIABLE);
  const binary = named || ADB34_DEFAULT;
  const current = await versionOf(binary);
  if (named && (current === null || current.major < 34)) {
    throw new Error(
      `${ADB34_VARIABLE}=${named} is not a working adb 34 or later (it reports ${
        current?.name ?? "nothing"
      }); build one with shared/tools/adb-34.sh or unset the variable`,
    );
  }
  if (current !== null && current.major >= 34) {
    if (!clients.some((c) => c.name === current.name)) clients.push({ ...current, binary });
    return { clients, missing: null };
  }
  return {
    clients,
    missing: clients.some((c) => c.major >= 34)
      ? null
      : `no adb 34 at $${ADB34_VARIABLE} or ${ADB34_DEFAULT}; build one with DEST=/tmp/adb34 bash ../shared/tools/adb-34.sh`,
  };
}

/**
 * Registers `fn` as one test per client, named "NAME (through adb X)", and hands it that client's
 * binary for startRig's `adbBinary`: how the end-to-end tests run under every client CI has.
 */
export function testThroughEach(
  clients: readonly AdbClient[],
  name: string,
  fn: (t: Deno.TestContext, adbBinary: string) => Promise<void>,
): void {
  for (const client of clients) {
    Deno.test(`${name} (through ${client.name})`, (t) => fn(t, client.binary));
  }
}

/**
 * The adb on PATH alone (Debian's 29 in CI), or the first client found when PATH has none: for
 * end-to-end tests whose outcome does not depend on the client. The two-client matrix runs only
 * where the client matters: its error strings and its reconnects.
 */
export function systemClient(clients: readonly AdbClient[]): AdbClient[] {
  return clients.slice(0, 1);
}
