// The HTTP listener's connection table with a fake clock and connections that only record their
// closing: the deadlines of each stage, who gives way at the cap, and the lowered cap when
// descriptors ran out.

import assert from "node:assert/strict";
import { type ConnectionEvent, Connections } from "../../lib/mcp/http_connections.ts";
import { FakeClock } from "../helpers/fake_clock.ts";

const LIMITS = {
  max: 4,
  headroom: 2,
  min: 1,
  handshakeMs: 100,
  headerMs: 200,
  idleMs: 300,
  recoveryMs: 1_000,
  settleMs: 100,
};

function table() {
  const clock = new FakeClock();
  const events: ConnectionEvent[] = [];
  const connections = new Connections({
    clock,
    count: (event) => events.push(event),
    limits: LIMITS,
  });
  const closed: string[] = [];
  const open = (name: string, tls = false) => connections.admit(() => closed.push(name), { tls });
  return { clock, events, connections, closed, open };
}

Deno.test({
  name: "a connection that sends no whole request header is closed at the header deadline",
  permissions: "none",
  async fn() {
    const { clock, events, connections, closed, open } = table();
    open("half-sent");
    await clock.advance(199);
    assert.deepEqual(closed, []);
    await clock.advance(1);
    assert.deepEqual(closed, ["half-sent"]);
    assert.deepEqual(events, ["header-deadline"]);
    assert.equal(connections.size, 0);
  },
});

Deno.test({
  name: "a TLS connection has the handshake deadline first, then the header deadline from its end",
  permissions: "none",
  async fn() {
    const { clock, events, closed, open } = table();
    open("never-handshakes", true);
    const slow = open("handshakes-late", true)!;
    await clock.advance(99);
    slow.handshaken();
    await clock.advance(1);
    assert.deepEqual(closed, ["never-handshakes"]);
    await clock.advance(198);
    assert.deepEqual(closed, ["never-handshakes"], "the header deadline runs from the handshake");
    await clock.advance(1);
    assert.deepEqual(closed, ["never-handshakes", "handshakes-late"]);
    assert.deepEqual(events, ["handshake-deadline", "header-deadline"]);
  },
});

Deno.test({
  name:
    "no deadline closes a connection while its request is served; after its answer, the idle deadline does if its client holds it open",
  permissions: "none",
  async fn() {
    const { clock, events, closed, open } = table();
    const client = open("client")!;
    client.requestStarted();
    await clock.advance(10_000);
    assert.deepEqual(closed, []);
    client.requestEnded();
    await clock.advance(299);
    assert.deepEqual(closed, []);
    await clock.advance(1);
    assert.deepEqual(closed, ["client"]);
    assert.deepEqual(events, ["idle-deadline"]);
  },
});

Deno.test({
  name:
    "at the cap the oldest waiting connection gives way to a new one; one whose request is served stays",
  permissions: "none",
  fn() {
    const { events, connections, closed, open } = table();
    open("half-sent-1");
    const busy = open("busy")!;
    busy.requestStarted();
    open("half-sent-2");
    open("half-sent-3");
    assert.equal(connections.size, 4);
    assert.ok(open("newcomer-1"));
    assert.deepEqual(closed, ["half-sent-1"]);
    assert.ok(open("newcomer-2"));
    assert.deepEqual(closed, ["half-sent-1", "half-sent-2"]);
    assert.equal(connections.size, 4);
    assert.deepEqual(events, ["made-room", "made-room"]);
  },
});

Deno.test({
  name: "at the cap with every connection serving a request, a new connection is refused",
  permissions: "none",
  fn() {
    const { events, connections, closed, open } = table();
    for (const name of ["a", "b", "c", "d"]) open(name)!.requestStarted();
    assert.equal(open("late"), undefined);
    assert.deepEqual(events, ["refused"]);
    assert.deepEqual(closed, []);
    assert.equal(connections.size, 4);
  },
});

Deno.test({
  name:
    "out of descriptors, the cap drops below what is held and waiting connections close, oldest first; it recovers later",
  permissions: "none",
  async fn() {
    const { clock, connections, closed, open } = table();
    open("half-sent-1");
    open("half-sent-2");
    const busy = open("busy")!;
    busy.requestStarted();
    assert.equal(connections.outOfDescriptors(), 2);
    // Three held, headroom 2: the cap is 1; the waiting ones close, the busy one stays.
    assert.deepEqual(closed, ["half-sent-1", "half-sent-2"]);
    assert.equal(connections.cap, 1);
    assert.equal(connections.size, 1);
    assert.equal(open("next"), undefined, "the busy connection fills the lowered cap");
    await clock.advance(1_000);
    assert.ok(open("after recovery"), "the cap rose by the headroom");
    assert.equal(connections.cap, 3);
  },
});

Deno.test({
  name:
    "an accept failing again while the descriptors just freed come back does not lower the cap further",
  permissions: "none",
  async fn() {
    const { clock, connections, open } = table();
    for (const name of ["a", "b", "c", "d"]) open(name);
    assert.equal(connections.outOfDescriptors(), 2);
    assert.equal(connections.cap, 2);
    for (const name of ["e", "f"]) open(name);
    assert.equal(connections.outOfDescriptors(), 0, "within the settling time");
    assert.equal(connections.cap, 2);
    await clock.advance(100);
    assert.equal(connections.outOfDescriptors(), 1);
    assert.equal(connections.cap, 1, "past it, the cap drops again");
  },
});

Deno.test({
  name: "closeAll closes every connection and leaves no deadline set",
  permissions: "none",
  fn() {
    const { clock, connections, closed, open } = table();
    open("a");
    open("b", true)!.requestStarted();
    connections.closeAll();
    assert.deepEqual(closed.sort(), ["a", "b"]);
    assert.equal(connections.size, 0);
    assert.equal(clock.pending, 0);
  },
});
