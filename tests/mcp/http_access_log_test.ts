// The access log's words: what a request asked for (method, tool, phone) read from its body, and
// the one line per request, which never carries an argument's text or anything but safe names.

import assert from "node:assert/strict";
import { accessLine, summarizeRpc } from "../../lib/mcp/http_access_log.ts";

const call = (name: unknown, args: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name, arguments: args },
});

Deno.test({
  name: "a tools/call is logged with its tool and the phone it names, or the default phone",
  permissions: "none",
  fn() {
    assert.deepEqual(summarizeRpc(call("phone_tap", { device: "R58N123ABC", x: 1 }), "default"), {
      rpc: "tools/call",
      tool: "phone_tap",
      phone: "R58N123ABC",
    });
    assert.deepEqual(summarizeRpc(call("phone_shot"), "emulator-5554"), {
      rpc: "tools/call",
      tool: "phone_shot",
      phone: "emulator-5554",
    });
    assert.deepEqual(
      summarizeRpc({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }, "default"),
      { rpc: "initialize" },
    );
    assert.deepEqual(summarizeRpc({ jsonrpc: "2.0", id: 1, result: {} }, "default"), {
      rpc: "response",
    });
  },
});

Deno.test({
  name: "a batch is logged as its size with the distinct tools and phones it calls",
  permissions: "none",
  fn() {
    const batch = [
      call("phone_tap", { device: "a:5555" }),
      call("phone_tap", { device: "b:5555" }),
      call("phone_look"),
    ];
    assert.deepEqual(summarizeRpc(batch, "default"), {
      rpc: "batch:3",
      tool: "phone_tap,phone_look",
      phone: "a:5555,b:5555,default",
    });
  },
});

Deno.test({
  name:
    "no text a client wrote reaches the log: typed text, hostile tool names and device values are left out",
  permissions: "none",
  fn() {
    const secret = "hunter2-password";
    const summary = summarizeRpc(
      call("phone_type\u001b[2J", { text: secret, device: "$(reboot)" }),
      "default",
    );
    assert.deepEqual(summary, { rpc: "tools/call", tool: "?", phone: "?" });
    const long = summarizeRpc(call("x".repeat(65)), "default");
    assert.equal(long.tool, "?");
    const line = accessLine({
      at: 0,
      client: "10.0.4.7",
      status: 200,
      method: "POST",
      ...summarizeRpc(call("phone_type", { text: secret }), "default"),
      ms: 84.4,
      gone: false,
    });
    assert.ok(!line.includes(secret), line);
  },
});

Deno.test({
  name:
    "an access line says time, client, status, methods, tool, phone and duration; a refusal has no body to name",
  permissions: "none",
  fn() {
    assert.equal(
      accessLine({
        at: Date.UTC(2026, 11, 2, 10, 11, 12, 345),
        client: "10.0.4.7",
        status: 200,
        method: "POST",
        rpc: "tools/call",
        tool: "phone_tap",
        phone: "R58N123ABC",
        ms: 84.4,
        gone: false,
      }),
      "http 2026-12-02T10:11:12.345Z 10.0.4.7 200 POST tools/call tool=phone_tap phone=R58N123ABC 84ms",
    );
    assert.equal(
      accessLine({
        at: 0,
        client: "10.0.4.9",
        status: 401,
        method: "POST",
        rpc: "-",
        ms: 0.2,
        gone: false,
      }),
      "http 1970-01-01T00:00:00.000Z 10.0.4.9 401 POST - 0ms",
    );
    assert.match(
      accessLine({
        at: 0,
        client: "::1",
        status: 200,
        method: "POST",
        rpc: "x",
        ms: 5,
        gone: true,
      }),
      / 5ms gone$/,
    );
  },
});
