// The simulated phone, checked through the real adb client (Debian's adb 29) on an isolated
// adb server, plus its pure parts (wire format, argv log, screen model) as unit tests.

import assert from "node:assert/strict";
import { decode, encode } from "fast-png";
import { readPngStream } from "../../lib/image/png_decode.ts";
import { frameNeeds, type SimPhone, type SimPhoneOptions } from "../../sim/sim_phone.ts";
import {
  amMonkeyPm,
  execOut,
  inputErrors,
  quote,
  SAMPLE_VERSIONS,
  secureWindow,
  shell,
  type VersionCheck,
} from "./version_checks.ts";
import { type AdbHarness, startAdbHarness } from "../helpers/adb_harness.ts";
import { startRig } from "../helpers/rig.ts";
import { waitFor } from "../helpers/wait_for.ts";
import {
  A_OKAY,
  byteSum,
  encodeMessage,
  MessageReader,
  parseService,
  SHELL_EXIT,
  shellPacket,
} from "../../sim/wire.ts";
import { CallLogParser } from "../../sim/tools.ts";
import { initialState, type Size } from "../../sim/screen.ts";
import { applyToolCall } from "../../sim/screen_input.ts";
import { layout } from "../../sim/screen_layout.ts";
import { encodePng, escapeXmlAttr, halfDrawn, renderPixels, renderXml } from "../../sim/render.ts";
import {
  delayFor,
  faultControls,
  hangFor,
  mentions,
  noFaults,
  NULL_ROOT_ERROR,
  takeEarlyDrop,
  takeLateDrop,
  truncationFor,
} from "../../sim/faults.ts";

// ---- helpers ----

// One adb server for the file: each test connects fresh phones to it and disconnects them at its
// end (helpers/rig.ts, adbServer), so no test sees another's phone.
let adbServer: AdbHarness | undefined;
Deno.test.beforeAll(async () => {
  adbServer = await startAdbHarness();
});
Deno.test.afterAll(async () => {
  await adbServer?.close();
});

async function withPhone(
  opts: SimPhoneOptions,
  fn: (sim: SimPhone, adb: AdbHarness) => Promise<void>,
): Promise<void> {
  await using rig = await startRig({ phones: [opts], phoneEye: false, adbServer: adbServer! });
  await fn(rig.sim, rig.adb);
}

type PhoneCheck = (sim: SimPhone, adb: AdbHarness) => Promise<void>;

// Checks that leave the phone online share one default phone (and its adb connection), each a
// step of one test (see the end of the file): connecting and dropping a phone per check cost
// more than the checks. Each step starts from a reset phone (home screen, no faults, no marker)
// and reads the sim's logs from where they stood when it began, so steps do not depend on order.
// Checks whose faults leave the phone offline keep a phone of their own (withPhone).
const onDefault: Array<[string, PhoneCheck]> = [];
function onDefaultPhone(name: string, check: PhoneCheck): void {
  onDefault.push([name, check]);
}

/** Back to how a new phone starts: home screen, no faults, no marker, empty device storage. */
async function resetPhone(sim: SimPhone): Promise<void> {
  sim.faults.clear();
  await sim.setScreen(initialState());
  await Deno.remove(sim.marker).catch((e) => {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  });
  for (const folder of ["sdcard", "data/local/tmp"]) {
    for await (const entry of Deno.readDir(`${sim.root}/${folder}`)) {
      await Deno.remove(`${sim.root}/${folder}/${entry.name}`, { recursive: true });
    }
  }
}

/** What a PNG's IHDR says (the signature's 8 bytes, then the chunk's length and type, then it). */
function pngHeader(png: Uint8Array) {
  const view = new DataView(png.buffer, png.byteOffset + 16, 10);
  return {
    width: view.getUint32(0),
    height: view.getUint32(4),
    depth: view.getUint8(8),
    colourType: view.getUint8(9),
  };
}

function endsWithIend(png: Uint8Array): boolean {
  const tail = new TextDecoder("latin1").decode(png.subarray(png.length - 8, png.length - 4));
  return tail === "IEND";
}

/** Centre of the first node whose text is `label`, from uiautomator XML. */
function centreOf(xml: string, label: string): [number, number] {
  const m = new RegExp(`text="${label}"[^>]*bounds="\\[(\\d+),(\\d+)\\]\\[(\\d+),(\\d+)\\]"`).exec(
    xml,
  );
  assert.ok(m, `no node with text="${label}" in the dump`);
  const [x1, y1, x2, y2] = m.slice(1).map(Number) as [number, number, number, number];
  return [Math.round((x1 + x2) / 2), Math.round((y1 + y2) / 2)];
}

async function dump(adb: AdbHarness, sim: SimPhone): Promise<string> {
  const r = await shell(
    adb,
    sim,
    "uiautomator dump /data/local/tmp/ui.xml >/dev/null && cat /data/local/tmp/ui.xml",
  );
  assert.equal(r.code, 0, r.stderr);
  return r.stdout;
}

const permissions = "none" as const;

// ---- pure units ----

Deno.test({
  name: "wire messages round-trip with magic and payload checksum",
  permissions,
  fn() {
    const bytes = encodeMessage({
      command: A_OKAY,
      arg0: 7,
      arg1: 9,
      data: new Uint8Array([1, 2, 250]),
    });
    assert.equal(bytes.length, 27);
    const view = new DataView(bytes.buffer);
    assert.equal(view.getUint32(16, true), 253);
    assert.equal(view.getUint32(20, true), (A_OKAY ^ 0xffffffff) >>> 0);
    const reader = new MessageReader();
    assert.deepEqual(reader.push(bytes.subarray(0, 10)), []);
    const [msg] = reader.push(bytes.subarray(10));
    assert.deepEqual(msg, { command: A_OKAY, arg0: 7, arg1: 9, data: new Uint8Array([1, 2, 250]) });
    bytes[20] = 0;
    assert.throws(() => new MessageReader().push(bytes), /bad adb header/);
  },
});

Deno.test({
  name: "the payload checksum, summed a word at a time, is the byte sum mod 2^32",
  permissions,
  fn() {
    const bytes = new Uint8Array(70_001);
    let r = 12345;
    for (let i = 0; i < bytes.length; i++) {
      r = (r * 1103515245 + 12345) >>> 0;
      bytes[i] = r >>> 24;
    }
    bytes.fill(255, 1000, 9000); // lanes at their fullest
    for (const [from, to] of [[0, 0], [0, 3], [1, 70_001], [2, 9001], [3, 70_000], [0, 70_001]]) {
      const part = bytes.subarray(from, to);
      assert.equal(byteSum(part), part.reduce((a, b) => a + b, 0) >>> 0, `${from}..${to}`);
    }
    assert.equal(byteSum(new Uint8Array(17_000_000).fill(255)), (17_000_000 * 255) % 2 ** 32);
  },
});

Deno.test({
  name: "parseService tells legacy shell, shell_v2 and exec apart",
  permissions,
  fn() {
    const enc = (s: string) => new TextEncoder().encode(`${s}\0`);
    assert.deepEqual(parseService(enc("shell:echo a:b")), {
      kind: "shell",
      command: "echo a:b",
      v2: false,
      pty: false,
      options: [],
    });
    const v2 = parseService(enc("shell,v2,TERM=xterm,raw:ls"));
    assert.equal(v2.kind === "shell" && v2.v2 && !v2.pty && v2.command, "ls");
    assert.deepEqual(parseService(enc("exec:screencap -p")), {
      kind: "exec",
      command: "screencap -p",
    });
    assert.deepEqual(parseService(enc("sync:")), { kind: "other", name: "sync:" });
    assert.deepEqual([...shellPacket(SHELL_EXIT, new Uint8Array([3]))], [3, 1, 0, 0, 0, 3]);
  },
});

Deno.test({
  name: "the argv log parser keeps argument bytes and waits for half-written records",
  permissions,
  fn() {
    const rec = (...f: string[]) => new TextEncoder().encode(f.map((x) => `${x}\0`).join(""));
    const p = new CallLogParser();
    const one = rec("4", "2", "input", "text", "a b\n'\"$(x) é");
    const two = rec("5", "0", "screencap");
    const both = new Uint8Array([...one, ...two]);
    assert.deepEqual(p.push(both.subarray(0, one.length + 3)), [
      { cmdId: 4, tool: "input", argv: ["text", "a b\n'\"$(x) é"] },
    ]);
    assert.deepEqual(p.push(both.subarray(one.length + 3)), [
      { cmdId: 5, tool: "screencap", argv: [] },
    ]);
  },
});

Deno.test({
  name: "screen model: tapping the Notes icon opens Notes and input text decodes %s",
  permissions,
  fn() {
    const size = { width: 1080, height: 2400 };
    const state = initialState();
    const [x, y] = centreOf(renderXml(layout(state, size), { compressed: false }), "Notes");
    applyToolCall(state, size, "input", ["tap", String(x), String(y)]);
    assert.equal(state.app, "notes");
    applyToolCall(state, size, "input", ["text", "100%sfine"]);
    applyToolCall(state, size, "input", ["keyevent", "KEYCODE_DEL"]);
    assert.equal(state.notesText, "100 fin");
    applyToolCall(state, size, "input", ["keyevent", "4"]);
    assert.equal(state.app, "home");
    assert.equal(escapeXmlAttr(`a&<>"\n`), "a&amp;&lt;&gt;&quot;&#10;");
  },
});

Deno.test({
  name: "fault rules: each armed fault applies to the commands it names, once when one-shot",
  permissions,
  fn() {
    const written: Record<string, string | Uint8Array | null> = {};
    const done: string[] = [];
    const state = noFaults();
    const faults = faultControls(state, {
      dropAll: () => done.push("dropAll"),
      refuse: (ms) => done.push(`refuse ${ms}`),
      stopRefusing: () => done.push("stopRefusing"),
      writeStateFile: (name, content) => void (written[name] = content),
    });
    const call = (tool: string, ...argv: string[]) => ({ cmdId: 1, tool, argv });

    assert.ok(mentions("input tap 1 2", "input"));
    assert.ok(!mentions("/system/bin/input tap 1 2", "input"));
    assert.ok(!mentions("inputs", "input"));

    faults.dropAfterNext("input", { beforeOpenAck: true });
    assert.ok(!takeEarlyDrop(state, "echo input-less"));
    assert.ok(takeEarlyDrop(state, "input keyevent 4"));
    assert.ok(!takeEarlyDrop(state, "input keyevent 4"), "one-shot");

    faults.dropAfterNext("screencap");
    assert.ok(!takeLateDrop(state, "echo screencap", []), "by tool actually run, not text");
    assert.ok(takeLateDrop(state, "sh -c x", [call("screencap", "-p")]));
    faults.dropAfterNext(/^uiautomator/);
    assert.ok(takeLateDrop(state, "uiautomator dump", []));

    faults.hang(/dump/, { execute: true });
    assert.equal(hangFor(state, "uiautomator dump")?.execute, true);
    assert.equal(hangFor(state, "echo"), undefined);

    faults.latency(100);
    faults.latency(700, "input");
    assert.equal(delayFor(state, "echo"), 100);
    assert.equal(delayFor(state, "input tap 1 1"), 700);

    faults.truncatePng(true);
    assert.deepEqual(truncationFor(state, [call("screencap", "-p")]), { dropLink: true });
    assert.equal(truncationFor(state, [call("screencap", "-p", "/sdcard/x.png")]), null);
    assert.equal(truncationFor(state, [call("screencap")]), null);

    faults.emptyPng(true, { headerOnly: true });
    faults.idleStateErrors(2, { evenCompressed: true });
    assert.deepEqual(written, {
      fault_empty_png: "header",
      fault_idle_errors: "2",
      fault_idle_even_compressed: "1",
      fault_idle_message: "ERROR: could not get idle state.\n",
    });
    faults.pngTextChunk(8);
    const chunk = (written as Record<string, unknown>).fault_png_chunk as Uint8Array;
    assert.equal(chunk.length, 12 + 8, "length, type, 8 bytes of body, CRC");
    assert.equal(new TextDecoder().decode(chunk.subarray(0, 16)), "\0\0\0\btEXtComment\0");
    faults.dropNow();
    faults.refuseConnections(50);
    faults.clear();
    assert.deepEqual(state, noFaults());
    assert.ok(Object.values(written).every((content) => content === null));
    assert.deepEqual(done, ["dropAll", "refuse 50", "stopRefusing"]);
  },
});

Deno.test({
  name: "the sim's PNG holds the rendered pixels, as fast-png and phone-eye's decoder read them",
  permissions,
  async fn() {
    const draw = (patch: Partial<ReturnType<typeof initialState>>, size: Size, black = false) =>
      renderPixels(layout({ ...initialState(), ...patch }, size), size, { black });
    // The largest first: the encoder's row buffer is then reused by smaller frames.
    const large = { width: 540, height: 1200 };
    const small = { width: 270, height: 600 };
    const canvases = [
      draw({}, large),
      draw({ app: "notes", notesText: "naïve ‘quotes’ ✓" }, small),
      draw({ app: "gallery" }, small), // a noisy photo: what deflate cannot shrink
      halfDrawn(draw({ app: "settings" }, small), draw({}, small)),
      draw({}, { width: 7, height: 3 }, true),
    ];
    for (const c of canvases) {
      const at = `${c.width}x${c.height}`;
      const png = encodePng(c);
      const mine = decode(png);
      assert.deepEqual([mine.width, mine.height, mine.channels, mine.depth], [
        c.width,
        c.height,
        4,
        8,
      ]);
      assert.ok(sameBytes(mine.data as Uint8Array, c.data), at);
      if (c.width < large.width) {
        // The frames fast-png wrote before decode to the same pixels.
        const old = encode({ width: c.width, height: c.height, data: c.data, channels: 4 });
        assert.ok(sameBytes(decode(old).data as Uint8Array, mine.data as Uint8Array), at);
      }
      const frame = await readPngStream(png);
      assert.ok(sameBytes(frame.image.data, c.data), at);
    }
  },
});

Deno.test({
  name: "only a plain screencap -p spares the sim its 10 MB raw frame",
  permissions,
  fn() {
    const needs = (command: string) => {
      const { png, raw } = frameNeeds(command);
      return png ? (raw ? "png+raw" : "png") : "none";
    };
    assert.equal(needs("uiautomator dump /dev/tty"), "none");
    assert.equal(needs("screencap -p"), "png");
    assert.equal(needs("screencap -p /sdcard/s.png; echo $?; cat /sdcard/s.png"), "png");
    assert.equal(needs("screencap"), "png+raw");
    assert.equal(needs("screencap /sdcard/s.png"), "png+raw", "a .png file, but unsure: both");
    assert.equal(needs("screencap -d -p"), "png+raw", "-p is the display id");
    assert.equal(needs("screencap -p\nscreencap"), "png+raw");
    assert.equal(needs('screencap -p; screencap "$x"'), "png+raw");
    assert.equal(needs("sh -c 'screencap -p'"), "png+raw");
    assert.equal(needs("screencap -p 2>/dev/null"), "png+raw");
    assert.equal(needs("myscreencap -p"), "png+raw");
  },
});

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// ---- through real adb ----

onDefaultPhone("adb connects to the sim and runs shell commands", async (sim, adb) => {
  const [commands, services] = [sim.commands().length, sim.services().length];
  const devices = await adb.adb("devices", "-l");
  assert.match(devices.stdout, new RegExp(`${sim.serial}\\s+device .*model:SimPhone`));
  const r = await adb.adb("-s", sim.serial, "shell", "echo", "hi");
  assert.deepEqual(r, { code: 0, stdout: "hi\n", stderr: "" });
  assert.deepEqual(sim.commands().slice(commands), ["echo hi"]);
  assert.match(sim.services()[services] ?? "", /^shell,v2,(.*,)?raw:echo hi$/);
  assert.equal(sim.services().length, services + 1);
  assert.equal((await shell(adb, sim, "getprop ro.build.version.sdk")).stdout, "34\n");
  assert.equal((await shell(adb, sim, "wm size")).stdout, "Physical size: 1080x2400\n");
});

onDefaultPhone(
  "shell_v2 carries exit status and separate stderr; exec-out merges them",
  async (sim, adb) => {
    const r = await shell(adb, sim, "echo out; echo err >&2; exit 7");
    assert.deepEqual(r, { code: 7, stdout: "out\n", stderr: "err\n" });
    const x = await execOut(adb, sim, "echo out; echo err >&2; exit 7");
    assert.equal(x.code, 0);
    assert.equal(new TextDecoder().decode(x.stdout), "out\nerr\n");
  },
);

Deno.test("legacy shell (no shell_v2) gives no exit status and merges stderr", async () => {
  await withPhone({ shellV2: false }, async (sim, adb) => {
    const r = await shell(adb, sim, "echo out; echo err >&2; exit 7");
    assert.deepEqual(r, { code: 0, stdout: "out\nerr\n", stderr: "" });
    assert.match(sim.services()[0] ?? "", /^shell:/);
    const am = await shell(adb, sim, "am start -a android.intent.action.VIEW -d nope:x");
    assert.equal(am.code, 0);
    assert.match(
      am.stdout,
      /Error: Activity not started, unable to resolve Intent \{ act=android\.intent\.action\.VIEW dat=nope:x flg=0x10000000 \}/,
    );
  });
});

// One phone of another size for both checks that read whole frames.
Deno.test("a 720x1600 phone's frames (a step per check)", async (t) => {
  await withPhone({ width: 720, height: 1600 }, async (sim, adb) => {
    await t.step(
      "exec-out screencap -p is a byte-exact PNG of the screen size; raw screencap has a header",
      async () => {
        const png = await execOut(adb, sim, "screencap -p");
        assert.equal(png.code, 0);
        assert.ok(endsWithIend(png.stdout));
        assert.deepEqual(png.stdout, await Deno.readFile(`${sim.root}/.sim/screen.png`));
        assert.deepEqual(pngHeader(png.stdout), {
          width: 720,
          height: 1600,
          depth: 8,
          colourType: 6,
        });
        const img = (await readPngStream(png.stdout)).image;
        const viaFile = await execOut(adb, sim, "screencap -p /sdcard/s.png && cat /sdcard/s.png");
        assert.deepEqual(viaFile.stdout, png.stdout);
        const raw = await execOut(adb, sim, "screencap");
        const view = new DataView(raw.stdout.buffer, raw.stdout.byteOffset);
        assert.deepEqual([
          view.getUint32(0, true),
          view.getUint32(4, true),
          view.getUint32(8, true),
        ], [
          720,
          1600,
          1,
        ]);
        assert.equal(raw.stdout.length, 16 + 720 * 1600 * 4);
        assert.deepEqual(raw.stdout.subarray(16), img.data);
      },
    );
    await t.step("fault blackScreen: frames are black, the UI tree is not", async () => {
      sim.faults.blackScreen(true);
      const img = (await readPngStream((await execOut(adb, sim, "screencap -p")).stdout)).image;
      assert.ok(img.data.every((v, i) => i % 4 === 3 ? v === 255 : v === 0));
      centreOf(await dump(adb, sim), "Notes");
      sim.faults.clear();
    });
  });
});

onDefaultPhone(
  "uiautomator dump and cat in one command return XML matching the screen",
  async (sim, adb) => {
    const r = await shell(
      adb,
      sim,
      "uiautomator dump /data/local/tmp/x.xml && cat /data/local/tmp/x.xml; rm -f /data/local/tmp/x.xml",
    );
    assert.equal(r.code, 0);
    assert.ok(
      r.stdout.startsWith("UI hierchary dumped to: /data/local/tmp/x.xml\n<?xml version='1.0'"),
    );
    assert.match(
      r.stdout,
      /<hierarchy rotation="0"><node index="0" text="" resource-id="" class="android\.widget\.FrameLayout" package="com\.android\.launcher3"/,
    );
    for (const label of ["Notes", "Settings", "Browser", "Camera"]) centreOf(r.stdout, label);
    const gone = await shell(adb, sim, "cat /data/local/tmp/x.xml");
    assert.deepEqual(gone, {
      code: 1,
      stdout: "",
      stderr: "cat: /data/local/tmp/x.xml: No such file or directory\n",
    });
    const tty = await shell(adb, sim, "uiautomator dump --compressed /dev/tty");
    assert.match(tty.stdout, /<\/hierarchy>UI hierchary dumped to: \/dev\/tty\n$/);
    assert.doesNotMatch(tty.stdout, /android:id\/content/);
    // A folder as FILE: the dump goes into it under the sim's own file name, as `cp` put it.
    const intoFolder = await shell(
      adb,
      sim,
      "uiautomator dump --compressed /data/local/tmp >/dev/null && cat /data/local/tmp/screen_compressed.xml",
    );
    assert.equal(`${intoFolder.stdout}UI hierchary dumped to: /dev/tty\n`, tty.stdout);
  },
);

Deno.test('the fake tools\' sim_slurp reads a state file as "$(cat FILE)" does', async () => {
  const dir = await Deno.makeTempDir({ prefix: "phone_eye_slurp_" });
  try {
    const contents = [
      "",
      "1\n",
      "1",
      "a\nb\n\n\n",
      "  lead \\n trail  \n",
      "x\\y\n\ttab\n\nz",
      "é\n",
    ];
    const files = contents.map((_, i) => `${dir}/f${i}`);
    for (const [i, text] of contents.entries()) await Deno.writeTextFile(files[i]!, text);
    const lib = new URL("../../sim/tools/sim_lib.sh", import.meta.url).pathname;
    const script = `. "${lib}"
for f in "$@"; do
  sim_slurp "$f"
  [ "$sim_text" = "$(cat "$f")" ] || echo "differs: $f"
done
sim_slurp "${dir}/missing" 2>/dev/null
[ -z "$sim_text" ] || echo "missing file: $sim_text"`;
    const out = await new Deno.Command("sh", {
      args: ["-c", script, "sh", ...files],
      env: { SIM_NORECORD: "1", SIM_STATE: dir },
    }).output();
    assert.deepEqual(
      [out.code, new TextDecoder().decode(out.stdout), new TextDecoder().decode(out.stderr)],
      [0, "", ""],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

onDefaultPhone(
  "fake tools record a hostile argument byte for byte and never run it",
  async (sim, adb) => {
    const payloads = [
      "a b;$(x)",
      `it's "quoted" \`id\` $(touch ${sim.marker}); touch ${sim.marker} & | > <`,
      "new\nline\ttab  two spaces é ✓ 😀",
      "%s%s\\n\\'",
    ];
    const seen = sim.toolCalls("input").length;
    for (const p of payloads) await shell(adb, sim, `input text ${quote(p)}`);
    assert.deepEqual(sim.toolCalls("input").slice(seen), payloads.map((p) => ["text", p]));
    // exec-out with several arguments quotes all but the first itself (adb 29).
    await adb.adb("-s", sim.serial, "exec-out", "input", "text", payloads[1] ?? "");
    assert.deepEqual(sim.toolCalls("input").at(-1), ["text", payloads[1]]);
    await assert.rejects(Deno.stat(sim.marker), Deno.errors.NotFound);
  },
);

onDefaultPhone(
  "the injection marker is real: an unquoted payload does run on the sim's sh",
  async (sim, adb) => {
    const seen = sim.toolCalls("input").length;
    await shell(adb, sim, `input text a; touch ${sim.marker}`);
    assert.ok((await Deno.stat(sim.marker)).isFile);
    assert.deepEqual(sim.toolCalls("input").slice(seen), [["text", "a"]]);
  },
);

onDefaultPhone(
  "tapping the Notes icon then typing shows the text in the next dump",
  async (sim, adb) => {
    const [x, y] = centreOf(await dump(adb, sim), "Notes");
    await shell(adb, sim, `input tap ${x} ${y}`);
    assert.equal(sim.screen().name, "notes");
    await shell(adb, sim, "input text 'hello%sworld&<'");
    assert.equal(sim.screen().text, "hello world&<");
    const xml = await dump(adb, sim);
    assert.match(
      xml,
      /text="hello world&amp;&lt;" resource-id="com\.android\.notes:id\/note_text" class="android\.widget\.EditText"[^>]* focused="true"/,
    );
    const png = await readPngStream((await execOut(adb, sim, "screencap -p")).stdout);
    assert.equal(png.width, 1080);
    await shell(adb, sim, "input keyevent KEYCODE_HOME");
    assert.equal(sim.screen().name, "home");
  },
);

onDefaultPhone(
  "Settings scrolls on swipe and am start opens the browser at a URL",
  async (sim, adb) => {
    await shell(adb, sim, "monkey -p com.android.settings -c android.intent.category.LAUNCHER 1");
    const before = centreOf(await dump(adb, sim), "Battery");
    await shell(adb, sim, "input swipe 540 1800 540 1200 300");
    assert.equal(sim.screen().scroll, 600);
    const after = centreOf(await dump(adb, sim), "Battery");
    assert.equal(after[1], before[1] - 600);
    const am = await shell(
      adb,
      sim,
      "am start -a android.intent.action.VIEW -d 'https://example.com/a?b=1'",
    );
    assert.equal(am.code, 0);
    assert.equal(
      am.stdout,
      "Starting: Intent { act=android.intent.action.VIEW dat=https://example.com/a?b=1 }\n",
    );
    assert.deepEqual([sim.screen().name, sim.screen().url], [
      "browser",
      "https://example.com/a?b=1",
    ]);
    const focus = await shell(adb, sim, "dumpsys window | grep mCurrentFocus");
    assert.match(focus.stdout, /com\.android\.browser\/com\.android\.browser\.BrowserActivity/);
  },
);

Deno.test("fault dropAfterNext: the tap happens, adb 29 still exits 0, then the device is offline", () =>
  withPhone({}, async (sim, adb) => {
    // Keep adb's automatic reconnect out until we look.
    sim.faults.refuseConnections(60_000);
    sim.faults.dropAfterNext("input");
    const tap = await shell(adb, sim, "input keyevent CAMERA");
    assert.equal(sim.screen().name, "camera");
    assert.deepEqual(tap, { code: 0, stdout: "", stderr: "" });
    const next = await shell(adb, sim, "echo hi");
    assert.equal(next.code, 1);
    assert.match(next.stderr, /error: device offline|error: closed/);
    const again = await adb.adb("connect", sim.serial);
    assert.match(again.stdout, /Connection refused|already connected/);
    sim.faults.clear();
    await adb.adb("disconnect", sim.serial);
    await adb.connect(sim.serial);
    assert.equal((await shell(adb, sim, "echo back")).stdout, "back\n");
  }));

Deno.test("fault dropAfterNext beforeOpenAck: the key press happens, adb says error: closed", () =>
  withPhone({}, async (sim, adb) => {
    sim.faults.refuseConnections(60_000);
    sim.faults.dropAfterNext("input", { beforeOpenAck: true });
    const key = await shell(adb, sim, "input keyevent CAMERA");
    assert.equal(sim.screen().name, "camera");
    assert.deepEqual(key, { code: 1, stdout: "", stderr: "error: closed\n" });
    await adb.waitForState(sim.serial, "offline");
  }));

Deno.test("fault dropNow plus refuseConnections: adb reports offline, then refused", () =>
  withPhone({}, async (sim, adb) => {
    sim.faults.refuseConnections(60_000);
    sim.faults.dropNow();
    await adb.waitForState(sim.serial, "offline");
    assert.match((await shell(adb, sim, "echo x")).stderr, /error: device offline/);
    await adb.adb("disconnect", sim.serial);
    const refused = await adb.adb("connect", sim.serial);
    assert.equal(refused.code, 0); // adb connect exits 0 even when it fails
    assert.equal(refused.stdout, `failed to connect to '${sim.serial}': Connection refused\n`);
    const missing = await shell(adb, sim, "echo x");
    assert.equal(missing.stderr, `error: device '${sim.serial}' not found\n`);
    sim.faults.clear();
    await adb.connect(sim.serial);
  }));

onDefaultPhone(
  "fault hang: a matching command never answers while others still run",
  async (sim, adb) => {
    const [commands, dumps] = [sim.commands().length, sim.toolCalls("uiautomator").length];
    sim.faults.hang(/uiautomator/);
    const child = new Deno.Command("adb", {
      args: ["-s", sim.serial, "shell", "uiautomator dump"],
      env: adb.env,
      clearEnv: true,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    let answered = false;
    const ended = child.status.then(() => answered = true);
    // The dump reached the phone; a command sent after it is answered while the dump still is not.
    await waitFor(
      () => sim.commands().slice(commands).includes("uiautomator dump"),
      "the dump to reach the phone",
    );
    const other = await shell(adb, sim, "echo alive");
    assert.equal(other.stdout, "alive\n");
    assert.equal(answered, false, "the hung dump was answered");
    child.kill("SIGKILL");
    await ended;
    assert.equal(sim.toolCalls("uiautomator").length, dumps);
    assert.ok(sim.commands().slice(commands).includes("uiautomator dump"));
  },
);

onDefaultPhone("fault latency delays only commands that use the named tool", async (sim, adb) => {
  const seen = sim.commands().length;
  sim.faults.latency(700, "input");
  const order: string[] = [];
  const slow = shell(adb, sim, "input tap 1 1").then(() => order.push("input"));
  await waitFor(
    () => sim.commands().slice(seen).includes("input tap 1 1"),
    "the slow command to arrive",
  );
  await shell(adb, sim, "echo quick").then(() => order.push("echo"));
  await slow;
  assert.deepEqual(order, ["echo", "input"]);
});

onDefaultPhone(
  "fault emptyPng: screencap -p is empty or header-only while raw screencap works",
  async (sim, adb) => {
    sim.faults.emptyPng(true);
    const empty = await execOut(adb, sim, "screencap -p");
    assert.deepEqual([empty.code, empty.stdout.length], [0, 0]);
    sim.faults.emptyPng(true, { headerOnly: true });
    const header = await execOut(adb, sim, "screencap -p");
    assert.ok(endsWithIend(header.stdout));
    assert.ok(header.stdout.length < 100);
    assert.throws(() => decode(header.stdout));
    const raw = await execOut(adb, sim, "screencap");
    assert.equal(raw.stdout.length, 16 + 1080 * 2400 * 4);
    sim.faults.clear();
    const whole = (await execOut(adb, sim, "screencap -p")).stdout;
    assert.equal((await readPngStream(whole)).width, 1080);
  },
);

onDefaultPhone(
  "fault idleStateErrors: the dump fails n times, exits 0 and leaves the old file",
  async (sim, adb) => {
    await shell(adb, sim, "uiautomator dump");
    await shell(adb, sim, "input keyevent CAMERA");
    sim.faults.idleStateErrors(2);
    const failed = await shell(adb, sim, "uiautomator dump && cat /sdcard/window_dump.xml");
    assert.equal(failed.code, 0);
    assert.ok(failed.stderr === "ERROR: could not get idle state.\n");
    // Stale: the file still shows the home screen although Camera is open.
    assert.match(
      (await shell(adb, sim, "cat /sdcard/window_dump.xml")).stdout,
      /com\.android\.launcher3/,
    );
    const compressed = await shell(adb, sim, "uiautomator dump --compressed /dev/tty");
    assert.match(compressed.stdout, /com\.android\.camera2/);
    assert.equal(
      (await shell(adb, sim, "uiautomator dump /dev/tty")).stderr,
      "ERROR: could not get idle state.\n",
    );
    assert.match(
      (await shell(adb, sim, "uiautomator dump /dev/tty")).stdout,
      /com\.android\.camera2/,
    );
    sim.faults.idleStateErrors(1, { evenCompressed: true });
    const both = await shell(adb, sim, "uiautomator dump --compressed /dev/tty");
    assert.deepEqual([both.stdout, both.stderr], ["", "ERROR: could not get idle state.\n"]);
  },
);

onDefaultPhone(
  "fault ttyDumpRefused: a dump to /dev/tty prints only its dumped-to line, files still work",
  async (sim, adb) => {
    const tty = await shell(adb, sim, "uiautomator dump /dev/tty");
    assert.match(tty.stdout, /^<\?xml .*<\/hierarchy>UI hierchary dumped to: \/dev\/tty\n$/s);
    sim.faults.ttyDumpRefused(true);
    const refused = await shell(adb, sim, "uiautomator dump /dev/tty");
    assert.deepEqual([refused.code, refused.stdout, refused.stderr], [
      0,
      "UI hierchary dumped to: /dev/tty\n",
      "",
    ]);
    const file = await shell(
      adb,
      sim,
      "uiautomator dump /data/local/tmp/t.xml && cat /data/local/tmp/t.xml",
    );
    assert.match(file.stdout, /<\/hierarchy>$/);
    sim.faults.clear();
    assert.match((await shell(adb, sim, "uiautomator dump /dev/tty")).stdout, /<hierarchy /);
  },
);

Deno.test("fault truncatePng: exec-out exits 0 with half a PNG, with or without the link dying", () =>
  withPhone({}, async (sim, adb) => {
    const whole = (await execOut(adb, sim, "screencap -p")).stdout;
    sim.faults.truncatePng(true, { dropLink: false });
    const cut = await execOut(adb, sim, "screencap -p");
    assert.equal(cut.code, 0);
    assert.equal(cut.stdout.length, Math.floor(whole.length / 2));
    assert.ok(!endsWithIend(cut.stdout));
    assert.equal(await adb.state(sim.serial), "device");
    sim.faults.refuseConnections(60_000);
    sim.faults.truncatePng(true);
    const dead = await execOut(adb, sim, "screencap -p");
    assert.deepEqual([dead.code, dead.stdout.length], [0, Math.floor(whole.length / 2)]);
    await adb.waitForState(sim.serial, "offline");
  }));

onDefaultPhone(
  "services the phone does not offer are refused with error: closed",
  async (sim, adb) => {
    const r = await adb.adb("-s", sim.serial, "shell");
    assert.deepEqual([r.code, r.stderr], [1, "error: closed\n"]);
    assert.equal((await shell(adb, sim, "echo still")).stdout, "still\n");
  },
);

Deno.test("deno task sim runs under the sim permission set and stops cleanly on SIGINT", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-P=sim", "--no-prompt", "sim/main.ts", "--android", "10", "--port", "0"],
    cwd: new URL("../..", import.meta.url),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("Ctrl-C")) {
    const { value, done } = await lines.read();
    if (done) break;
    text += value;
  }
  const serial = /listening on (127\.0\.0\.1:\d+)/.exec(text)?.[1];
  // The file's adb server: connected here, disconnected before the sim stops.
  const adb = adbServer!;
  try {
    assert.ok(serial, `no serial in: ${text}`);
    assert.match(text, new RegExp(`claude mcp add phone-eye --env ANDROID_SERIAL=${serial} -- `));
    assert.match(text, /Android 10, shell_v2/);
    await adb.connect(serial);
    const sdk = await adb.adb("-s", serial, "shell", "getprop ro.build.version.sdk");
    assert.equal(sdk.stdout, "29\n");
  } finally {
    if (serial) {
      await adb.adb("disconnect", serial);
      await adb.waitForState(serial, null);
    }
    child.kill("SIGINT");
    for (;;) {
      const { value, done } = await lines.read();
      if (done) break;
      text += value;
    }
    const status = await child.status;
    await child.stderr.cancel();
    assert.equal(status.code, 0);
    assert.match(text, /stopped after 1 commands/);
  }
});

Deno.test("deno task sim refuses an Android version it does not model", async () => {
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-P=sim", "--no-prompt", "sim/main.ts", "--android", "9"],
    cwd: new URL("../..", import.meta.url),
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.equal(code, 2);
  assert.match(
    new TextDecoder().decode(stderr),
    /--android must be one of 10, 11, 12, 13, 14, 15, got "9"/,
  );
});

onDefaultPhone(
  "commands running at once each record their own calls exactly once",
  async (sim, adb) => {
    const seen = sim.toolCalls("input").length;
    await Promise.all(
      Array.from({ length: 12 }, (_, i) => shell(adb, sim, `input keyevent ${100 + i}`)),
    );
    const codes = sim.toolCalls("input").slice(seen).map((c) => c[1]).sort();
    assert.deepEqual(codes, Array.from({ length: 12 }, (_, i) => String(100 + i)).sort());
  },
);

// ---- per Android version (sim/android.ts; docs/android.md, versions at a glance) ----

Deno.test("Android versions answer as AOSP's do, a version of each behaviour (a phone per version)", async (t) => {
  await using rig = await startRig({
    phones: SAMPLE_VERSIONS.map((androidVersion) => ({ androidVersion })),
    phoneEye: false,
    adbServer: adbServer!,
  });
  const checks: Array<[string, VersionCheck]> = [
    ["input's bad command lines, each version its own way", inputErrors],
    ["am start, monkey and the package manager", amMonkeyPm],
    [
      "a secure window: Android 10-14 refuse the capture silently, 15 paints it black",
      secureWindow,
    ],
  ];
  for (const [name, check] of checks) {
    await t.step(name, async () => {
      for (const [i, v] of SAMPLE_VERSIONS.entries()) {
        const sim = rig.sims[i]!;
        await resetPhone(sim);
        await check(v, sim, rig.adb);
      }
    });
  }
});

onDefaultPhone(
  "screencap -h, an unknown option or two file names print the usage and exit 1",
  async (sim, adb) => {
    for (const args of ["-h", "-x", "a.png b.png"]) {
      const r = await shell(adb, sim, `screencap ${args}`);
      assert.equal(r.code, 1, args);
      assert.equal(r.stdout, "", args);
      assert.match(
        r.stderr,
        /^(screencap: invalid option -- 'x'\n)?usage: screencap \[-hp\] \[-d display-id\] \[FILENAME\]\n/,
        args,
      );
    }
  },
);

onDefaultPhone(
  "fault idleStateErrors with the null-root message: exit 0, no file, the message on stderr",
  async (sim, adb) => {
    sim.faults.idleStateErrors(1, { message: NULL_ROOT_ERROR });
    const r = await shell(adb, sim, "uiautomator dump /sdcard/d.xml; ls /sdcard");
    assert.deepEqual(r, { code: 0, stdout: "", stderr: `${NULL_ROOT_ERROR}\n` });
  },
);

Deno.test("the default phone through real adb (one phone, a step per check)", async (t) => {
  await using rig = await startRig({ phones: [{}], phoneEye: false, adbServer: adbServer! });
  for (const [name, check] of onDefault) {
    await t.step(name, async () => {
      await resetPhone(rig.sim);
      await check(rig.sim, rig.adb);
    });
  }
});
