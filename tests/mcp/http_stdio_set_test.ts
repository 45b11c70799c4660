// The stdio permission set never serves the network: `deno task start --http …`, as a new user runs
// it with the token exported, is refused before anything binds, in words that say why (the set
// cannot read the token) and what can serve (the phone-eye-http binary, deno task serve-http).

import assert from "node:assert/strict";
import denoJson from "../../deno.json" with { type: "json" };
import { runtimeFlags } from "../../scripts/runtime_flags.ts";
import { denoEnv } from "../helpers/phone_eye.ts";

const ROOT = new URL("../..", import.meta.url).pathname;
const TOKEN = "5d0b9e83c7a14f26b8e05c3d91a7f4e2";

/** main.ts under deno.json's start task: its -P (the default set) and its runtime flags. */
async function startTask(args: string[]): Promise<{ code: number; stderr: string }> {
  assert.match(denoJson.tasks.start, /^deno run -q -P --no-prompt /);
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "-P", "--no-prompt", ...runtimeFlags(denoJson), "main.ts", ...args],
    cwd: ROOT,
    env: { ...await denoEnv(), NO_COLOR: "1", PHONE_EYE_HTTP_TOKEN: TOKEN },
    clearEnv: true,
    stdin: "null",
    stdout: "null",
  }).output();
  return { code, stderr: new TextDecoder().decode(stderr) };
}

Deno.test("deno task start --http with the token exported says the stdio set cannot read it, and names what can serve", async () => {
  for (const address of ["192.168.1.20:8765", "127.0.0.1:0"]) {
    const { code, stderr } = await startTask(["--http", address]);
    assert.equal(code, 2, stderr);
    assert.match(stderr, /^phone-eye: --http needs the "http" permission set/);
    assert.match(stderr, /may not read PHONE_EYE_HTTP_TOKEN or PHONE_EYE_HTTP_ORIGINS/);
    assert.ok(stderr.includes(`phone-eye-http --http ${address}`), stderr);
    assert.ok(stderr.includes(`deno task serve-http --http ${address}`), stderr);
    assert.doesNotMatch(stderr, /Set PHONE_EYE_HTTP_TOKEN/);
    assert.ok(!stderr.includes(TOKEN.slice(0, 8)), "the token is never printed");
  }
});
