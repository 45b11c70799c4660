// Issue 17 item 2, end to end: a key is never sent over plain http:// to a host that is not this
// machine. main.ts runs in a network namespace where the only "LAN" host is a listener of the
// test's own (tests/fixtures/netns_vision_probe.ts): refused at start, the doctor fails, and the
// listener sees no connection, until PHONE_EYE_VISION_ALLOW_HTTP=1 lets the key through.

import assert from "node:assert/strict";
import { permissionFlags } from "../../scripts/permissions.ts";
import { canUnshare, sealed } from "../helpers/netns.ts";
import { denoDir, productionSet, startFlags } from "../helpers/phone_eye.ts";

const ROOT = new URL("../..", import.meta.url).pathname;
const KEY = `sk-proj-${"Zq7".repeat(20)}`;

interface Outcome {
  name: string;
  code: number;
  stdout: string;
  stderr: string;
  requests: Array<{ authorization: string | null; path: string }>;
}

Deno.test({
  name: "a key bound for a plain-http LAN host never leaves: refused at start and by the doctor",
  ignore: !canUnshare,
  async fn() {
    const env = {
      // No adb on PATH: the doctor's adb line fails, and no adb server starts in the namespace.
      PATH: "/nonexistent",
      DENO_DIR: await denoDir(),
      NO_COLOR: "1",
      HOME: await Deno.makeTempDir({ prefix: "phone-eye-netns-" }),
      PHONE_EYE_VISION_API_KEY: KEY,
      PHONE_EYE_VISION_BASE_URL: "http://192.168.77.7:8080/v1",
    };
    const command = [
      Deno.execPath(),
      "run",
      "--no-prompt",
      ...await startFlags(),
      ...permissionFlags(await productionSet()),
      `${ROOT}main.ts`,
    ];
    const spec = {
      command,
      env,
      cases: [
        { name: "serve", args: [], env: {} },
        { name: "doctor", args: ["--doctor"], env: {} },
        { name: "opted in", args: ["--doctor"], env: { PHONE_EYE_VISION_ALLOW_HTTP: "1" } },
      ],
    };
    try {
      const probe = sealed(Deno.execPath(), [
        "run",
        "--no-prompt",
        "--allow-net=192.168.77.7",
        "--allow-run",
        "--allow-read",
        "--allow-env",
        `${ROOT}tests/fixtures/netns_vision_probe.ts`,
        JSON.stringify(spec),
      ], ["192.168.77.7"]);
      const out = await new Deno.Command(probe.command, {
        args: probe.args,
        env: { PATH: Deno.env.get("PATH") ?? "/usr/sbin:/usr/bin:/bin", DENO_DIR: env.DENO_DIR },
        clearEnv: true,
        stdin: "null",
      }).output();
      const said = new TextDecoder().decode(out.stderr);
      assert.ok(out.success, said);
      const [serve, doctor, optedIn] = JSON.parse(
        new TextDecoder().decode(out.stdout),
      ) as Outcome[];

      // Serving: refused before anything starts, in words that say why and what to do.
      assert.equal(serve!.code, 2, serve!.stderr);
      assert.match(
        serve!.stderr,
        /^phone-eye: Refused: PHONE_EYE_VISION_BASE_URL is plain http:\/\/ to 192\.168\.77\.7:8080, which is not this machine, so PHONE_EYE_VISION_API_KEY would travel unencrypted/m,
      );
      assert.match(serve!.stderr, /https:\/\/.*PHONE_EYE_VISION_ALLOW_HTTP=1/);
      assert.deepEqual(serve!.requests, [], "no connection was made");

      // The doctor: a FAIL line with the same words, exit 1, and still nothing sent.
      assert.equal(doctor!.code, 1, doctor!.stdout);
      assert.match(
        doctor!.stdout,
        /\[FAIL\] vision settings invalid\n.*Refused: PHONE_EYE_VISION_BASE_URL is plain http:\/\//,
      );
      assert.deepEqual(doctor!.requests, [], "the doctor sent nothing either");

      // Opted in: the key does reach the listener (so the two refusals above were real), and the
      // doctor says where it went in clear.
      assert.match(
        optedIn!.stdout,
        /\[ok\] vision answers \(direct route, http:\/\/192\.168\.77\.7:8080\)/,
      );
      assert.match(
        optedIn!.stdout,
        /\[info\] vision credentials sent unencrypted to 192\.168\.77\.7:8080 \(PHONE_EYE_VISION_ALLOW_HTTP=1\)/,
      );
      assert.deepEqual(optedIn!.requests, [
        { authorization: `Bearer ${KEY}`, path: "/v1/chat/completions" },
      ]);
      for (const o of [serve!, doctor!, optedIn!]) {
        assert.ok(!`${o.stdout}${o.stderr}`.includes(KEY), `${o.name} printed the key`);
      }
    } finally {
      await Deno.remove(env.HOME, { recursive: true });
    }
  },
});
