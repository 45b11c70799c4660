// The lab soak (`deno task test:long`): one phone-eye --http, as a lab runs it, with three simulated
// phones and a 256-descriptor limit, under mixed load for minutes. Each round: four SDK clients
// calling, cancelling and going away mid-call, one client's flood past its share, refusals (no
// token, an oversized body), and 300 half-sent connections. Sampled each round: the server's RSS,
// descriptors and adb children. Every client answered; nothing left once they have all gone.
// PHONE_EYE_LAB_SOAK_ROUNDS sets the rounds (150 by default, minutes; `deno task test:long` runs 30),
// PHONE_EYE_LAB_SOAK_SEED replays a run,
// PHONE_EYE_SOAK_RECORD=1 writes the figures to tests/long/lab_soak_figures.json.

import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/client";
import { type HttpEye, startHttpEye } from "../helpers/http_eye.ts";
import { type Random, seededRandom } from "../helpers/prng.ts";
import { startRig } from "../helpers/rig.ts";
import type { SimPhoneOptions } from "../../sim/sim_phone.ts";

const ROUNDS = Number(Deno.env.get("PHONE_EYE_LAB_SOAK_ROUNDS") ?? 150);
const HALF_SENT = 300;
/** How many rounds' half-sent connections this side keeps open (the server closes them first). */
const LINGER = 8;
const CLIENTS = 4;
const CALLS_PER_CLIENT = 6;
/** Past the per-client cap (16): some of these are answered 429. */
const FLOOD = 40;
const TOKEN = "phone-eye-soak-token-0123456789abcdef";
/** A phone a sixth of the usual size each way: the pixels prove nothing here, the load does. */
const SMALL: SimPhoneOptions = { width: 180, height: 400 };

function report(line: string): void {
  // deno-lint-ignore no-console
  console.error(`lab soak: ${line}`);
}

async function output(program: string, args: string[]): Promise<string> {
  const { stdout } = await new Deno.Command(program, { args, stderr: "null" }).output();
  return new TextDecoder().decode(stdout).trim();
}

/** The server's resident set in MiB (ps: Deno reads /proc/<pid> only with --allow-all). */
async function rssMiB(pid: number): Promise<number> {
  return Math.round(Number(await output("ps", ["-o", "rss=", "-p", String(pid)]) || 0) / 1024);
}

/** The server's open descriptors, counted by a shell that may read /proc/<pid>/fd. */
async function descriptors(pid: number): Promise<number> {
  return Number(await output("sh", ["-c", `ls /proc/${pid}/fd | wc -l`]));
}

async function adbChildren(pid: number): Promise<number> {
  return Number(await output("pgrep", ["-c", "-P", String(pid)]) || 0);
}

/** `n` turns of the event loop: a random point in a call's life, without reading the clock. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

type Fetch = typeof fetch;

interface Tally {
  answered: number;
  toolErrors: number;
  cancelled: number;
  gone: number;
  tooMany: number;
  refused: number;
  /** Calls that got no answer at all (a transport failure): must stay 0. */
  lost: string[];
  /** The first words of each kind of tool error, for the report. */
  errorKinds: Set<string>;
}

const ACTIONS = [
  { name: "phone_tap", args: { x: 20, y: 30, settle: false } },
  { name: "phone_key", args: { key: "back", settle: false } },
  { name: "phone_shot", args: {} },
  { name: "phone_look", args: {} },
  { name: "phone_devices", args: {} },
] as const;

/** One client's calls on its phone: some cancelled at a random point, the rest answered. */
async function clientCalls(client: Client, device: string, rng: Random, tally: Tally) {
  for (let i = 0; i < CALLS_PER_CLIENT; i++) {
    const action = rng.pick(ACTIONS);
    const cancel = rng.chance(0.2) ? new AbortController() : undefined;
    const call = client.callTool(
      {
        name: action.name,
        arguments: action.name === "phone_devices" ? {} : { ...action.args, device },
      },
      cancel && { signal: cancel.signal },
    );
    if (cancel !== undefined) void turns(rng.int(40)).then(() => cancel.abort());
    try {
      const result = await call;
      if (result.isError === true) {
        tally.toolErrors++;
        const text = (result.content as Array<{ text?: string }>)[0]?.text ?? "";
        tally.errorKinds.add(`${action.name}: ${text.split(/[;:]/)[0]}`);
      } else tally.answered++;
    } catch (error) {
      const message = (error as Error).message;
      if (cancel?.signal.aborted) tally.cancelled++;
      // Every client here is 127.0.0.1, so the flood takes their address's share too: a refusal
      // with Retry-After is an answer, which the agent's client retries.
      else if (/Too many requests|Service unavailable/.test(message)) tally.tooMany++;
      else tally.lost.push(`${action.name}: ${message}`);
    }
  }
}

/** A client that goes away with a call open: the call ends with it, and so must its work. */
async function goneMidCall(client: Client, device: string, rng: Random, tally: Tally) {
  const call = client.callTool({ name: "phone_look", arguments: { device } }).then(
    () => "answered",
    () => "gone",
  );
  await turns(rng.int(40));
  await client.close();
  if (await call === "gone") tally.gone++;
  else tally.answered++;
}

/**
 * FLOOD stateless requests at once from one client (tools/list: quick, so the flood is about the
 * cap, not the phone): each answered 200 or 429, none lost.
 */
async function flood(url: string, fetch: Fetch, tally: Tally): Promise<void> {
  const body = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list" });
  await Promise.all(Array.from({ length: FLOOD }, async (_, id) => {
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${TOKEN}`,
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
        },
        body: body(id),
      });
      await response.text();
      if (response.status === 429 || response.status === 503) tally.tooMany++;
      else if (response.status === 200) tally.answered++;
      else tally.lost.push(`flood: ${response.status}`);
    } catch (error) {
      tally.lost.push(`flood: ${(error as Error).message} (${(error as Error).cause})`);
    }
  }));
}

/** Requests refused at the door or for their size: each must be answered, with its status. */
async function refusals(url: string, fetch: Fetch, tally: Tally): Promise<void> {
  const noToken = await fetch(url, { method: "POST", body: "{}" });
  await noToken.text();
  const oversized = await fetch(url, {
    method: "POST",
    headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" },
    body: "x".repeat(11 * 1024 * 1024),
  });
  await oversized.text();
  if (noToken.status === 401 && oversized.status === 413) tally.refused += 2;
  else tally.lost.push(`refusals: ${noToken.status}, ${oversized.status}`);
}

/**
 * A client's connect, tried again while its address is over its share: every client here is
 * 127.0.0.1, and calls cancelled or abandoned in the round before may still hold slots until their
 * work on the phone ends (an action is let finish). Each refusal is counted as one; between tries
 * the server's adb children are counted, which paces the tries by the server's own progress.
 */
async function connectRetrying(
  connect: () => Promise<Client>,
  pace: () => Promise<unknown>,
  tally: Tally,
): Promise<Client> {
  for (let attempt = 0;; attempt++) {
    try {
      return await connect();
    } catch (error) {
      // The 2026-07-28 probe (server/discover) answered 429 reads to the SDK as a server that
      // does not offer the revision: tried again like any refusal for load.
      const busy = /Too many requests|Service unavailable|Version negotiation failed/.test(
        (error as Error).message,
      );
      if (!busy || attempt >= 200) throw error;
      tally.tooMany++;
      await pace();
    }
  }
}

/** HALF_SENT connections that send half a request head and then nothing. */
async function halfSent(url: string): Promise<Deno.Conn[]> {
  const { hostname, port } = new URL(url);
  const head = new TextEncoder().encode(`POST /mcp HTTP/1.1\r\nHost: ${hostname}:${port}\r\n`);
  const conns: Deno.Conn[] = [];
  for (let i = 0; i < HALF_SENT; i++) {
    const conn = await Deno.connect({ hostname, port: Number(port) });
    conns.push(conn);
    await conn.write(head).catch(() => {}); // closed by the server already
  }
  return conns;
}

function closeAll(conns: Deno.Conn[]): void {
  for (const conn of conns.splice(0)) {
    try {
      conn.close();
    } catch {
      // Closed by the server.
    }
  }
}

/** A fetch over a connection pool of its own, and the way to end all it has open. */
function roundFetch(): { fetch: Fetch; end: () => void } {
  // The round's connections end with it: the server sees its clients leave. A cancelled call's
  // event stream stays open on the client's side until the client ends it (the server sends no
  // answer to a cancelled request): the round's end aborts whatever is still open.
  const http = Deno.createHttpClient({});
  const roundEnd = new AbortController();
  return {
    fetch: (input, init) =>
      fetch(input, {
        ...init,
        client: http,
        signal: init?.signal ? AbortSignal.any([init.signal, roundEnd.signal]) : roundEnd.signal,
      }),
    end: () => {
      roundEnd.abort();
      http.close();
    },
  };
}

/**
 * One round: CLIENTS clients connect (half on each revision), HALF_SENT connections send half a
 * request, then at once: three clients' calls, one client leaving mid-call, a flood, refusals.
 * Returns the round's half-sent connections (still open) and the most adb children seen.
 */
async function soakRound(
  eye: HttpEye,
  serials: string[],
  round: number,
  rng: Random,
  tally: Tally,
): Promise<{ attackers: Deno.Conn[]; mostAdb: number }> {
  const pool = roundFetch();
  const clients: Client[] = [];
  for (let i = 0; i < CLIENTS; i++) {
    const protocol = i % 2 === 0 ? { protocol: "2026-07-28" as const } : {};
    clients.push(
      await connectRetrying(
        () => eye.connect({ token: TOKEN, fetch: pool.fetch, ...protocol }),
        () => adbChildren(eye.pid),
        tally,
      ),
    );
  }
  const attackers = await halfSent(eye.url);
  const work = [
    ...clients.slice(1).map((client, i) =>
      clientCalls(client, serials[i % serials.length]!, rng, tally)
    ),
    goneMidCall(clients[0]!, serials[round % serials.length]!, rng, tally),
    flood(eye.url, pool.fetch, tally),
    refusals(eye.url, pool.fetch, tally),
  ];
  let mostAdb = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) mostAdb = Math.max(mostAdb, await adbChildren(eye.pid));
  })();
  await Promise.all(work);
  sampling = false;
  await sampler;
  for (const client of clients) await client.close();
  pool.end();
  return { attackers, mostAdb };
}

/** Every tenth value, and the last: a run's curve in a line. */
const everyTenth = (values: number[]) =>
  values.filter((_, i) => i % 10 === 0 || i === values.length - 1);

Deno.test("lab soak: an HTTP server with three phones holds under calls, cancels, disconnects, floods and half-sent connections; every client answered, nothing left", async () => {
  const rng = seededRandom("PHONE_EYE_LAB_SOAK_SEED");
  report(`seed ${rng.seed} (replay with PHONE_EYE_LAB_SOAK_SEED=${rng.seed}), ${ROUNDS} rounds`);
  await using rig = await startRig({
    phones: [SMALL, SMALL, SMALL],
    serial: null,
    phoneEye: false,
  });
  const serials = rig.sims.map((sim) => sim.serial);
  await using eye = await startHttpEye({
    env: { ...rig.env, PHONE_EYE_HTTP_TOKEN: TOKEN, PHONE_EYE_DEVICES: serials.join(",") },
    args: ["--http", "127.0.0.1:0"],
    maxOpenFiles: 256,
  });
  const started = performance.now();
  const tally: Tally = {
    answered: 0,
    toolErrors: 0,
    cancelled: 0,
    gone: 0,
    tooMany: 0,
    refused: 0,
    lost: [],
    errorKinds: new Set(),
  };
  const rss: number[] = [await rssMiB(eye.pid)];
  const fds: number[] = [await descriptors(eye.pid)];
  const baseline = fds[0]!;
  let mostAdb = 0;
  // Half the rounds leave their half-sent connections to the server's header deadline; this side
  // closes them LINGER rounds later, well past it, so the test's own descriptors stay bounded.
  const lingering: Deno.Conn[][] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const ended = await soakRound(eye, serials, round, rng, tally);
    mostAdb = Math.max(mostAdb, ended.mostAdb);
    if (round % 2 === 0) closeAll(ended.attackers);
    else lingering.push(ended.attackers);
    if (lingering.length > LINGER) closeAll(lingering.shift()!);
    rss.push(await rssMiB(eye.pid));
    fds.push(await descriptors(eye.pid));
  }
  for (const group of lingering) closeAll(group);
  // Nothing left: no adb child, and the descriptors back to where they were (polled, bounded).
  let adbLeft = await adbChildren(eye.pid);
  for (let i = 0; i < 500 && adbLeft > 0; i++) adbLeft = await adbChildren(eye.pid);
  let fdsLeft = await descriptors(eye.pid);
  for (let i = 0; i < 5_000 && fdsLeft > baseline + 4; i++) fdsLeft = await descriptors(eye.pid);
  rss.push(await rssMiB(eye.pid));
  fds.push(fdsLeft);
  const figures = {
    rounds: ROUNDS,
    seconds: Math.round((performance.now() - started) / 1000),
    ...tally,
    lost: tally.lost.length,
    errorKinds: [...tally.errorKinds],
    halfSent: ROUNDS * HALF_SENT,
    rssMiB: everyTenth(rss),
    peakRssMiB: Math.max(...rss),
    descriptors: everyTenth(fds),
    peakDescriptors: Math.max(...fds),
    mostAdb,
    adbLeft,
  };
  report(JSON.stringify(figures));
  if (Deno.env.get("PHONE_EYE_SOAK_RECORD") === "1") {
    await Deno.writeTextFile(
      new URL("./lab_soak_figures.json", import.meta.url),
      JSON.stringify(figures, null, 2) + "\n",
    );
  }
  assert.deepEqual(tally.lost, [], "every client answered");
  assert.ok(tally.answered > 0 && tally.tooMany > 0, JSON.stringify(figures));
  assert.equal(adbLeft, 0, "no adb child left");
  assert.ok(fdsLeft <= baseline + 4, `descriptors back to ${baseline}: ${fdsLeft}`);
  assert.ok(Math.max(...rss) < 400, `RSS: ${rss.join(" ")}`);
  assert.doesNotMatch(eye.stderr(), /Uncaught|panicked/);
  assert.ok(!eye.stderr().includes(TOKEN.slice(0, 16)), "the token is never logged");
});
