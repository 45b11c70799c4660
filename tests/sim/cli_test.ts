// `deno task sim` (sim/main.ts) as a user meets it: a fixed or chosen port, and client
// configuration that works as pasted, checked by starting phone-eye from it through the SDK
// client, from another folder, with no `adb connect` first.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/client";
import { startAdbHarness } from "../helpers/adb_harness.ts";
import { DenoStdioClientTransport } from "../helpers/deno_stdio_transport.ts";
import { denoDir } from "../helpers/phone_eye.ts";
import { stablePort } from "../helpers/ports.ts";
import { tempDir } from "../helpers/rig.ts";
import { claudeMcpAdd, serverCommand, shellWord } from "../../sim/client_config.ts";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

function simProcess(...args: string[]): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-P=sim", "--no-prompt", "sim/main.ts", ...args],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Reads the sim's stdout up to its "Ctrl-C" line; the reader is returned to drain later. */
async function banner(child: Deno.ChildProcess) {
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("Ctrl-C")) {
    const { value, done } = await lines.read();
    if (done) break;
    text += value;
  }
  return { text, lines };
}

async function stop(child: Deno.ChildProcess, lines: ReadableStreamDefaultReader<string>) {
  child.kill("SIGINT");
  while (!(await lines.read()).done) { /* drain */ }
  await child.stderr.cancel();
  return (await child.status).code;
}

Deno.test("deno task sim prints client config that works as pasted, from any folder, with no adb connect", async () => {
  const port = stablePort();
  const child = simProcess("--port", String(port));
  const { text, lines } = await banner(child);
  await using elsewhere = await tempDir("phone_eye_client_cwd_");
  const adb = await startAdbHarness();
  try {
    const serial = `127.0.0.1:${port}`;
    assert.match(text, new RegExp(`listening on ${serial.replaceAll(".", "\\.")} `));
    assert.doesNotMatch(text, /adb connect|deno task start/);
    const json = /\n(\{\n[\s\S]*?\n\})\n/.exec(text)?.[1];
    assert.ok(json, `no JSON in: ${text}`);
    const server = JSON.parse(json).mcpServers["phone-eye"];

    // The start task's own words, main.ts made absolute: read from deno.json, not copied.
    const start: string = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`)).tasks.start;
    const [deno, ...startArgs] = start.split(" ");
    assert.equal(deno, "deno");
    assert.deepEqual(server, {
      command: Deno.execPath(),
      args: startArgs.map((a) => a === "main.ts" ? `${ROOT}/main.ts` : a),
      env: { ANDROID_SERIAL: serial },
    });
    assert.ok(text.includes(`\n  ${claudeMcpAdd(server)}\n`), text);

    // What a client does with it: spawn it (another working folder) and call a tool.
    const transport = new DenoStdioClientTransport({
      command: server.command,
      args: server.args,
      env: {
        ...adb.env,
        DENO_DIR: await denoDir(),
        NO_COLOR: "1",
        ...server.env,
      },
      cwd: elsewhere.path,
    });
    const client = new Client({ name: "pasted-config", version: "0" });
    await client.connect(transport);
    try {
      const look = await client.callTool({ name: "phone_look", arguments: {} });
      assert.equal(look.isError, undefined, JSON.stringify(look));
      const words = JSON.stringify(look.content);
      for (const app of ["Notes", "Settings", "Gallery"]) assert.ok(words.includes(app), words);
    } finally {
      await client.close();
      await transport.close();
    }
  } finally {
    await adb.close();
    assert.equal(await stop(child, lines), 0);
  }
});

Deno.test("deno task sim on a port already in use says so and exits 1", async () => {
  const port = stablePort();
  using _taken = Deno.listen({ hostname: "127.0.0.1", port });
  const { code, stdout, stderr } = await simProcess("--port", String(port)).output();
  assert.equal(code, 1);
  assert.equal(new TextDecoder().decode(stdout), "");
  assert.match(
    new TextDecoder().decode(stderr),
    new RegExp(
      `Cannot start the simulated phone: port ${port} on 127\\.0\\.0\\.1 is in use .*--port 0 for any free port`,
    ),
  );
});

Deno.test("deno task sim refuses a port that is not a number, with its usage", async () => {
  const { code, stderr } = await simProcess("--port", "abc").output();
  assert.equal(code, 2);
  assert.match(
    new TextDecoder().decode(stderr),
    /--port must be a whole number, got "abc"\nusage:/,
  );
});

Deno.test({
  name: "client config: the start task's flags, quoted for sh only where a word needs it",
  permissions: "none",
  fn() {
    const c = serverCommand(
      { tasks: { start: "deno run -q -P --no-prompt --v8-flags=--a,--b=1 main.ts" } },
      {
        deno: "/opt/deno/deno",
        mainTs: "/home/me/my phone's eye/main.ts",
        serial: "127.0.0.1:15555",
      },
    );
    assert.deepEqual(c.args, [
      "run",
      "-q",
      "-P",
      "--no-prompt",
      "--v8-flags=--a,--b=1",
      "/home/me/my phone's eye/main.ts",
    ]);
    assert.equal(
      claudeMcpAdd(c),
      "claude mcp add phone-eye --env ANDROID_SERIAL=127.0.0.1:15555 -- /opt/deno/deno run -q -P " +
        `--no-prompt --v8-flags=--a,--b=1 '/home/me/my phone'\\''s eye/main.ts'`,
    );
    assert.equal(shellWord("$(touch x)"), "'$(touch x)'");
    assert.throws(
      () =>
        serverCommand({ tasks: { start: "deno run other.ts" } }, {
          deno: "deno",
          mainTs: "/m.ts",
          serial: "s",
        }),
      /"start" task must read "deno run <flags> main.ts"/,
    );
  },
});
