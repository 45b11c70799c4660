// phone-eye --http holding under attack, as users run it: main.ts under the "http" permission set
// on 127.0.0.1, the simulated phone behind a private adb server. More half-sent connections than
// the process has descriptors (in `deno task test:long`: it floods the machine), and SIGTERM while
// adb runs an action.

import assert from "node:assert/strict";
import { textOf } from "../helpers/in_process.ts";
import { startHttpEye } from "../helpers/http_eye.ts";
import { startRig } from "../helpers/rig.ts";

const TOKEN = "phone-eye-test-token-0123456789abcdef";
const LISTEN = ["--http", "127.0.0.1:0"];

/** The pids of `pid`'s children named adb (pgrep: Deno reads /proc only with --allow-all). */
async function adbChildren(pid: number): Promise<number[]> {
  const { stdout } = await new Deno.Command("pgrep", {
    args: ["-P", String(pid), "adb"],
    stderr: "null",
  }).output();
  return new TextDecoder().decode(stdout).split("\n").filter((line) => line !== "").map(Number);
}

/** Whether a process is still there and not a zombie (ps prints nothing for one that is gone). */
async function running(pid: number): Promise<boolean> {
  const { stdout } = await new Deno.Command("ps", {
    args: ["-o", "stat=", "-p", String(pid)],
    stderr: "null",
  }).output();
  const stat = new TextDecoder().decode(stdout).trim();
  return stat !== "" && !stat.startsWith("Z");
}

Deno.test({
  name:
    "under a 256-descriptor limit, 400 half-sent connections neither end the server nor keep its owner from being served",
  ignore: Deno.env.get("PHONE_EYE_LONG") !== "1",
}, async () => {
  await using rig = await startRig({ phoneEye: false });
  await using eye = await startHttpEye({
    env: { ...rig.env, PHONE_EYE_HTTP_TOKEN: TOKEN },
    args: LISTEN,
    maxOpenFiles: 256,
  });
  const owner = await eye.connect({ token: TOKEN });
  const { hostname, port } = new URL(eye.url);
  const half = new TextEncoder().encode(`POST /mcp HTTP/1.1\r\nHost: ${hostname}:${port}\r\n`);
  const attackers: Deno.Conn[] = [];
  try {
    for (let i = 0; i < 400; i++) {
      const conn = await Deno.connect({ hostname, port: Number(port) });
      attackers.push(conn);
      await conn.write(half).catch(() => {}); // a connection the server already closed
    }
    // The owner's client, already connected, and a new one, which needs a connection of its own.
    const tap = await owner.callTool({
      name: "phone_tap",
      arguments: { x: 10, y: 20, settle: false },
    });
    assert.notEqual(tap.isError, true, textOf(tap));
    const newcomer = await eye.connect({ token: TOKEN });
    const shot = await newcomer.callTool({ name: "phone_shot", arguments: {} });
    assert.notEqual(shot.isError, true, textOf(shot));
    assert.deepEqual(rig.sim.toolCalls("input").at(-1), ["tap", "10", "20"]);
  } finally {
    for (const conn of attackers) {
      try {
        conn.close();
      } catch {
        // Closed by the server.
      }
    }
  }
  // Still serving after the flood, and it never said it stopped.
  const after = await (await eye.connect({ token: TOKEN })).callTool({
    name: "phone_tap",
    arguments: { x: 11, y: 21, settle: false },
  });
  assert.notEqual(after.isError, true, textOf(after));
  assert.doesNotMatch(eye.stderr(), /exited|panicked|Uncaught/);
  assert.ok(!eye.stderr().includes(TOKEN.slice(0, 16)));
});

Deno.test("SIGTERM on --http ends the adb children it was running, then the process exits", async () => {
  await using rig = await startRig({ phoneEye: false });
  await using eye = await startHttpEye({
    env: { ...rig.env, PHONE_EYE_HTTP_TOKEN: TOKEN },
    args: LISTEN,
  });
  const client = await eye.connect({ token: TOKEN });
  // An action is let finish when its call is cancelled (killing adb would not take the tap back),
  // so only the server's own ending can stop this one.
  rig.sim.faults.hang(/input tap/);
  const tap = client.callTool({ name: "phone_tap", arguments: { x: 5, y: 5, settle: false } })
    .catch(() => undefined);
  let children: number[] = [];
  while (children.length === 0) children = await adbChildren(eye.pid);
  await eye.close(); // SIGTERM, then waits for the exit
  await tap;
  for (const pid of children) assert.equal(await running(pid), false, `adb ${pid} still runs`);
});
