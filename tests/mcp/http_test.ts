// phone-eye --http as users run it: main.ts as a subprocess under deno.json's "http" permission
// set, on 127.0.0.1 only, the simulated phone behind a private adb server, the SDK's real client.

import assert from "node:assert/strict";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { createVision } from "../../lib/vision/vision.ts";
import { textOf } from "../helpers/in_process.ts";
import { refusedStart, startHttpEye } from "../helpers/http_eye.ts";
import { SMALL_PHONE, startRig, tempDir } from "../helpers/rig.ts";

const TOKEN = "phone-eye-test-token-0123456789abcdef";
/** An access-log line: time, client, status, method, JSON-RPC method, tool and phone, duration. */
const ACCESS_LINE =
  /^phone-eye: http \d{4}-\d\d-\d\dT[\d:.]+Z 127\.0\.0\.1 \d{3} (GET|POST|DELETE) \S+( tool=\S+)?( phone=\S+)? \d+ms( gone)?$/;
const LISTEN = ["--http", "127.0.0.1:0"];

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "curl", version: "0" },
  },
});

function post(url: string, headers: Record<string, string>, body = initialize): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...headers,
    },
    body,
  });
}

/**
 * An initialize POSTed over a bare TCP connection with the Host header given (fetch always sends
 * the URL's): the whole response as text.
 */
async function rawPost(url: string, host: string, token: string): Promise<string> {
  const { hostname, port } = new URL(url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  const body = new TextEncoder().encode(initialize);
  const head = [
    "POST /mcp HTTP/1.1",
    `Host: ${host}`,
    `Authorization: Bearer ${token}`,
    "Content-Type: application/json",
    "Accept: application/json, text/event-stream",
    `Content-Length: ${body.length}`,
    "Connection: close",
    "",
    "",
  ].join("\r\n");
  await conn.write(new TextEncoder().encode(head));
  await conn.write(body);
  return await new Response(conn.readable).text();
}

/** The status of a request, and its JSON-RPC error message (the body is read whole). */
async function answer(response: Promise<Response>): Promise<[number, string]> {
  const got = await response;
  const text = await got.text();
  let message = text;
  try {
    message = JSON.parse(text)?.error?.message ?? text;
  } catch {
    // an SSE body: kept as it is
  }
  return [got.status, message];
}

// One server, as a lab runs it: two phones behind one token. Each step is one claim and reads only
// what it caused (a phone's taps from its own count on), so the steps stand in any order. The
// screenshots come from a small phone: they are about the transport.
Deno.test("one HTTP server with a token, two phones behind it", async (t) => {
  await using rig = await startRig({
    phones: [SMALL_PHONE, { model: "SimTablet", width: 1600, height: 2560 }],
    serial: null,
    phoneEye: false,
  });
  const [a, b] = rig.sims as [typeof rig.sims[0], typeof rig.sims[0]];
  await using eye = await startHttpEye({
    env: {
      ...rig.env,
      PHONE_EYE_HTTP_TOKEN: TOKEN,
      PHONE_EYE_DEVICES: `${a.serial},${b.serial}`,
    },
    args: LISTEN,
  });
  /** The taps `phone` gets from here on. */
  const tapsFrom = (phone: typeof a) => {
    const seen = phone.toolCalls("input").length;
    return () => phone.toolCalls("input").slice(seen);
  };

  await t.step(
    "no token, a wrong token, a foreign Origin or Host and an oversized body are refused",
    async () => {
      const auth = { Authorization: `Bearer ${TOKEN}` };
      const [none, noneSays] = await answer(post(eye.url, {}));
      assert.equal(none, 401);
      assert.match(noneSays, /Authorization: Bearer/);
      const [wrong, wrongSays] = await answer(
        post(eye.url, { Authorization: `Bearer ${TOKEN.slice(0, -1)}x` }),
      );
      assert.equal(wrong, 401);
      assert.match(wrongSays, /not the server's PHONE_EYE_HTTP_TOKEN/);
      assert.equal((await answer(post(eye.url, { Authorization: TOKEN })))[0], 401, "no Bearer");

      // A web page on another site, and a DNS name rebound to 127.0.0.1: the token does not help.
      const [origin] = await answer(post(eye.url, { ...auth, Origin: "https://evil.example" }));
      assert.equal(origin, 403);
      const [nullOrigin] = await answer(post(eye.url, { ...auth, Origin: "null" }));
      assert.equal(nullOrigin, 403);
      const rebound = await rawPost(eye.url, "rebound.evil.example", TOKEN);
      assert.match(rebound, /^HTTP\/1\.1 421 /);
      assert.match(rebound, /Misdirected/);

      const [path] = await answer(post(eye.url.replace(/\/mcp$/, "/other"), auth));
      assert.equal(path, 404);

      // The stdio line cap, MAX_LINE_BYTES (10 MiB), bounds a request body too.
      const padding = "x".repeat(10 * 1024 * 1024 + 1);
      const big = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping", params: { padding } });
      const [tooBig] = await answer(post(eye.url, auth, big));
      assert.equal(tooBig, 413);

      const [ok, okSays] = await answer(post(eye.url, auth));
      assert.equal(ok, 200, okSays);
      assert.match(okSays, /"serverInfo":\{"name":"phone-eye"/);
      // Also with the loopback names the server answers to besides its listen address.
      assert.match(await rawPost(eye.url, "localhost", TOKEN), /^HTTP\/1\.1 200 /);
    },
  );

  await t.step(
    "a real SDK client with the token lists and calls the tools on the 2025-11-25 and 2026-07-28 revisions",
    async () => {
      for (const protocol of ["2025-11-25", "2026-07-28"] as const) {
        const taps = tapsFrom(a);
        const client = await eye.connect({ token: TOKEN, protocol });
        assert.equal(client.getNegotiatedProtocolVersion(), protocol);
        const names = (await client.listTools()).tools.map((tool) => tool.name);
        assert.ok(
          names.includes("phone_tap") && names.includes("phone_look"),
          `${protocol}: ${names}`,
        );
        const tap = await client.callTool({
          name: "phone_tap",
          arguments: { device: a.serial, x: 100, y: 200, settle: false },
        });
        assert.notEqual(tap.isError, true, `${protocol}: ${textOf(tap)}`);
        assert.deepEqual(taps(), [["tap", "100", "200"]], protocol);
        const shot = await client.callTool({ name: "phone_shot", arguments: { device: a.serial } });
        const parts = shot.content as Array<{ type: string; mimeType?: string }>;
        assert.equal(parts[0]?.type, "image", protocol);
        // A tool's failure is still a readable result over HTTP, never a transport error.
        const bad = await client.callTool({
          name: "phone_key",
          arguments: { device: a.serial, key: "no-such-key", settle: false },
        });
        assert.equal(bad.isError, true, protocol);
        assert.match(textOf(bad), /no-such-key/, protocol);
      }
      const refused = await eye.connect({ protocol: "2026-07-28" }).then(
        () => "connected",
        (error: Error) => error.message,
      );
      assert.notEqual(refused, "connected", "a client without the token is turned away");
    },
  );

  await t.step(
    "phone_devices lists both phones, a tap with device reaches only that phone",
    async () => {
      const [tapsA, tapsB] = [tapsFrom(a), tapsFrom(b)];
      // Each phone its own client, as sub-agents driving a phone each would connect.
      const [first, second] = await Promise.all([
        eye.connect({ token: TOKEN, protocol: "2026-07-28" }),
        eye.connect({ token: TOKEN }),
      ]);
      const listed = textOf(await first.callTool({ name: "phone_devices", arguments: {} }));
      assert.match(listed, /^2 phones this server may drive/);
      assert.ok(listed.includes(`- ${a.serial}: device; SimPhone`), listed);
      assert.ok(listed.includes(`- ${b.serial}: device; SimTablet`), listed);

      const [tapA, tapB] = await Promise.all([
        first.callTool({
          name: "phone_tap",
          arguments: { device: a.serial, x: 11, y: 12, settle: false },
        }),
        second.callTool({
          name: "phone_tap",
          arguments: { device: b.serial, x: 21, y: 22, settle: false },
        }),
      ]);
      assert.notEqual(tapA.isError, true, textOf(tapA));
      assert.notEqual(tapB.isError, true, textOf(tapB));
      assert.deepEqual(tapsA(), [["tap", "11", "12"]]);
      assert.deepEqual(tapsB(), [["tap", "21", "22"]]);
    },
  );

  await t.step(
    "without vision a client's first look carries the note in full and its next one line; a new client hears it in full",
    async () => {
      const note = createVision({ route: "none" }).unavailable!;
      const visionLine = async (client: Client) => {
        const look = await client.callTool({
          name: "phone_look",
          arguments: { device: a.serial },
        });
        assert.notEqual(look.isError, true, textOf(look));
        return /\[vision\]\n(.*)\n/.exec(textOf(look))?.[1];
      };
      const first = await eye.connect({ token: TOKEN });
      assert.equal(await visionLine(first), `Vision unavailable: ${note.note}`);
      assert.equal(await visionLine(first), `Vision unavailable: ${note.brief}`);
      const second = await eye.connect({ token: TOKEN });
      assert.equal(await visionLine(second), `Vision unavailable: ${note.note}`);
      assert.equal(await visionLine(first), `Vision unavailable: ${note.brief}`);
    },
  );

  await eye.close();
  // The line that says where it serves, then one access line per request, refusals included: no
  // warning, and no part of the token anywhere.
  const [serving, ...requests] = eye.stderr().trim().split("\n");
  assert.match(serving!, /serving MCP at/);
  for (const line of requests) assert.match(line, ACCESS_LINE, eye.stderr());
  for (const status of [401, 403, 421, 404, 413, 200, 202]) {
    assert.ok(requests.some((line) => line.split(" ")[4] === String(status)), `${status} logged`);
  }
  assert.ok(
    requests.some((line) =>
      line.includes(` POST tools/call tool=phone_tap phone=${a.serial} `) &&
      line.includes(" 200 ")
    ),
    eye.stderr(),
  );
  assert.ok(!eye.stderr().includes(TOKEN.slice(0, 16)), eye.stderr());
});

// Both refusals take one path in main.ts (loadHttpSettings throws, phone-eye exits 2 before it
// binds): the process runs one; the short token's words, which never repeat it, are checked in
// tests/mcp/http_settings_test.ts.
Deno.test("without a token phone-eye refuses to serve 0.0.0.0 before it binds, exit 2", async () => {
  await using rig = await startRig({ phones: [], adb: false, phoneEye: false });
  const open = await refusedStart({ env: rig.env, args: ["--http", "0.0.0.0:1"] });
  assert.equal(open.code, 2, open.stderr);
  assert.match(open.stderr, /refusing to serve 0\.0\.0\.0 without a token/);
  assert.match(open.stderr, /PHONE_EYE_HTTP_TOKEN/);
});

/** Runs openssl with `args`; false when openssl is not installed. */
async function openssl(args: string[], cwd: string): Promise<boolean> {
  let output: Deno.CommandOutput;
  try {
    output = await new Deno.Command("openssl", { args, cwd, stdin: "null" }).output();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  return true;
}

Deno.test("with --tls-cert and --tls-key phone-eye serves HTTPS that a client trusting the certificate reaches", async (t) => {
  await using dir = await tempDir("phone_eye_tls_");
  // A test CA and a certificate for 127.0.0.1 signed by it (rustls refuses a CA as the leaf).
  const made = await openssl([
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-days",
    "1",
    "-subj",
    "/CN=phone-eye test CA",
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
  ], dir.path);
  if (!made) return void await t.step({ name: "openssl not installed", ignore: true, fn() {} });
  await Deno.writeTextFile(
    join(dir.path, "leaf.ext"),
    "subjectAltName=IP:127.0.0.1\nbasicConstraints=critical,CA:FALSE\nextendedKeyUsage=serverAuth\n",
  );
  await openssl([
    "req",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-subj",
    "/CN=127.0.0.1",
    "-keyout",
    "leaf.key",
    "-out",
    "leaf.csr",
  ], dir.path);
  await openssl([
    "x509",
    "-req",
    "-in",
    "leaf.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-days",
    "1",
    "-extfile",
    "leaf.ext",
    "-out",
    "leaf.pem",
  ], dir.path);
  const cert = join(dir.path, "leaf.pem");
  const key = join(dir.path, "leaf.key");

  await using rig = await startRig({ phoneEye: false });
  await using eye = await startHttpEye({
    env: { ...rig.env, PHONE_EYE_HTTP_TOKEN: TOKEN },
    args: [...LISTEN, "--tls-cert", cert, "--tls-key", key],
    // The http set grants no file reads: the two files are added for this run, as docs/lab.md says.
    extraFlags: [`--allow-read=${cert},${key}`],
  });
  assert.match(eye.url, /^https:\/\/127\.0\.0\.1:\d+\/mcp$/);
  using httpClient = Deno.createHttpClient({
    caCerts: [await Deno.readTextFile(join(dir.path, "ca.pem"))],
  });
  const trusting: typeof fetch = (input, init) => fetch(input, { ...init, client: httpClient });
  const client = await eye.connect({ token: TOKEN, fetch: trusting });
  const tap = await client.callTool({
    name: "phone_tap",
    arguments: { x: 7, y: 9, settle: false },
  });
  assert.notEqual(tap.isError, true, textOf(tap));
  assert.deepEqual(rig.sim.toolCalls("input").at(-1), ["tap", "7", "9"]);
  // A client that does not trust the certificate cannot talk to it at all.
  await assert.rejects(fetch(eye.url, { method: "POST" }));
});
