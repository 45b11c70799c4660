// Tier 3: main.ts under the production permission set starts a real adb server itself, and that
// long-lived daemon's environment (/proc/<pid>/environ) holds adb's settings and no vision key.

import assert from "node:assert/strict";
import { startPhoneEye } from "../helpers/phone_eye.ts";

const decoder = new TextDecoder();

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

async function portOpen(port: number): Promise<boolean> {
  try {
    (await Deno.connect({ hostname: "127.0.0.1", port })).close();
    return true;
  } catch {
    return false;
  }
}

/** Runs a program to its end (stdin closed) and returns its status and stdout as text. */
async function run(
  program: string,
  args: string[],
  env?: Record<string, string>,
): Promise<{ code: number; stdout: string }> {
  const out = await new Deno.Command(program, {
    args,
    stdin: "null",
    stderr: "null",
    ...(env ? { env, clearEnv: true } : {}),
  }).output();
  return { code: out.code, stdout: decoder.decode(out.stdout) };
}

/** Ends the adb server on `port`; kill-server returns once asked, the daemon ends just after. */
async function killServer(env: Record<string, string>, port: number): Promise<void> {
  await run("adb", ["kill-server"], env);
  const deadline = Date.now() + 5_000;
  while (await portOpen(port)) {
    if (Date.now() > deadline) throw new Error(`adb server on port ${port} still answers`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

Deno.test("the adb server phone-eye starts holds adb's settings and no vision key", async () => {
  const home = await Deno.makeTempDir({ prefix: "phone_eye_adb_env_" });
  const port = freePort();
  // Matches no generic key pattern: only an exact look for it can find it.
  const key = `pe-e2e-${crypto.randomUUID()}`;
  const adbEnv = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: home,
    TMPDIR: home,
    ANDROID_ADB_SERVER_PORT: String(port),
    // No emulator scan and no mDNS: this server sees no phone, as the test wants.
    ADB_EMU: "0",
    ADB_MDNS: "0",
  };
  const eye = await startPhoneEye({
    env: {
      ...adbEnv,
      PHONE_EYE_VISION_API_KEY: key,
      PHONE_EYE_VISION_BASE_URL: "http://127.0.0.1:9/v1",
    },
  });
  try {
    // No server listens on this port yet: phone-eye's adb starts one (fork-server), which keeps the
    // environment that adb call had for as long as it runs.
    assert.equal(await portOpen(port), false);
    const result = await eye.client.callTool({
      name: "phone_key",
      arguments: { key: "home", settle: false },
    });
    assert.equal(result.isError, true); // no phone on this server
    const found = await run("pgrep", ["-f", `adb -L tcp:${port} fork-server`]);
    const pid = found.stdout.trim().split("\n")[0];
    assert.ok(found.code === 0 && pid, "phone-eye's adb call started no adb server on its port");
    // Through cat: Deno lets only --allow-all read /proc.
    const environ = (await run("cat", [`/proc/${pid}/environ`])).stdout.split("\0").filter(Boolean);
    assert.ok(environ.length > 0, "the server's environment could not be read");
    assert.equal(
      environ.some((entry) => entry.includes(key)),
      false,
      "the vision key is in adb's environment",
    );
    assert.deepEqual(environ.filter((entry) => /^(PHONE_EYE_|DENO_|NO_COLOR=)/.test(entry)), []);
    for (const [name, value] of Object.entries(adbEnv)) {
      assert.ok(environ.includes(`${name}=${value}`), `adb did not get ${name}`);
    }
  } finally {
    await eye.close();
    await killServer(adbEnv, port);
    await Deno.remove(home, { recursive: true });
  }
});
