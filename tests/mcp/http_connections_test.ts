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
  const open = (name: string, tls = false, client = "10.0.0.1") =>
    connections.admit(() => closed.push(name), { tls, client });
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
    "no deadline closes a connection while its request is served; once answered it may idle until the idle deadline",
  permissions: "none",
  async fn() {
    const { clock, events, closed, open } = table();
    const client = open("client")!;
    client.requestStarted();
    await clock.advance(10_000);
    assert.deepEqual(closed, []);
    client.requestEnded(true);
    await clock.advance(299);
    assert.deepEqual(closed, []);
    client.requestStarted(); // its next request, on the same connection
    client.requestEnded(true);
    await clock.advance(299);
    assert.deepEqual(closed, [], "each answer starts the idle deadline again");
    await clock.advance(1);
    assert.deepEqual(closed, ["client"]);
    assert.deepEqual(events, ["idle-deadline"]);
  },
});

Deno.test({
  name:
    "at the cap the oldest waiting stranger gives way to a new connection; established clients stay",
  permissions: "none",
  fn() {
    const { events, connections, closed, open } = table();
    const owner = open("owner")!;
    owner.requestStarted();
    owner.requestEnded(true); // answered: a client of the server, now idle
    const busy = open("busy")!;
    busy.requestStarted();
    open("stranger-1");
    open("stranger-2");
    assert.equal(connections.size, 4);
    assert.ok(open("newcomer-1"));
    assert.deepEqual(closed, ["stranger-1"]);
    assert.ok(open("newcomer-2"));
    assert.deepEqual(closed, ["stranger-1", "stranger-2"]);
    assert.equal(connections.size, 4);
    assert.deepEqual(events, ["made-room", "made-room"]);
  },
});

Deno.test({
  name:
    "at the cap with every connection busy or an established client's, a new connection is refused",
  permissions: "none",
  fn() {
    const { events, connections, closed, open } = table();
    for (const name of ["a", "b", "c", "d"]) {
      const connection = open(name)!;
      connection.requestStarted();
      if (name !== "d") connection.requestEnded(true);
    }
    // One of them was refused (401): that client is no better known than a stranger.
    const refusedOnce = open("refused-once");
    assert.equal(refusedOnce, undefined, "full of established clients");
    assert.deepEqual(events, ["refused"]);
    assert.deepEqual(closed, []);
    assert.equal(connections.size, 4);
  },
});

Deno.test({
  name:
    "a connection whose only answer was a refusal counts as a stranger and gives way at the cap",
  permissions: "none",
  fn() {
    const { closed, open } = table();
    const unauthorized = open("401")!;
    unauthorized.requestStarted();
    unauthorized.requestEnded(false);
    for (const name of ["b", "c", "d"]) {
      const connection = open(name)!;
      connection.requestStarted();
      connection.requestEnded(true);
    }
    assert.ok(open("newcomer"));
    assert.deepEqual(closed, ["401"]);
  },
});

Deno.test({
  name:
    "out of descriptors, the cap drops below what is held and waiting strangers close; an established client stays; the cap recovers later",
  permissions: "none",
  async fn() {
    const { clock, connections, closed, open } = table();
    const owner = open("owner")!;
    owner.requestStarted();
    owner.requestEnded(true);
    open("stranger");
    const busy = open("busy")!;
    busy.requestStarted();
    assert.equal(connections.outOfDescriptors(), 1);
    // Three held, headroom 2: the cap is 1. The stranger closes; the owner's idle connection stays,
    // since its client may be sending on it this instant.
    assert.deepEqual(closed, ["stranger"]);
    assert.equal(connections.cap, 1);
    assert.equal(connections.size, 2);
    assert.equal(open("next"), undefined, "no stranger left to give way");
    await clock.advance(1_000);
    assert.ok(open("after recovery"), "the cap rose by the headroom");
    assert.equal(connections.cap, 3);
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

Deno.test({
  name:
    "a connection opened while its address had a request in progress (a client pool's spare) gives way after the other strangers",
  permissions: "none",
  fn() {
    const { connections, closed, open } = table();
    const owner = open("owner", false, "10.0.0.7")!;
    owner.requestStarted();
    open("spare", false, "10.0.0.7"); // the client's pool opens it while "owner" is busy
    owner.requestEnded(true);
    open("half-sent-1", false, "10.0.0.7");
    open("half-sent-2", false, "10.0.0.7");
    assert.ok(open("newcomer", false, "10.0.0.7"));
    assert.deepEqual(closed, ["half-sent-1"]);
    assert.equal(connections.outOfDescriptors(), 2);
    // Four held, headroom 2: the cap is 2; the other strangers go, the spare stays.
    assert.deepEqual(closed, ["half-sent-1", "half-sent-2", "newcomer"]);
    assert.ok(open("next", false, "10.0.0.7"));
    assert.deepEqual(closed, ["half-sent-1", "half-sent-2", "newcomer", "spare"], "last of all");
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
