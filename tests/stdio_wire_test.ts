import assert from "node:assert/strict";
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import {
  type ByteSink,
  type ByteSource,
  judgeLine,
  LineFramer,
  StdioWire,
} from "../lib/stdio_wire.ts";
import { waitFor } from "./helpers/wait_for.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** A stream as the wire's input, read as Deno.stdin is: into the caller's buffer, a part at a time. */
function sourceOf(stream: ReadableStream<Uint8Array>): ByteSource {
  const reader = stream.getReader();
  let rest: Uint8Array = new Uint8Array(0);
  return {
    async read(into) {
      if (rest.length === 0) {
        const { done, value } = await reader.read();
        if (done) return null;
        rest = value;
      }
      const n = Math.min(into.length, rest.length);
      into.set(rest.subarray(0, n));
      rest = rest.subarray(n);
      return n;
    },
    close: () => void reader.cancel().catch(() => {}),
  };
}

/** A stream as the wire's output, written as Deno.stdout is: at most `most` bytes a write. */
function sinkOf(stream: WritableStream<Uint8Array>, most = 7): ByteSink {
  const writer = stream.getWriter();
  return {
    async write(bytes) {
      const part = bytes.slice(0, most);
      await writer.write(part);
      return part.length;
    },
  };
}

function frames(framer: LineFramer, ...chunks: string[]): string[] {
  return chunks.flatMap((c) => framer.push(enc.encode(c))).map((f) =>
    f.kind === "line" ? dec.decode(f.bytes) : `<overflow ${f.maxBytes}>`
  );
}

Deno.test({
  name: "the framer splits lines across chunks and keeps no more than the cap of one line",
  permissions: "none",
  fn() {
    const framer = new LineFramer(8);
    assert.deepEqual(frames(framer, "ab", "c\nde", "\n\nxyz"), ["abc", "de", ""]);
    assert.deepEqual(framer.end().map((f) => f.kind === "line" && dec.decode(f.bytes)), ["xyz"]);
    // Exactly the cap passes; one byte more is reported once, and the rest of that line skipped.
    assert.deepEqual(frames(framer, "12345678\n"), ["12345678"]);
    assert.deepEqual(frames(framer, "12345", "6789", "abcdef", "ghi\nok\n"), [
      "<overflow 8>",
      "ok",
    ]);
    assert.deepEqual(frames(framer, "x".repeat(20)), ["<overflow 8>"]);
    assert.deepEqual(framer.end(), [], "an overflowing last line yields nothing more");
  },
});

Deno.test({
  name: "a line is a message, a blank, or the JSON-RPC error that names what is wrong",
  permissions: "none",
  fn() {
    const cases: Array<[string, "message" | "blank" | [number, string | number | null, RegExp]]> = [
      ['{"jsonrpc":"2.0","id":1,"method":"ping"}', "message"],
      ['{"jsonrpc":"2.0","method":"notifications/anything"}', "message"],
      ['{"jsonrpc":"2.0","id":"a","result":{}}', "message"],
      ["   \r", "blank"],
      ['{"jsonrpc":"2.0","id":1,"meth', [-32700, null, /not valid JSON/]],
      ["\x00\x01garbage", [-32700, null, /not valid JSON/]],
      ['[{"jsonrpc":"2.0","id":1,"method":"ping"}]', [-32600, null, /batches/]],
      ["42", [-32600, null, /is a JSON object/]],
      ['{"jsonrpc":"1.0","id":7,"method":"ping"}', [-32600, 7, /"jsonrpc" member must be/]],
      ['{"jsonrpc":"2.0","id":1.5,"method":"ping"}', [-32600, null, /"id" member must be/]],
      ['{"jsonrpc":"2.0","id":null,"method":"ping"}', [-32600, null, /"id" member must be/]],
      ['{"jsonrpc":"2.0","id":"q","method":5}', [-32600, "q", /"method" member must be/]],
      ['{"jsonrpc":"2.0","id":3,"method":"ping","params":[]}', [-32600, 3, /"params"/]],
      ['{"jsonrpc":"2.0","result":{}}', [-32600, null, /a response needs/]],
      ['{"foo":1,"jsonrpc":"2.0"}', [-32600, null, /no "method"/]],
    ];
    for (const [line, want] of cases) {
      const verdict = judgeLine(line);
      if (typeof want === "string") {
        assert.equal(verdict.kind, want, line);
        continue;
      }
      assert.equal(verdict.kind, "answer", line);
      if (verdict.kind !== "answer") continue;
      const [code, id, words] = want;
      assert.equal(verdict.error.error.code, code, line);
      assert.equal(verdict.error.id, id, line);
      assert.match(verdict.error.error.message, words, line);
    }
  },
});

Deno.test({
  name: "the wire delivers messages, answers broken lines in order, and closes when input ends",
  permissions: "none",
  async fn() {
    const input = new TransformStream<Uint8Array, Uint8Array>();
    const output = new TransformStream<Uint8Array, Uint8Array>();
    const wire = new StdioWire(sourceOf(input.readable), sinkOf(output.writable), {
      maxLineBytes: 64,
    });
    const delivered: JSONRPCMessage[] = [];
    let closed = false;
    wire.onmessage = (m) => delivered.push(m);
    wire.onclose = () => closed = true;
    await wire.start();

    const reader = output.readable.pipeThrough(new TextDecoderStream()).getReader();
    const written = (async () => {
      let text = "";
      while (text.split("\n").length < 3) text += (await reader.read()).value ?? "";
      await reader.cancel();
      return text;
    })();
    const writer = input.writable.getWriter();
    await writer.write(enc.encode(`{"jsonrpc":"2.0","id":1,"method":"ping"}\nnope\n`));
    await writer.write(enc.encode(`${"x".repeat(100)}\n{"jsonrpc":"2.0","method":"n"}`));
    await writer.close();
    await waitFor(() => closed, "the wire to close when its input ends");

    assert.deepEqual(delivered, [
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", method: "n" },
    ]);
    const lines = (await written).trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((l) => [l.id, l.error?.code]), [[null, -32700], [null, -32600]]);
    assert.match(lines[1].error.message, /longer than 64 bytes was discarded/);
    await assert.rejects(wire.send({ jsonrpc: "2.0", id: 2, result: {} }), /closed/);
  },
});

Deno.test({
  name: "afterSend runs once each message is written whole; a throwing hook costs no send",
  permissions: "none",
  async fn() {
    const written: string[] = [];
    const seen: Array<[JSONRPCMessage, string]> = [];
    const errors: string[] = [];
    let fail = false;
    const wire = new StdioWire({ read: () => new Promise<null>(() => {}) }, {
      write(bytes) {
        if (fail) return Promise.reject(new Error("EPIPE"));
        const part = bytes.slice(0, 5); // written a part at a time, as a pipe may
        written.push(dec.decode(part));
        return Promise.resolve(part.length);
      },
    }, {
      afterSend(message) {
        seen.push([message, written.join("")]);
        if ("id" in message && message.id === 2) throw new Error("hook failed");
      },
    });
    wire.onerror = (error) => errors.push(error.message);
    const first = { jsonrpc: "2.0" as const, id: 1, result: {} };
    await wire.send(first);
    assert.deepEqual(seen, [[first, `${JSON.stringify(first)}\n`]], "after the whole line");
    await wire.send({ jsonrpc: "2.0", id: 2, result: {} });
    assert.deepEqual(errors, ["hook failed"]);
    fail = true;
    await assert.rejects(wire.send({ jsonrpc: "2.0", id: 3, result: {} }), /EPIPE/);
    assert.equal(seen.length, 2, "no hook for a message that was not written");
  },
});
