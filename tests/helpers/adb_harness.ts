// An isolated real adb server for tests: its own server port, temp HOME and TMPDIR, stdin null,
// and a close() that really ends the daemonized server.
//
//   const adb = await startAdbHarness();
//   await adb.connect(sim.serial);
//   const r = await adb.adb("-s", sim.serial, "shell", "echo hi");
//   await adb.close();
//
// Pass `adb.env` to any other process that must talk to this server (e.g. phone-eye's main.ts).

import { stablePort } from "./ports.ts";

export interface AdbRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface AdbHarness {
  /** ANDROID_ADB_SERVER_PORT, HOME, TMPDIR (adb's log goes there), PATH, ADB_EMU=0, ADB_MDNS=0. */
  readonly env: Record<string, string>;
  readonly port: number;
  /** Runs `adb ...args` against this server, stdin null, output decoded as UTF-8. */
  adb(...args: string[]): Promise<AdbRun>;
  /** Same, with stdout as bytes (exec-out of binary data). */
  adbBytes(...args: string[]): Promise<{ code: number; stdout: Uint8Array; stderr: string }>;
  /** `adb connect`, then waits until `adb devices` lists the serial as "device". */
  connect(serial: string, timeoutMs?: number): Promise<void>;
  /** The serial's state in `adb devices` ("device", "offline", ...), or null when not listed. */
  state(serial: string): Promise<string | null>;
  /** Polls until the serial's state is `want` (null = gone); on timeout, throws with the last
   * state seen. */
  waitForState(serial: string, want: string | null, timeoutMs?: number): Promise<void>;
  /** `adb kill-server`, waits until the port is closed, removes the temp HOME. */
  close(): Promise<void>;
}

async function portOpen(port: number): Promise<boolean> {
  try {
    const c = await Deno.connect({ hostname: "127.0.0.1", port });
    c.close();
    return true;
  } catch {
    return false;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface AdbHarnessOptions {
  /**
   * The adb client to run, as an absolute path (e.g. a private adb 34 from
   * tests/helpers/adb_clients.ts); its folder goes first on `env.PATH`, so processes given `env`
   * (phone-eye) run it too. Default: the `adb` on PATH.
   */
  binary?: string;
}

interface AdbKey {
  private: Uint8Array;
  public: Uint8Array;
}

let processKey: Promise<AdbKey> | undefined;

/**
 * One adb key pair for every server this process starts: a server without one makes an RSA key
 * first (about 60 ms of CPU, once per test server otherwise). Made by `adb keygen` in a folder of
 * its own, read, and the folder removed: each server's HOME gets its own copy.
 */
function adbKey(binary: string): Promise<AdbKey> {
  processKey ??= (async () => {
    const dir = await Deno.makeTempDir({ prefix: "phone_eye_adbkey_" });
    try {
      const made = await new Deno.Command(binary, {
        args: ["keygen", `${dir}/adbkey`],
        env: { HOME: dir, TMPDIR: dir, PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
        clearEnv: true,
        stdin: "null",
        stdout: "null",
        stderr: "piped",
      }).output();
      if (made.code !== 0) {
        throw new Error(`adb keygen failed: ${new TextDecoder().decode(made.stderr).trim()}`);
      }
      return {
        private: await Deno.readFile(`${dir}/adbkey`),
        public: await Deno.readFile(`${dir}/adbkey.pub`),
      };
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  })();
  return processKey;
}

export async function startAdbHarness(options: AdbHarnessOptions = {}): Promise<AdbHarness> {
  const binary = options.binary ?? "adb";
  const path = Deno.env.get("PATH") ?? "/usr/bin:/bin";
  const key = await adbKey(binary);
  const home = await Deno.makeTempDir({ prefix: "phone_eye_adb_" });
  await Deno.mkdir(`${home}/.android`);
  await Deno.writeFile(`${home}/.android/adbkey`, key.private, { mode: 0o600 });
  await Deno.writeFile(`${home}/.android/adbkey.pub`, key.public);
  const port = stablePort();
  const env: Record<string, string> = {
    ANDROID_ADB_SERVER_PORT: String(port),
    HOME: home,
    TMPDIR: home,
    PATH: binary.includes("/") ? `${binary.slice(0, binary.lastIndexOf("/"))}:${path}` : path,
    // No emulator port scan (a sim on 5555-5585 would join every adb server as emulator-55xx)
    // and no mDNS discovery of LAN phones: this server sees only what the test connects.
    ADB_EMU: "0",
    ADB_MDNS: "0",
  };
  const decoder = new TextDecoder();

  const adbBytes = async (...args: string[]) => {
    const out = await new Deno.Command(binary, {
      args,
      env,
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    return { code: out.code, stdout: out.stdout, stderr: decoder.decode(out.stderr) };
  };
  const adb = async (...args: string[]): Promise<AdbRun> => {
    const r = await adbBytes(...args);
    return { code: r.code, stdout: decoder.decode(r.stdout), stderr: r.stderr };
  };

  const state = async (serial: string): Promise<string | null> => {
    const r = await adb("devices");
    for (const line of r.stdout.split("\n")) {
      const [s, st] = line.trim().split(/\s+/);
      if (s === serial) return st ?? null;
    }
    return null;
  };

  const waitForState = async (serial: string, want: string | null, timeoutMs = 5000) => {
    const deadline = Date.now() + timeoutMs;
    let last: string | null = null;
    for (;;) {
      last = await state(serial);
      if (last === want) return;
      if (Date.now() > deadline) {
        throw new Error(
          `adb never showed ${serial} as ${want ?? "gone"} within ${timeoutMs} ms; last state: ${
            last ?? "not listed"
          }`,
        );
      }
      await sleep(50);
    }
  };

  const connect = async (serial: string, timeoutMs = 5000) => {
    // `adb connect` exits 0 even when it fails: its output is the only verdict.
    const r = await adb("connect", serial);
    const said = (r.stdout + r.stderr).trim();
    if (!/^(connected to|already connected to)/m.test(said)) {
      throw new Error(`adb connect ${serial} failed: ${said}`);
    }
    await waitForState(serial, "device", timeoutMs);
  };

  const close = async () => {
    await adb("kill-server");
    // kill-server returns once the request is sent; the daemon exits just after.
    const deadline = Date.now() + 3000;
    while (await portOpen(port)) {
      if (Date.now() > deadline) {
        throw new Error(`adb server on port ${port} still answers after kill-server`);
      }
      await sleep(20);
    }
    await Deno.remove(home, { recursive: true }).catch(() => {});
  };

  try {
    const started = await adb("start-server");
    if (started.code !== 0) {
      throw new Error(`adb start-server on port ${port} failed: ${started.stderr.trim()}`);
    }
  } catch (e) {
    await Deno.remove(home, { recursive: true }).catch(() => {});
    throw e;
  }
  return { env, port, adb, adbBytes, connect, state, waitForState, close };
}
