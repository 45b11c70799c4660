// What the HTTP face holds across clients and per client, and how a body is read under those
// caps: 429 for a client over its share, 503 for a full server, both with Retry-After; 413, 408.

import assert from "node:assert/strict";
import { dropBody, readBody } from "../../lib/mcp/http_body.ts";
import { type Lease, RequestBudget } from "../../lib/mcp/http_limits.ts";
import { FakeClock } from "../helpers/fake_clock.ts";

/** The lease, or a failure naming the refusal's status. */
function entered(lease: Lease | Response): Lease {
  if (lease instanceof Response) throw new Error(`refused with ${lease.status}`);
  return lease;
}

async function said(response: Response | undefined): Promise<[number, string | null, string]> {
  assert.ok(response !== undefined, "a refusal");
  return [
    response.status,
    response.headers.get("retry-after"),
    (await response.json()).error.message,
  ];
}

Deno.test({
  name:
    "past the server's cap on open requests any client gets 503 with Retry-After; a release lets the next in",
  permissions: "none",
  async fn() {
    const budget = new RequestBudget({ maxOpen: 2, maxOpenPerClient: 2 });
    const a = entered(budget.enter("127.0.0.2"));
    entered(budget.enter("127.0.0.3"));
    const [status, retry, message] = await said(budget.enter("127.0.0.4") as Response);
    assert.equal(status, 503);
    assert.equal(retry, "1");
    assert.match(message, /already holds 2 open requests, the most it holds for all clients/);
    a.release();
    a.release(); // once only
    entered(budget.enter("127.0.0.4"));
    assert.equal(budget.open, 2);
  },
});

Deno.test({
  name:
    "a client over its own share of open requests gets 429 while another client is still let in",
  permissions: "none",
  async fn() {
    const budget = new RequestBudget({ maxOpen: 10, maxOpenPerClient: 1 });
    entered(budget.enter("10.0.0.7"));
    const [status, retry, message] = await said(budget.enter("10.0.0.7") as Response);
    assert.equal(status, 429);
    assert.equal(retry, "1");
    assert.match(message, /this client already has 1 requests open/);
    entered(budget.enter("10.0.0.8"));
  },
});

Deno.test({
  name:
    "body bytes over a client's share get 429, over the server's 503; released bytes are given back",
  permissions: "none",
  async fn() {
    const budget = new RequestBudget({ maxBytes: 100, maxBytesPerClient: 60 });
    const a = entered(budget.enter("a"));
    assert.equal(a.hold(50), undefined);
    assert.equal((await said(a.hold(11)))[0], 429);
    const b = entered(budget.enter("b"));
    assert.equal(b.hold(50), undefined);
    const c = entered(budget.enter("c"));
    const [status, retry] = await said(c.hold(1));
    assert.equal(status, 503);
    assert.equal(retry, "1");
    a.release();
    assert.equal(budget.bytes, 50);
    assert.equal(c.hold(50), undefined);
  },
});

/** A request whose body arrives as the test pushes chunks. */
function streamed(headers: Record<string, string> = {}) {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  const request = new Request("http://127.0.0.1/mcp", {
    method: "POST",
    body,
    headers,
    duplex: "half",
  } as RequestInit);
  return { request, controller };
}

Deno.test({
  name: "a declared body over the cap is refused 413 before a byte is read",
  permissions: "none",
  async fn() {
    const budget = new RequestBudget();
    const lease = entered(budget.enter("a"));
    const { request } = streamed({ "content-length": "101" });
    const read = await readBody(request, lease, {
      maxBytes: 100,
      deadlineMs: 1000,
      clock: new FakeClock(),
    });
    assert.ok("refused" in read);
    assert.equal(read.refused.status, 413);
    assert.equal(budget.bytes, 0);
  },
});

Deno.test({
  name: "a body streamed past the client's share is cut off at that chunk with 429",
  permissions: "none",
  async fn() {
    const budget = new RequestBudget({ maxBytesPerClient: 10 });
    const lease = entered(budget.enter("a"));
    const { request, controller } = streamed();
    controller.enqueue(new Uint8Array(6));
    controller.enqueue(new Uint8Array(6));
    const read = await readBody(request, lease, {
      maxBytes: 100,
      deadlineMs: 1000,
      clock: new FakeClock(),
    });
    assert.ok("refused" in read);
    assert.equal(read.refused.status, 429);
    assert.equal(budget.bytes, 6, "the chunk that did not fit is not held");
  },
});

Deno.test({
  name: "a body sent too slowly is cut off at the body deadline with 408",
  permissions: "none",
  async fn() {
    const clock = new FakeClock();
    const lease = entered(new RequestBudget().enter("a"));
    const { request, controller } = streamed();
    controller.enqueue(new TextEncoder().encode("{"));
    const reading = readBody(request, lease, { maxBytes: 100, deadlineMs: 500, clock });
    await clock.advance(500);
    const read = await reading;
    assert.ok("refused" in read);
    assert.equal(read.refused.status, 408);
    assert.equal(clock.pending, 0);
  },
});

Deno.test({
  name: "a whole body is read in chunks and counted",
  permissions: "none",
  async fn() {
    const budget = new RequestBudget();
    const lease = entered(budget.enter("a"));
    const { request, controller } = streamed();
    controller.enqueue(new TextEncoder().encode('{"a":'));
    controller.enqueue(new TextEncoder().encode("1}"));
    controller.close();
    const clock = new FakeClock();
    const read = await readBody(request, lease, { maxBytes: 100, deadlineMs: 500, clock });
    assert.ok("bytes" in read);
    assert.equal(new TextDecoder().decode(read.bytes), '{"a":1}');
    assert.equal(budget.bytes, 7);
    assert.equal(clock.pending, 0, "the deadline is cancelled");
  },
});

Deno.test({
  name:
    "a refused request's small body is read and dropped before the refusal goes out; a long one is left unread",
  permissions: "none",
  async fn() {
    const clock = new FakeClock();
    const small = streamed();
    small.controller.enqueue(new Uint8Array(10));
    small.controller.close();
    await dropBody(small.request, { maxBytes: 100, deadlineMs: 500, clock });
    assert.equal(small.request.bodyUsed, true);
    const declared = streamed({ "content-length": "101" });
    await dropBody(declared.request, { maxBytes: 100, deadlineMs: 500, clock });
    assert.equal(declared.request.bodyUsed, false, "not a byte read");
    // One that never ends is given up at the deadline.
    const stalled = streamed();
    const dropping = dropBody(stalled.request, { maxBytes: 100, deadlineMs: 500, clock });
    await clock.advance(500);
    await dropping;
    assert.equal(clock.pending, 0);
  },
});
