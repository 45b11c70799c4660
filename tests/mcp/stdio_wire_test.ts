import assert from "node:assert/strict";
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import {
  firstInvalidUtf8,
  judgeLine,
  judgeLineBytes,
  LineFramer,
} from "../../lib/mcp/stdio_lines.ts";
import { type ByteSink, type ByteSource, StdioWire } from "../../lib/mcp/stdio_wire.ts";
import { FakeClock } from "../helpers/fake_clock.ts";
import { randomFrom } from "../helpers/prng.ts";
import { waitFor } from "../helpers/wait_for.ts";

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
      while (text.split("\n").length < 4) text += (await reader.read()).value ?? "";
      await reader.cancel();
      return text;
    })();
    const writer = input.writable.getWriter();
    await writer.write(enc.encode(`{"jsonrpc":"2.0","id":1,"method":"ping"}\nnope\n`));
    await writer.write(enc.encode(`${"x".repeat(100)}\n{"jsonrpc":"2.0","method":"n"}`));
    await writer.close();
    await waitFor(() => delivered.length === 2, "both messages to be delivered");
    // The ping is a request in flight: the wire closes once it is answered, not before.
    assert.equal(closed, false);
    await wire.send({ jsonrpc: "2.0", id: 1, result: {} });
    await waitFor(() => closed, "the wire to close when its input ends");

    assert.deepEqual(delivered, [
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", method: "n" },
    ]);
    const lines = (await written).trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((l) => [l.id, l.error?.code]), [
      [null, -32700],
      [null, -32600],
      [1, undefined],
    ]);
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

Deno.test({
  name: "firstInvalidUtf8 finds where a line stops being UTF-8, as the strict decoder sees it",
  permissions: "none",
  fn() {
    const cases: Array<[number[], number]> = [
      [[0x61, 0xc3, 0xa9], -1], // "aé"
      [[0xf0, 0x9f, 0x98, 0x80, 0x61], -1], // an emoji, then "a"
      [[0x61, 0xff, 0x62], 1],
      [[0x61, 0xc3, 0x28], 1], // a lead byte without its continuation
      [[0xc0, 0xaf], 0], // overlong "/"
      [[0xe0, 0x80, 0xaf], 0], // overlong, three bytes
      [[0x61, 0x62, 0xed, 0xa0, 0x80], 2], // a UTF-16 surrogate
      [[0xf4, 0x90, 0x80, 0x80], 0], // above U+10FFFF
      [[0x7b, 0xe2, 0x82], 1], // cut off at the end of the line
      [[0x80], 0], // a continuation byte alone
    ];
    for (const [bytes, at] of cases) {
      assert.equal(firstInvalidUtf8(new Uint8Array(bytes)), at, JSON.stringify(bytes));
    }
    // Agrees with the native decoder on random bytes biased towards the lead and continuation ranges.
    const rng = randomFrom(0x5eed);
    const strict = new TextDecoder("utf-8", { fatal: true });
    const palette = [0x41, 0x7f, 0x80, 0xbf, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0x9f];
    for (let n = 0; n < 5_000; n++) {
      const bytes = Uint8Array.from(
        { length: 1 + rng.int(8) },
        () => rng.chance(0.5) ? rng.pick(palette) : rng.int(256),
      );
      const at = firstInvalidUtf8(bytes);
      let valid = true;
      try {
        strict.decode(bytes);
      } catch {
        valid = false;
      }
      const seen = `seed ${rng.seed}, bytes ${[...bytes]}`;
      assert.equal(at === -1, valid, seen);
      if (at > 0) strict.decode(bytes.subarray(0, at)); // everything before it is UTF-8
    }
  },
});

Deno.test({
  name: "a request line with invalid UTF-8 is refused by byte, with its id when readable, not run",
  permissions: "none",
  fn() {
    const line = (text: string, bad: number[]) =>
      Uint8Array.from([...enc.encode(text), ...bad, ...enc.encode('"}}}')]);
    const typing =
      '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"phone_type","arguments":{"text":"ab';
    const cases: Array<[Uint8Array, string | number | null, number]> = [
      [line(typing, [0xff]), 5, enc.encode(typing).length],
      [line(typing, [0xc0, 0xaf]), 5, enc.encode(typing).length],
      [line(typing.replace('"id":5', '"id":"x"'), [0xed, 0xa0, 0x80]), "x", typing.length + 2],
      [Uint8Array.from([0x7b, 0xfe, 0x7d]), null, 1],
    ];
    for (const [bytes, id, at] of cases) {
      const verdict = judgeLineBytes(bytes);
      assert.equal(verdict.kind, "answer");
      if (verdict.kind !== "answer") continue;
      assert.equal(verdict.error.id, id);
      assert.equal(verdict.error.error.code, -32700);
      assert.match(verdict.error.error.message, new RegExp(`invalid UTF-8 at byte ${at} `));
      assert.match(verdict.error.error.message, /nothing in this line was run/);
    }
    const fine = judgeLineBytes(
      enc.encode('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"t":"é"}}'),
    );
    assert.equal(fine.kind, "message");
  },
});

/** A wire on an input the test writes and an output it reads line by line. */
function pipedWire(options: ConstructorParameters<typeof StdioWire>[2] = {}) {
  const input = new TransformStream<Uint8Array, Uint8Array>();
  const output = new TransformStream<Uint8Array, Uint8Array>();
  const out = output.writable.getWriter();
  const sink: ByteSink = { write: (bytes) => out.write(bytes.slice()).then(() => bytes.length) };
  const wire = new StdioWire(sourceOf(input.readable), sink, options);
  const delivered: JSONRPCMessage[] = [];
  const lines: Array<Record<string, unknown>> = [];
  let closed = false;
  wire.onmessage = (m) => delivered.push(m);
  wire.onclose = () => closed = true;
  const reading = (async () => {
    let text = "";
    for await (const chunk of output.readable.pipeThrough(new TextDecoderStream())) {
      text += chunk;
      for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n")) {
        lines.push(JSON.parse(text.slice(0, nl)));
        text = text.slice(nl + 1);
      }
    }
  })();
  const writer = input.writable.getWriter();
  return {
    wire,
    delivered,
    lines,
    closed: () => closed,
    write: (text: string) => writer.write(enc.encode(text)),
    endInput: () => writer.close(),
    async [Symbol.asyncDispose]() {
      await wire.close();
      await out.close().catch(() => {});
      await reading;
    },
  };
}

const request = (id: string | number, method = "tools/call") =>
  `${JSON.stringify({ jsonrpc: "2.0", id, method, params: {} })}\n`;

Deno.test({
  name: "two requests with one id in flight: the second is refused and never run",
  permissions: "none",
  async fn() {
    await using pipe = pipedWire();
    await pipe.wire.start();
    await pipe.write(request(7) + request(7) + request("7"));
    await waitFor(() => pipe.lines.length === 1, "the refusal of the reused id");
    assert.deepEqual(pipe.delivered.map((m) => "id" in m && m.id), [7, "7"], '7 and "7" differ');
    assert.equal(pipe.lines[0]!.id, 7);
    assert.deepEqual(pipe.lines[0]!.error, {
      code: -32600,
      message:
        "Invalid Request: request id 7 is already in flight, so this request was not run; give each request its own id",
    });
    assert.equal(pipe.wire.inFlight, 2, "the refusal answered no request in flight");
    // Once answered, the id is free again.
    await pipe.wire.send({ jsonrpc: "2.0", id: 7, result: {} });
    await pipe.write(request(7));
    await waitFor(() => pipe.delivered.length === 3, "the id to be taken again");
  },
});

Deno.test({
  name: "at the end of input the wire answers every request in flight, then closes",
  permissions: "none",
  async fn() {
    const clock = new FakeClock();
    await using pipe = pipedWire({ clock, drainLimitMs: 1_000 });
    let closedAt = -1;
    pipe.wire.closed.then(() => closedAt = pipe.lines.length);
    await pipe.wire.start();
    await pipe.write(request(1) + request(2) + request(3));
    await pipe.write(
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}\n',
    );
    await pipe.endInput();
    await waitFor(() => pipe.delivered.length === 4, "every line to be read");
    await clock.advance(999);
    assert.equal(pipe.closed(), false, "requests 1 and 2 are still in flight");
    await pipe.wire.send({ jsonrpc: "2.0", id: 2, result: {} });
    assert.equal(pipe.closed(), false);
    await pipe.wire.send({ jsonrpc: "2.0", id: 1, error: { code: -1, message: "no" } });
    await pipe.wire.closed;
    assert.equal(closedAt, 2, "closed only once both answers were written");
    assert.equal(clock.pending, 0, "the drain limit is cancelled");
  },
});

Deno.test({
  name: "an answer that never comes holds the close no longer than the drain limit",
  permissions: "none",
  async fn() {
    const clock = new FakeClock();
    await using pipe = pipedWire({ clock, drainLimitMs: 1_000 });
    await pipe.wire.start();
    await pipe.write(request(1));
    await pipe.endInput();
    await waitFor(() => clock.pending === 1, "the drain limit to be set");
    await clock.advance(999);
    assert.equal(pipe.closed(), false);
    await clock.advance(1);
    await pipe.wire.closed;
    assert.equal(pipe.closed(), true);
  },
});
