// Tier 3 for the eyes: main.ts as a subprocess under the production permission set, the real adb
// client, the simulated phone, and real vision servers on 127.0.0.1 (OpenAI-compatible and MCP).

import assert from "node:assert/strict";
import { decode as jpegDecode } from "jpeg-js";
import { lookSection as section, textOf } from "../helpers/in_process.ts";
import {
  adbServerPerClient,
  closing,
  type Rig,
  type RigOptions,
  startRig,
  tempDir,
} from "../helpers/rig.ts";
import { adbClients, systemClient, testThroughEach } from "../helpers/adb_clients.ts";
import { waitFor } from "../helpers/wait_for.ts";
import { stablePort } from "../helpers/ports.ts";
import { startMcpVisionServer } from "../fixtures/mcp_vision_server.ts";
import { startOpenAiServer } from "../fixtures/openai_server.ts";
import type { SimPhone } from "../../sim/sim_phone.ts";
import type { RgbaImage } from "../../lib/image/frame.ts";
import { readPngStream } from "../../lib/image/png_decode.ts";
import {
  AGENT_MAX_EDGE,
  agentSizing,
  DEFAULT_MAX_BASE64_BYTES,
  fitFor,
  type Sizing,
  VISION_MAX_EDGE,
  visionSizing,
} from "../../lib/image/sizing.ts";
import { decodePng } from "../fixtures/images/pipeline.ts";

// Nothing here depends on the adb client (the screen's bytes and the tree are the same through
// any), so these tests run through the one on PATH only (helpers/adb_clients.ts, systemClient);
// the two-client matrix is in e2e_hand_test.ts and e2e_android_test.ts, where the client matters.
const clients = systemClient((await adbClients()).clients);
const adbServer = adbServerPerClient(clients.map((c) => c.binary));

/** A fresh folder for phone-eye's TMPDIR, watched for anything written there; removed on dispose. */
async function watchedTmp(): Promise<{ path: string; written(): string[] } & AsyncDisposable> {
  const dir = await tempDir("phone_eye_eyes_tmp_");
  const watcher = Deno.watchFs(dir.path);
  const events: string[] = [];
  const watching = (async () => {
    for await (const event of watcher) events.push(...event.paths);
  })();
  return {
    path: dir.path,
    written: () => [...events],
    async [Symbol.asyncDispose]() {
      watcher.close();
      await watching;
      await dir[Symbol.asyncDispose]();
    },
  };
}

/** The rig with phone-eye's TMPDIR in `tmp` (declared first, so it outlives the rig). */
function rig(tmp: { path: string }, options: RigOptions = {}): Promise<Rig> {
  return startRig({
    ...options,
    ...(options.adbBinary === undefined ? {} : { adbServer: adbServer(options.adbBinary) }),
    env: { TMPDIR: tmp.path, ...options.env },
  });
}

async function imageDecode(
  bytes: Uint8Array,
  mimeType: string | undefined,
): Promise<RgbaImage> {
  if (mimeType === "image/png") return await decodePng(bytes);
  assert.equal(mimeType, "image/jpeg");
  const { width, height, data } = jpegDecode(bytes, { useTArray: true, formatAsRGBA: true });
  return { width, height, data };
}

/** Mean absolute difference per channel; 0 for identical pixels. */
function meanDiff(a: RgbaImage, b: RgbaImage): number {
  assert.deepEqual([a.width, a.height], [b.width, b.height]);
  let sum = 0;
  for (let i = 0; i < a.data.length; i++) sum += Math.abs(a.data[i]! - b.data[i]!);
  return sum / a.data.length;
}

/** The phone's screen as adb itself delivers it, without phone-eye in between. */
async function screenNow(r: Rig): Promise<Uint8Array> {
  const out = await r.adb.adbBytes("-s", r.sim.serial, "exec-out", "screencap -p");
  assert.equal(out.code, 0, out.stderr);
  return out.stdout;
}

/** The phone's screen reduced for `sizing` by the pipeline's own decoder, before any encoding:
 * what an image sent for that audience must show, within what its encoding loses. */
async function screenFor(r: Rig, sizing: Sizing): Promise<RgbaImage> {
  return (await readPngStream(await screenNow(r), fitFor(sizing))).image;
}

async function names(dir: string): Promise<string[]> {
  return (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name);
}

/** Files phone-eye may have left on the phone: dumps in /data/local/tmp or /sdcard. */
async function deviceLeftovers(sim: SimPhone): Promise<string[]> {
  const found: string[] = [];
  for (const dir of ["data/local/tmp", "sdcard"]) {
    for await (const entry of Deno.readDir(`${sim.root}/${dir}`)) {
      found.push(`${dir}/${entry.name}`);
    }
  }
  return found;
}

const UI_LINE = /^.+ @ \[\d+,\d+\]\[\d+,\d+\]$/;

testThroughEach(
  clients,
  "phone_shot and phone_look over the direct route: sized image, fused answer, quirks, no key anywhere",
  async (t, adb) => {
    const key = `sk-test-SECRET-${crypto.randomUUID()}`;
    const model = "vision-test-1";
    await using server = closing(startOpenAiServer({ apiKey: key, model }));
    await using tmp = await watchedTmp();
    // Two phones: the full-size one for what this test says about sizes (1080×2400 at scale 2, the
    // 1568 px vision edge, points in device pixels), and one a quarter of its pixels for the quirks,
    // which are about words, not pixels (each would otherwise decode a 1080×2400 frame). Both are
    // configured (PHONE_EYE_DEVICES, so phone-eye reconnects them as it does ANDROID_SERIAL's), and
    // each call names its phone.
    const ports = [stablePort(), stablePort()];
    await using r = await rig(tmp, {
      adbBinary: adb,
      phones: [{ port: ports[0]! }, { port: ports[1]!, width: 540, height: 1200 }],
      serial: null,
      env: {
        PHONE_EYE_DEVICES: ports.map((port) => `127.0.0.1:${port}`).join(","),
        PHONE_EYE_VISION_API_KEY: key,
        PHONE_EYE_VISION_BASE_URL: server.url,
        PHONE_EYE_VISION_MODEL: model,
      },
    });
    const small = r.sims[1]!;
    /** A call on the full-size phone (r.sim). */
    const full = (name: string, args: Record<string, unknown> = {}) =>
      r.call(name, { device: r.sim.serial, ...args });
    /** A call on the small phone. */
    const quirk = (name: string, args: Record<string, unknown> = {}) =>
      r.call(name, { device: small.serial, ...args });
    await t.step("phone_shot returns an image within budget plus its scale", async () => {
      const shot = await full("phone_shot");
      assert.equal(shot.isError, undefined, textOf(shot));
      const [image, note] = shot.content;
      assert.equal(image?.type, "image");
      assert.ok(image.data && image.data.length <= DEFAULT_MAX_BASE64_BYTES, "over ~1 MB");
      const got = await imageDecode(Uint8Array.fromBase64(image.data), image.mimeType);
      assert.deepEqual([got.width, got.height], [540, 1200]);
      assert.ok(Math.max(got.width, got.height) <= AGENT_MAX_EDGE);
      // The same screen, scaled by the same pipeline from what adb delivers directly.
      assert.ok(meanDiff(got, await screenFor(r, agentSizing())) < 2);

      assert.equal(note?.type, "text");
      assert.match(note.text ?? "", /540×1200 of a 1080×2400 screen: multiply image x,y by 2\b/);
      assert.doesNotMatch(note.text ?? "", /Saved/);
      // Text and image only: Claude Code would show the model structuredContent instead of both.
      assert.equal(shot.structuredContent, undefined);
    });

    // Screenshot quirks first, while the phone has only ever run one command at a time: the sim
    // matches a command to its tool calls through a log that two concurrent commands (phone_look's
    // channels) can make it misread, and truncatePng depends on that match.
    // The empty PNG (no bytes at all) takes the same way, end to end in screen_test.ts.
    await t.step("an unreadable PNG is recovered through raw screencap, and says so", async () => {
      small.faults.emptyPng(true, { headerOnly: true });
      const shot = await quirk("phone_shot");
      small.faults.clear();
      assert.equal(shot.isError, undefined, textOf(shot));
      assert.equal(shot.content[0]?.type, "image");
      assert.match(
        textOf(shot),
        /"screencap -p" returned an unreadable PNG .*raw frame was captured/,
      );
      assert.deepEqual(
        small.commands().slice(-2),
        ["screencap -p", "screencap"],
        "the raw fallback is one more round trip",
      );
    });

    await t.step("a PNG cut short by a dropped link is replayed after one reconnect", async () => {
      const before = small.commands().filter((c) => c === "screencap -p").length;
      // The replay waits 300 ms on the phone, so the fault is off long before it is answered.
      small.faults.latency(300, "screencap");
      small.faults.truncatePng(true);
      const pending = quirk("phone_shot");
      await waitFor(() => small.transports() === 0, "the cut PNG to drop the link");
      small.faults.truncatePng(false);
      const shot = await pending;
      small.faults.clear();
      assert.equal(shot.isError, undefined, textOf(shot));
      assert.equal(shot.content[0]?.type, "image");
      assert.equal(small.commands().filter((c) => c === "screencap -p").length, before + 2);
      assert.equal(small.transports(), 1);
    });

    await t.step("a PNG cut short every time is a clear error, not a broken picture", async () => {
      small.faults.truncatePng(true);
      const shot = await quirk("phone_shot");
      small.faults.clear();
      assert.equal(shot.isError, true);
      assert.match(textOf(shot), /^Cannot take a screenshot: .*cut short/);
      // The link is back: the next shot works.
      assert.equal((await quirk("phone_shot")).isError, undefined);
    });

    let notes: { bounds: number[]; center: { x: number; y: number } } | undefined;
    await t.step("phone_look sends the keyed request the provider expects", async () => {
      const look = await full("phone_look");
      assert.equal(look.isError, undefined, textOf(look));
      const req = server.requests.at(-1);
      assert.ok(req?.image, JSON.stringify(req?.body).slice(0, 300));
      assert.equal(req.headers.authorization, `Bearer ${key}`);
      assert.equal(req.model, model);
      assert.match(req.prompt ?? "", /screen is 1080×2400 device pixels/);
      assert.equal(Math.max(req.image.width, req.image.height), VISION_MAX_EDGE);
      const body = req.body as {
        messages: Array<{ content: Array<{ image_url?: { url: string } }> }>;
      };
      const url = body.messages[0]?.content.find((p) => p.image_url)?.image_url?.url ?? "";
      const [, mime, b64] = /^data:(image\/\w+);base64,(.*)$/.exec(url) ?? [];
      const sent = await imageDecode(Uint8Array.fromBase64(b64 ?? ""), mime);
      assert.ok(meanDiff(sent, await screenFor(r, visionSizing())) < 2);

      // What the agent reads is all there is: no structuredContent to be shown instead of it.
      assert.equal(look.structuredContent, undefined);
      const text = textOf(look);
      assert.match(text, /^Screen: 1080×2400 device pixels\.\n\n\[vision\]\n/);
      const line = /^Notes @ \[(\d+),(\d+)\]\[(\d+),(\d+)\]$/m.exec(section(text, "ui-tree"));
      assert.ok(line, text);
      const [x1, y1, x2, y2] = line.slice(1).map(Number) as [number, number, number, number];
      notes = { bounds: [x1, y1, x2, y2], center: { x: (x1 + x2) >> 1, y: (y1 + y2) >> 1 } };
    });

    await t.step(
      "phone_look fuses the answer with the tree and snaps its point to Notes",
      async () => {
        assert.ok(notes);
        const [x1, y1, x2, y2] = notes.bounds as [number, number, number, number];
        const said = { x: notes.center.x + 9, y: notes.center.y - 7 };
        const answer = `The home screen. The Notes icon is at (${said.x}, ${said.y}).`;
        server.set({ answer });
        const look = await full("phone_look", { question: "Where is Notes?" });
        assert.equal(look.isError, undefined);
        const text = textOf(look);
        assert.equal(section(text, "vision"), answer);
        assert.match(server.requests.at(-1)?.prompt ?? "", /Where is Notes\?$/);
        const tree = section(text, "ui-tree").split("\n");
        assert.ok(tree.length >= 4 && tree.length <= 40, text);
        assert.ok(tree.every((line) => UI_LINE.test(line)), text);
        assert.ok(tree.includes(`Notes @ [${x1},${y1}][${x2},${y2}]`), text);
        assert.equal(
          section(text, "points"),
          `(${said.x},${said.y}) → "Notes" @ [${x1},${y1}][${x2},${y2}] tap (${notes.center.x},${notes.center.y})`,
        );
        assert.equal(look.structuredContent, undefined);
        server.set({ answer: undefined });
      },
    );

    await t.step("a black frame is explained, and phone_look still returns the tree", async () => {
      small.faults.blackScreen(true);
      const shot = await quirk("phone_shot");
      const look = await quirk("phone_look");
      small.faults.clear();
      assert.equal(shot.isError, true);
      assert.equal(shot.content.length, 1, "no picture of the black frame");
      assert.match(textOf(shot), /all black.*FLAG_SECURE.*screen is off or locked/);
      assert.equal(look.isError, undefined);
      assert.match(section(textOf(look), "vision"), /Vision unavailable: .*all black.*FLAG_SECURE/);
      assert.match(section(textOf(look), "ui-tree"), /^Notes @ /m);
    });

    await t.step(
      "a screen that never idles: [ui-tree] explains, [vision] still answers",
      async () => {
        small.faults.idleStateErrors(5, { evenCompressed: true });
        const look = await quirk("phone_look");
        small.faults.clear();
        assert.equal(look.isError, undefined);
        const text = textOf(look);
        assert.match(
          section(text, "ui-tree"),
          /UI tree unavailable: .*could not get idle state.*keeps animating/,
        );
        assert.match(section(text, "vision"), /^A chat screen/);
      },
    );

    await t.step(
      "a refused key: [vision] says so without the key, the tree comes back",
      async () => {
        server.set({ apiKey: "sk-test-the-right-one" });
        const look = await quirk("phone_look");
        server.set({ apiKey: key });
        assert.equal(look.isError, undefined);
        assert.match(
          section(textOf(look), "vision"),
          /HTTP 401.*key was refused.*PHONE_EYE_VISION_API_KEY/,
        );
        assert.match(section(textOf(look), "ui-tree"), /^Notes @ /m);
      },
    );

    await t.step("a 500 that echoes the Authorization header is reported scrubbed", async () => {
      server.set({ status: 500, echoAuthHeader: true });
      const look = await quirk("phone_look");
      assert.equal(look.isError, undefined);
      assert.match(section(textOf(look), "vision"), /HTTP 500/);
      assert.ok(server.requests.at(-1)?.headers.authorization?.includes(key), "the key was sent");

      small.faults.idleStateErrors(5, { evenCompressed: true });
      const both = await quirk("phone_look");
      small.faults.clear();
      server.set({ status: undefined, echoAuthHeader: undefined });
      assert.equal(both.isError, true, "both channels failed");
      assert.match(textOf(both), /Vision unavailable: .*HTTP 500/);
      assert.match(textOf(both), /UI tree unavailable: /);
    });

    await t.step("the key appears in no tool output and no log line", () => {
      assert.ok(r.outputs.length >= 12);
      for (const output of [...r.outputs, r.eye.stderr()]) {
        assert.ok(!output.includes(key) && !output.includes("SECRET"), output.slice(0, 500));
      }
    });

    await t.step("without PHONE_EYE_SHOTS nothing was written, here or on the phone", async () => {
      assert.deepEqual(tmp.written(), []);
      assert.deepEqual(await names(tmp.path), []);
      for (const sim of r.sims) assert.deepEqual(await deviceLeftovers(sim), []);
      assert.ok(r.outputs.every((o) => !o.includes("Saved to")));
    });
  },
);

testThroughEach(
  clients,
  "PHONE_EYE_SHOTS keeps the phone's PNG; with vision unconfigured the tree still comes back, through its quirks",
  async (t, adb) => {
    await using shotsDir = await tempDir("phone_eye_shots_");
    const shots = shotsDir.path;
    await using tmp = await watchedTmp();
    await using r = await rig(tmp, { adbBinary: adb, shotsDir: shots });
    await t.step("phone_shot saves the PNG exactly as the phone sent it", async () => {
      const shot = await r.call("phone_shot");
      assert.equal(shot.isError, undefined, textOf(shot));
      const files = await names(shots);
      assert.equal(files.length, 1);
      assert.match(files[0] ?? "", /^phone-eye-.*\.png$/);
      assert.match(textOf(shot), new RegExp(`Saved to ${shots}/${files[0]}\\.`));
      const saved = await Deno.readFile(`${shots}/${files[0]}`);
      assert.deepEqual(saved, await screenNow(r));
    });

    await t.step(
      "unconfigured vision names the env vars; the tree comes back; not an error",
      async () => {
        const look = await r.call("phone_look");
        assert.equal(look.isError, undefined);
        const text = textOf(look);
        assert.match(
          section(text, "vision"),
          /^Vision unavailable: not configured, so looks read the UI tree only; phone_shot shows you the screen .*PHONE_EYE_VISION_API_KEY .*PHONE_EYE_VISION_BASE_URL.*PHONE_EYE_VISION_URL.*Later looks say this in one line\.$/,
        );
        assert.match(section(text, "ui-tree"), /^Notes @ /m);
        // No screenshot was taken: the screen's size comes from the tree's root.
        assert.match(text, /^Screen: 1080×2400 device pixels\.\n/);
        assert.equal((await names(shots)).length, 1, "no screenshot taken for no one");
      },
    );

    await t.step("no vision and no tree: isError", async () => {
      r.sim.faults.idleStateErrors(5, { evenCompressed: true });
      const look = await r.call("phone_look");
      r.sim.faults.clear();
      assert.equal(look.isError, true);
      // The session's second look: one line for vision, and first words that say it failed.
      assert.match(
        textOf(look),
        /^Cannot see the screen: [^\n]*\n\n\[vision\]\nVision unavailable: not configured \(set PHONE_EYE_VISION_API_KEY or PHONE_EYE_VISION_URL; see the first look's note\)\n\n\[ui-tree\]\nUI tree unavailable/,
      );
    });

    // The tree's quirks, read here where a look reads nothing else (no vision, no screenshot).
    await t.step(
      "one idle-state error is retried with --compressed and the tree comes back",
      async () => {
        r.sim.faults.idleStateErrors(1);
        const look = await r.call("phone_look");
        r.sim.faults.clear();
        assert.equal(look.isError, undefined);
        assert.match(section(textOf(look), "ui-tree"), /^Notes @ /m);
        const dumps = r.sim.commands().filter((c) => c.startsWith("uiautomator dump")).slice(-2);
        assert.equal(dumps[0], "uiautomator dump /dev/tty");
        assert.equal(dumps[1], "uiautomator dump --compressed /dev/tty");
      },
    );

    await t.step(
      "the tree is one device command: a dump to /dev/tty, no file, no cat, no rm",
      async () => {
        const before = r.sim.commands().length;
        const look = await r.call("phone_look");
        assert.match(section(textOf(look), "ui-tree"), /^Notes @ /m);
        const tree = r.sim.commands().slice(before).filter((c) => c.includes("uiautomator"));
        assert.equal(tree.length, 1, tree.join("\n"));
        assert.equal(
          tree[0],
          "uiautomator dump /dev/tty",
          "exec-out: no shell, no file, no marker",
        );
      },
    );

    await t.step(
      "a dump cut by a dropped Wi-Fi link is read again after one reconnect",
      async () => {
        r.sim.faults.dropAfterNext("uiautomator");
        const before = r.sim.commands().length;
        const look = await r.call("phone_look");
        assert.match(section(textOf(look), "ui-tree"), /^Notes @ /m);
        const dumps = r.sim.commands().slice(before).filter((c) => c.includes("uiautomator"));
        assert.deepEqual(dumps, ["uiautomator dump /dev/tty", "uiautomator dump /dev/tty"]);
      },
    );

    // Last: from here on this server dumps to a file first.
    await t.step(
      "a ROM that refuses /dev/tty: the tree comes from a fresh file, removed, and later looks go there first",
      async () => {
        r.sim.faults.ttyDumpRefused(true);
        const before = r.sim.commands().length;
        const look = await r.call("phone_look");
        assert.equal(look.isError, undefined);
        assert.match(section(textOf(look), "ui-tree"), /^Notes @ /m);
        const again = await r.call("phone_look");
        assert.match(section(textOf(again), "ui-tree"), /^Notes @ /m);
        r.sim.faults.clear();
        const dumps = r.sim.commands().slice(before).filter((c) => c.includes("uiautomator"));
        assert.equal(dumps.length, 3, dumps.join("\n"));
        assert.equal(dumps[0], "uiautomator dump /dev/tty");
        for (const dump of dumps.slice(1)) {
          assert.match(
            dump,
            /^uiautomator dump '\/data\/local\/tmp\/phone-eye-[0-9a-f-]+\.xml' && cat /,
          );
        }
        assert.deepEqual(await deviceLeftovers(r.sim), []);
      },
    );

    await t.step("nothing else was written", async () => {
      assert.deepEqual(tmp.written(), []);
      assert.deepEqual(await deviceLeftovers(r.sim), []);
    });
  },
);

testThroughEach(
  clients,
  "phone_look over an MCP vision server reuses one session and survives its restart",
  async (t, adb) => {
    await using vision = closing(startMcpVisionServer());
    await using tmp = await watchedTmp();
    await using r = await rig(tmp, { adbBinary: adb, env: { PHONE_EYE_VISION_URL: vision.url } });
    await t.step("two looks, one handshake, one session", async () => {
      for (let i = 0; i < 2; i++) {
        const look = await r.call("phone_look", { question: `look ${i}` });
        assert.equal(look.isError, undefined, textOf(look));
        assert.match(section(textOf(look), "vision"), /^A chat screen/);
        assert.match(section(textOf(look), "ui-tree"), /^Notes @ /m);
      }
      assert.equal(vision.handshakes, 1);
      assert.equal(vision.calls.length, 2);
      assert.equal(vision.calls[0]?.sessionId, vision.calls[1]?.sessionId);
      assert.match(vision.calls[1]?.prompt ?? "", /1080×2400 device pixels[\s\S]*look 1$/);
      assert.equal(Math.max(vision.calls[1]!.image.width, vision.calls[1]!.image.height), 1568);
    });

    await t.step("after the vision server restarts, the next look still answers", async () => {
      await vision.restart();
      const look = await r.call("phone_look");
      assert.equal(look.isError, undefined);
      assert.match(section(textOf(look), "vision"), /^A chat screen/);
      assert.equal(vision.handshakes, 2);
      assert.equal(vision.calls.length, 3);
    });

    await t.step(
      "a vision server that is down: [vision] says so, the tree comes back",
      async () => {
        await vision.stop();
        const look = await r.call("phone_look");
        assert.equal(look.isError, undefined);
        assert.match(
          section(textOf(look), "vision"),
          /Vision unavailable: Cannot reach http:\/\/127\.0\.0\.1:\d+: connection refused.*PHONE_EYE_VISION_URL/,
        );
        assert.match(section(textOf(look), "ui-tree"), /^Notes @ /m);
      },
    );
  },
);
