// main.ts at the end of its input: every request already read is answered on stdout before the
// process exits, and requests the wire refuses (invalid UTF-8, a reused id) never reach the phone.

import assert from "node:assert/strict";
import { type Reply, startRawPhoneEye } from "../helpers/raw_stdio.ts";
import { adbServerPerClient, startRig } from "../helpers/rig.ts";
import { startFlags } from "../helpers/phone_eye.ts";

/** One adb server for the file: each test connects its own phone, and phone-eye of its own. */
const adbServer = adbServerPerClient(["adb"]);
/** main.ts under the start task's runtime flags, as production runs it (and a cheaper start). */
const runtimeFlags = await startFlags();

const call = (id: string, name: string, args: Record<string, unknown>) =>
  `${
    JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, arguments: args },
    })
  }\n`;

function textOf(reply: Reply | undefined): string {
  const content = (reply?.result?.content ?? []) as Array<{ type: string; text?: string }>;
  return content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

Deno.test("an action whose request is the client's last line still runs and gets its answer", async () => {
  await using rig = await startRig({ phoneEye: false, adbServer: adbServer("adb") });
  const eye = await startRawPhoneEye({ env: rig.env, runtimeFlags });
  await eye.initialize();
  // Each command waits on the phone a moment, so both are surely in flight when stdin ends.
  rig.sim.faults.latency(200, "input");
  rig.sim.faults.latency(200, "am");
  await eye.write(
    call("tap", "phone_tap", { x: 7, y: 8, settle: false }) +
      call("intent", "phone_intent", { package: "com.android.settings", settle: false }),
  );
  const status = await eye.close(60_000);
  const replies = eye.drain();
  assert.equal(status.code, 0, eye.stderr().slice(-2000));
  assert.equal(status.signal, null, "it exited by itself, not by the test's SIGKILL");
  assert.equal(textOf(replies.find((r) => r.id === "tap")), "Tapped (7, 8).");
  assert.match(textOf(replies.find((r) => r.id === "intent")), /^Started/);
  assert.deepEqual(rig.sim.toolCalls("input"), [["tap", "7", "8"]]);
});

Deno.test("with 15 adb calls in flight at the end of input, all 15 are answered, then it exits", async () => {
  await using rig = await startRig({ phoneEye: false, adbServer: adbServer("adb") });
  const eye = await startRawPhoneEye({ env: rig.env, runtimeFlags });
  await eye.initialize();
  rig.sim.faults.latency(100, "input");
  const ids = Array.from({ length: 15 }, (_, n) => `tap-${n}`);
  await eye.write(
    ids.map((id, n) => call(id, "phone_tap", { x: n, y: n, settle: false })).join(""),
  );
  const status = await eye.close(60_000);
  const replies = eye.drain();
  assert.equal(status.code, 0, eye.stderr().slice(-2000));
  assert.equal(status.signal, null, "it exited by itself once the answers were out");
  assert.deepEqual(
    ids.map((id) => textOf(replies.find((r) => r.id === id))),
    ids.map((_, n) => `Tapped (${n}, ${n}).`),
  );
  assert.equal(rig.sim.toolCalls("input").length, 15);
});

Deno.test("a tap line with invalid UTF-8 or a reused id is refused and never reaches the phone", async () => {
  await using rig = await startRig({ phoneEye: false, adbServer: adbServer("adb") });
  const eye = await startRawPhoneEye({ env: rig.env, runtimeFlags });
  await eye.initialize();
  rig.sim.faults.latency(200, "input");
  const enc = new TextEncoder();
  const typed = call("type", "phone_type", { text: "ab\u0000" }).replace("\\u0000", "\u0000");
  const cut = typed.indexOf("\u0000");
  const bytes = enc.encode(typed);
  const at = enc.encode(typed.slice(0, cut)).length;
  bytes[at] = 0xff; // the one byte that is not UTF-8
  await eye.write(bytes);
  const refusedText = await eye.until((m) => m.id === "type");
  assert.equal(refusedText.error?.code, -32700);
  assert.match(refusedText.error?.message ?? "", new RegExp(`invalid UTF-8 at byte ${at} `));

  await eye.write(
    call("twice", "phone_tap", { x: 1, y: 1, settle: false }) +
      call("twice", "phone_tap", { x: 2, y: 2, settle: false }),
  );
  const first = await eye.until((m) => m.id === "twice");
  const second = await eye.until((m) => m.id === "twice");
  const [refused, answered] = first.error ? [first, second] : [second, first];
  assert.equal(refused.error?.code, -32600);
  assert.match(refused.error?.message ?? "", /request id "twice" is already in flight/);
  assert.equal(textOf(answered), "Tapped (1, 1).");
  const status = await eye.close(60_000);
  assert.equal(status.code, 0, eye.stderr().slice(-2000));
  assert.deepEqual(rig.sim.toolCalls("input"), [["tap", "1", "1"]], "no text typed, one tap");
});
