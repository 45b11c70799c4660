// The tests' stdio client transport against real `sh` children: framing, stderr, and a close()
// that waits for the exit (escalating to SIGTERM and SIGKILL) without leaving a timer behind.

import assert from "node:assert/strict";
import type { JSONRPCMessage } from "@modelcontextprotocol/client";
import {
  DenoStdioClientTransport,
  type DenoStdioServer,
  lineSplitter,
} from "../helpers/deno_stdio_transport.ts";

/** A transport running `script` under sh, recording what it reports. */
function shTransport(script: string, options: Partial<DenoStdioServer> = {}) {
  const transport = new DenoStdioClientTransport({
    command: "sh",
    args: ["-c", script],
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
    ...options,
  });
  const messages: JSONRPCMessage[] = [];
  const errors: Error[] = [];
  let closes = 0;
  const closed = Promise.withResolvers<void>();
  const arrivals: Array<() => void> = [];
  transport.onmessage = (message) => {
    messages.push(message);
    arrivals.shift()?.();
  };
  transport.onerror = (error) => errors.push(error);
  transport.onclose = () => {
    closes++;
    closed.resolve();
  };
  return {
    transport,
    messages,
    errors,
    closes: () => closes,
    /** Resolves when onclose has run. */
    closed: closed.promise,
    /** Resolves when the next message arrives. */
    nextMessage: () => new Promise<void>((resolve) => arrivals.push(resolve)),
  };
}

async function linesOf(chunks: string[], maxChars = 100): Promise<string[]> {
  return await Array.fromAsync(ReadableStream.from(chunks).pipeThrough(lineSplitter(maxChars)));
}

Deno.test({
  name: "lineSplitter joins lines cut across chunks and drops \\n and \\r\\n",
  permissions: "none",
  async fn() {
    assert.deepEqual(await linesOf(['{"a":', '1}\r\n{"b"', ":2}\n", "\n", "tail"]), [
      '{"a":1}',
      '{"b":2}',
      "",
      "tail",
    ]);
    assert.deepEqual(await linesOf(["one\ntwo\nthree\n"]), ["one", "two", "three"]);
  },
});

Deno.test({
  name: "lineSplitter refuses a line longer than its cap, in one chunk or many",
  permissions: "none",
  async fn() {
    await assert.rejects(linesOf(["x".repeat(11)], 10), /exceeded 10 characters/);
    await assert.rejects(linesOf(["xxxx", "xxxx", "xxxx\n"], 10), /exceeded 10 characters/);
    assert.deepEqual(await linesOf(["x".repeat(10) + "\r\n"], 10), ["x".repeat(10)]);
  },
});

Deno.test("a message goes out on stdin and comes back on stdout; stderr is kept; close() waits for the exit", async () => {
  const t = shTransport(
    `echo starting >&2; while IFS= read -r line; do printf '%s\\n' "$line"; done; echo bye >&2`,
  );
  await t.transport.start();
  const ping: JSONRPCMessage = { jsonrpc: "2.0", id: 1, method: "ping" };
  const arrived = t.nextMessage();
  await t.transport.send(ping);
  await arrived;
  assert.deepEqual(t.messages, [ping]);
  await t.transport.close();
  const status = await t.transport.status;
  assert.deepEqual([status.code, status.signal], [0, null], "it exited on its own at EOF");
  assert.equal(t.transport.stderrText(), "starting\nbye\n");
  assert.equal(t.closes(), 1);
  assert.deepEqual(t.errors, []);
  await assert.rejects(t.transport.send(ping), /Not connected/);
});

Deno.test("a line that is not JSON-RPC is reported and skipped; a child that exits closes the transport", async () => {
  const t = shTransport(
    `printf '{"jsonrpc":"2.0",'; printf '"method":"a"}\\r\\n\\nnot json\\n{"jsonrpc":"2.0","method":"b"}\\n'`,
  );
  await t.transport.start();
  await t.closed;
  assert.deepEqual(t.messages.map((m) => "method" in m && m.method), ["a", "b"]);
  assert.equal(t.errors.length, 1);
  assert.match(t.errors[0]!.message, /not a JSON-RPC message: not json/);
  await t.transport.close();
  assert.equal(t.closes(), 1, "onclose runs once");
});

Deno.test("a stdout line over the cap is an error and ends the child", async () => {
  const t = shTransport(`head -c 1000 /dev/zero | tr '\\0' x; exec cat >/dev/null`, {
    maxLineChars: 100,
  });
  await t.transport.start();
  await t.closed;
  assert.match(t.errors[0]?.message ?? "", /exceeded 100 characters/);
  assert.equal((await t.transport.status).code, 0, "cat exited when its stdin ended");
  await t.transport.close();
});

Deno.test("a child that ignores the end of stdin gets SIGTERM, one that ignores SIGTERM gets SIGKILL", async () => {
  for (
    const [script, signal] of [
      ["exec sleep 1000", "SIGTERM"],
      // An ignored signal stays ignored across exec (POSIX exec).
      [`trap '' TERM; exec sleep 1000`, "SIGKILL"],
    ] as const
  ) {
    const t = shTransport(script, { exitGraceMs: 100 });
    await t.transport.start();
    await t.transport.close();
    assert.equal((await t.transport.status).signal, signal, script);
    assert.equal(t.closes(), 1);
  }
});

Deno.test("a grandchild holding the pipes does not hold close() past the grace period", async () => {
  const t = shTransport(
    `sleep 1000 & echo "{\\"jsonrpc\\":\\"2.0\\",\\"method\\":\\"pid\\",\\"params\\":{\\"pid\\":$!}}"`,
    { exitGraceMs: 100 },
  );
  const arrived = t.nextMessage();
  await t.transport.start();
  await arrived;
  const message = t.messages[0];
  assert.ok(message && "params" in message, JSON.stringify(message));
  const pid = Number(message.params?.pid);
  try {
    await t.transport.close();
    assert.equal((await t.transport.status).code, 0);
    assert.equal(t.closes(), 1);
  } finally {
    Deno.kill(pid, "SIGKILL");
  }
});
