// Tier 3: main.ts as a subprocess under the production permission set, the real adb client, and
// the simulated phone over TCP, driven by the SDK's client over stdio.

import assert from "node:assert/strict";
import { textOf } from "../helpers/in_process.ts";
import { adbServerPerClient, type Rig, startRig, type ToolResult } from "../helpers/rig.ts";
import { type PhoneEyeProcess, startPhoneEye } from "../helpers/phone_eye.ts";
import { sharedFixture } from "../helpers/shared_fixture.ts";
import { adbClients, systemClient, testThroughEach } from "../helpers/adb_clients.ts";
import type { SimPhone } from "../../sim/sim_phone.ts";
import { hostileSample, sendHostile } from "../helpers/hostile_through_adb.ts";
import { inputTextProblem } from "../../lib/adb/input_commands.ts";

// The tests where the adb client matters (its error strings, its reconnects, how it stops) run
// once per client: the one on PATH and adb 34 when CI built it (helpers/adb_clients.ts). The verbs
// and the hostile strings arrive the same through any client and run through the one on PATH.
// Per client, the scenarios that need the same phones and the same phone-eye settings are steps of
// one test, sharing one phone-eye, and tests whose phones one phone-eye can serve share it
// (helpers/shared_fixture.ts): a phone-eye start is most of what an end-to-end test costs.
const { clients } = await adbClients();
const onPath = systemClient(clients);
const adbServer = adbServerPerClient(clients.map((c) => c.binary));

/** A tool call's verdict and text. */
async function said(
  rig: Pick<Rig, "call">,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ isError: boolean; text: string }> {
  const result = await rig.call(name, args);
  return { isError: result.isError === true, text: textOf(result) };
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

/** A port nothing listens on: a Wi-Fi address whose phone is gone. */
function deadAddress(): string {
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (closed.addr as Deno.NetAddr).port;
  closed.close();
  return `127.0.0.1:${port}`;
}

/** The listed phones' fixture: a Wi-Fi phone, a legacy-shell one, a dead address and a typo. */
interface Listed extends AsyncDisposable {
  r: Rig;
  eye: PhoneEyeProcess;
  wifi: SimPhone;
  legacy: SimPhone;
  dead: string;
  typo: string;
}

async function startListed(adb: string): Promise<Listed> {
  const stack = new AsyncDisposableStack();
  try {
    const dead = deadAddress();
    const typo = "R58M123ABC";
    const r = stack.use(
      await startRig({
        adbBinary: adb,
        adbServer: adbServer(adb),
        phones: [{}, { shellV2: false }],
        serial: null,
        phoneEye: false,
      }),
    );
    const [wifi, legacy] = r.sims as [SimPhone, SimPhone];
    const eye = stack.use(
      await startPhoneEye({
        env: { ...r.env, PHONE_EYE_DEVICES: [wifi.serial, legacy.serial, dead, typo].join(",") },
      }),
    );
    const moved = stack.move();
    return { r, eye, wifi, legacy, dead, typo, [Symbol.asyncDispose]: () => moved.disposeAsync() };
  } catch (error) {
    await stack.disposeAsync();
    throw error;
  }
}

// The phones a user lists (PHONE_EYE_DEVICES, the same listed-phone path ANDROID_SERIAL takes):
// one phone-eye per client drives each test's phone by its `device`, so the verbs' test (through
// the adb on PATH) and the listed phones' errors share one process, one set of phones and one adb
// server per client. Each step resets the faults it arms; the verbs' test starts from the launcher.
const listedByClient = new Map(
  clients.map((c) => [c.binary, sharedFixture(() => startListed(c.binary))]),
);
const listedPhones = (adb: string) => listedByClient.get(adb)!;

for (const client of onPath) {
  listedPhones(client.binary).test(
    `the hand verbs drive the simulated phone through the real adb (through ${client.name})`,
    async (listed, t) => {
      const { eye, wifi } = listed;
      // The Wi-Fi phone by its serial: the verbs answer alike whichever way the phone was named.
      const r = {
        sim: wifi,
        eye,
        call: async (name: string, args: Record<string, unknown> = {}) =>
          await eye.client.callTool({
            name,
            arguments: { ...args, device: wifi.serial },
          }) as ToolResult,
      };
      // The launcher, whatever the listed-phone steps left on the screen.
      await wifi.setScreen({ app: "home" });
      await t.step("initialize and tools/list answer with all eight verbs", async () => {
        const { tools } = await r.eye.client.listTools();
        assert.equal(tools.length, 8);
        assert.match(
          r.eye.client.getInstructions() ?? "",
          /act → read \[changed\] → look only when needed/,
        );
      });

      await t.step("phone_tap on the Notes icon opens Notes, and [changed] says so", async () => {
        const look = await said(r, "phone_look");
        const notes = /Notes @ \[(\d+),(\d+)\]\[(\d+),(\d+)\]/.exec(look.text);
        assert.ok(notes, look.text);
        const [x1, y1, x2, y2] = notes.slice(1).map(Number) as [number, number, number, number];
        // The one settled call here: settling read through the real adb (the rest answer at once;
        // what settling reports is tested in agent_loop_test.ts).
        const tap = await said(r, "phone_tap", { x: (x1 + x2) >> 1, y: (y1 + y2) >> 1 });
        assert.equal(tap.isError, false, tap.text);
        assert.equal(r.sim.screen().name, "notes");
        assert.match(
          tap.text,
          /\n\n\[changed\]\napp: com\.android\.launcher3 → com\.android\.notes\/\S+\n/,
        );
      });

      await t.step("phone_type types into the focused field, quotes and %s intact", async () => {
        const text = `it's 100%sure; $(reboot) "ok"`;
        const typed = await said(r, "phone_type", { text, settle: false });
        assert.equal(typed.isError, false, typed.text);
        assert.equal(r.sim.screen().text, text);
      });

      await t.step("phone_key back returns home; a numeric keycode works too", async () => {
        assert.equal((await said(r, "phone_key", { key: "back", settle: false })).isError, false);
        assert.equal(r.sim.screen().name, "home");
        await said(r, "phone_key", { key: "3", settle: false });
        assert.deepEqual(r.sim.toolCalls("input").slice(-2), [["keyevent", "4"], [
          "keyevent",
          "3",
        ]]);
      });

      await t.step("phone_intent launches an app by package and opens a URL", async () => {
        const launched = await said(r, "phone_intent", {
          package: "com.android.settings",
          settle: false,
        });
        assert.equal(launched.isError, false, launched.text);
        assert.equal(r.sim.screen().name, "settings");
        const url = "https://example.com/search?q=phone&lang=en#top";
        const opened = await said(r, "phone_intent", {
          action: "android.intent.action.VIEW",
          data: url,
          settle: false,
        });
        assert.equal(opened.isError, false, opened.text);
        assert.equal(r.sim.screen().url, url);
      });

      await t.step("phone_swipe scrolls the settings list", async () => {
        await said(r, "phone_intent", { package: "com.android.settings", settle: false });
        const before = r.sim.screen().scroll;
        const swiped = await said(r, "phone_swipe", {
          x1: 540,
          y1: 1800,
          x2: 540,
          y2: 800,
          settle: false,
        });
        assert.equal(swiped.isError, false, swiped.text);
        assert.ok(r.sim.screen().scroll > before);
        assert.deepEqual(r.sim.toolCalls("input").at(-1), [
          "swipe",
          "540",
          "1800",
          "540",
          "800",
          "300",
        ]);
      });

      await t.step("a long press is a swipe that stays put for hold_ms", async () => {
        await said(r, "phone_tap", { x: 100, y: 100, hold_ms: 900, settle: false });
        assert.deepEqual(r.sim.toolCalls("input").at(-1), [
          "swipe",
          "100",
          "100",
          "100",
          "100",
          "900",
        ]);
      });

      await t.step("am start failures come back as errors", async () => {
        const failed = await said(r, "phone_intent", {
          component: "com.nope.app/.Missing",
          settle: false,
        });
        assert.equal(failed.isError, true);
        assert.match(
          failed.text,
          /^Cannot start the intent: the activity class \{com\.nope\.app\/\.Missing\} does not exist: no package "com\.nope\.app" is installed/,
        );
      });

      await t.step("coordinates off the screen are refused before reaching the phone", async () => {
        const sent = r.sim.toolCalls("input").length;
        const off = await said(r, "phone_tap", { x: 1080, y: 2500, settle: false });
        assert.equal(off.isError, true);
        assert.match(off.text, /off the screen, which is 1080×2400/);
        assert.equal(r.sim.toolCalls("input").length, sent);
      });

      await t.step(
        "hostile strings reach the phone's real sh as one argument or are refused, and nothing runs",
        async () => {
          // One payload per class of shell trick; tests/long/hostile_strings_test.ts sends the
          // corpus. Each goes out as its own call, whatever the screen shows.
          const sample = hostileSample(r.sim.marker);
          const { typed, started } = await sendHostile(r, sample);
          assert.equal(sample.filter((s) => inputTextProblem(s) !== null).length, 3);
          assert.ok(typed >= 15 && started >= 3, `typed ${typed}, started ${started}`);
          assert.equal(await exists(r.sim.marker), false, "a hostile string executed on the phone");
        },
      );
    },
  );
}

/** Disconnects every phone of the rig but `keep`, so `keep` is adb's default device. */
async function alone(r: Rig, keep: SimPhone): Promise<void> {
  for (const sim of r.sims) {
    if (sim === keep) continue;
    await r.adb.adb("disconnect", sim.serial);
    await r.adb.waitForState(sim.serial, null);
  }
}

for (const client of clients) {
  listedPhones(client.binary).test(
    `listed phones: adb's errors and reconnects, each in the words the agent reads (through ${client.name})`,
    async ({ eye, wifi, legacy, dead, typo }, t) => {
      const on = async (device: string, name: string, args: Record<string, unknown> = {}) => {
        const result = await eye.client.callTool({ name, arguments: { ...args, device } });
        return { isError: result.isError === true, text: textOf(result), result };
      };

      await t.step("a dropped Wi-Fi link: the tap is not replayed, a screenshot is", async () => {
        try {
          wifi.faults.dropAfterNext("input");
          const taps = () => wifi.toolCalls("input").filter((c) => c[0] === "tap").length;
          const before = taps();
          const tap = await on(wifi.serial, "phone_tap", { x: 540, y: 1200, settle: false });
          assert.equal(tap.isError, true);
          assert.match(tap.text, /reconnected but did not repeat the command/);
          assert.equal(taps() - before, 1, "the phone must see the tap at most once");
          // The link is back: the agent's repeat goes through.
          const again = await on(wifi.serial, "phone_tap", { x: 540, y: 1200, settle: false });
          assert.equal(again.isError, false, again.text);

          wifi.faults.dropAfterNext("screencap");
          const shot = await on(wifi.serial, "phone_shot");
          assert.equal(shot.isError, false, shot.text);
          assert.equal((shot.result.content as Array<{ type: string }>)[0]?.type, "image");
        } finally {
          wifi.faults.clear();
        }
      });

      await t.step(
        "a phone on the legacy shell protocol (no exit status) still reports am failures",
        async () => {
          const opened = await on(legacy.serial, "phone_intent", {
            package: "com.android.settings",
            settle: false,
          });
          assert.equal(opened.isError, false, opened.text);
          const failed = await on(legacy.serial, "phone_intent", {
            action: "com.nope.NO_SUCH_ACTION",
            settle: false,
          });
          assert.equal(failed.isError, true);
          assert.match(failed.text, /unable to resolve Intent/);
        },
      );

      await t.step(
        "a mistyped serial with two phones attached names both, with their states",
        async () => {
          const inputs = () => wifi.toolCalls("input").length + legacy.toolCalls("input").length;
          const before = inputs();
          const { isError, text } = await on(typo, "phone_tap", { x: 1, y: 1, settle: false });
          assert.equal(isError, true);
          const listed = [wifi, legacy].map((sim) => `${sim.serial} (device)`).sort();
          // Named where the mode in force fixes it: PHONE_EYE_DEVICES, not ANDROID_SERIAL.
          const seen =
            /; of PHONE_EYE_DEVICES, adb sees: (.*?); if "R58M123ABC" is mistyped in PHONE_EYE_DEVICES, /
              .exec(text);
          assert.ok(
            text.startsWith("Cannot tap: no Android device reachable at R58M123ABC; "),
            text,
          );
          assert.deepEqual(seen?.[1]?.split(", ").sort(), listed, text);
          assert.equal(inputs(), before);
        },
      );

      await t.step(
        "a dead Wi-Fi address answers 'no device reachable' with the adb connect hint, fast",
        async () => {
          const { isError, text } = await on(dead, "phone_tap", { x: 1, y: 1, settle: false });
          assert.equal(isError, true);
          const at = dead.replaceAll(".", "\\.");
          assert.match(text, new RegExp(`no Android device reachable at ${at}.*adb connect ${at}`));
        },
      );
    },
  );
}

// adb's default device (no ANDROID_SERIAL, no PHONE_EYE_DEVICES), where adb itself picks the phone
// and phone-eye never reconnects it: one phone-eye per client, with a short adb timeout for the
// hung phone. Each step first attaches what it needs.
testThroughEach(
  clients,
  "adb's default device: several, hung, offline, each in the words the agent reads",
  async (t, adb) => {
    await using r = await startRig({
      adbBinary: adb,
      adbServer: adbServer(adb),
      phones: [{}, {}],
      serial: null,
      env: { PHONE_EYE_ADB_TIMEOUT_MS: "1500" },
    });
    const [first, second] = r.sims as [SimPhone, SimPhone];

    await t.step("more than one device names both and says to give device", async () => {
      for (const sim of r.sims) await r.adb.connect(sim.serial);
      const result = await r.call("phone_key", { key: "home", settle: false });
      assert.equal(result.isError, true);
      const text = textOf(result);
      assert.match(text, /more than one Android device.*give device with the serial/);
      assert.doesNotMatch(text, /ANDROID_SERIAL|restart/);
      assert.ok(text.includes(first.serial) && text.includes(second.serial), text);
    });

    await t.step(
      "a hung phone times out, the adb child is killed, and the server keeps serving",
      async () => {
        await alone(r, first);
        try {
          first.faults.hang(/input keyevent 224/);
          const hung = await said(r, "phone_key", { key: "wake", settle: false });
          assert.equal(hung.isError, true);
          assert.match(
            hung.text,
            /"adb shell input keyevent 224" did not finish within 1500 ms; adb was stopped, but the command may still be running on the phone\. It may have happened: look at the screen/,
          );
          // phone-eye's own children: no other test's adb can match.
          const { stdout } = await new Deno.Command("pgrep", {
            args: ["-P", String(r.eye.pid), "-f", "shell input keyevent 224"],
            stdout: "piped",
            stdin: "null",
          }).output();
          const left = new TextDecoder().decode(stdout).trim();
          assert.equal(left, "", "the adb child outlived its timeout");
        } finally {
          first.faults.clear();
        }
        assert.equal((await said(r, "phone_key", { key: "home", settle: false })).isError, false);
      },
    );

    // Last: the phone stays offline (it refuses connections) until the rig closes.
    await t.step(
      "an offline phone is named as offline, with the way to bring it back",
      async () => {
        await alone(r, first);
        first.faults.refuseConnections(60_000);
        first.faults.dropNow();
        await r.adb.waitForState(first.serial, "offline");
        const result = await r.call("phone_key", { key: "home", settle: false });
        assert.equal(result.isError, true);
        // The phone the earlier steps drove as adb's only phone is named by its serial.
        const at = first.serial.replaceAll(".", "\\.");
        assert.match(
          textOf(result),
          new RegExp(
            `^Cannot press a key: no Android device reachable at ${at}; adb sees: ${at} \\(offline\\); an offline phone usually comes back after "adb reconnect offline"`,
          ),
        );
      },
    );
  },
);

Deno.test("without adb on PATH every verb says how to install it, and the server keeps serving", async () => {
  await using r = await startRig({ phones: [], adb: false, env: { PATH: "/nonexistent" } });
  for (const [name, args] of [["phone_tap", { x: 1, y: 1 }], ["phone_shot", {}]] as const) {
    const result = await r.call(name, args);
    assert.equal(result.isError, true);
    assert.match(
      textOf(result),
      /adb was not found on PATH; install it with .*apt-get install adb/,
    );
  }
});
