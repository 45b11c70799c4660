// The agent's loop on a simulated phone that moves, through real adb and the SDK client: a tap by
// element name lands on that element's centre, several matches tap nothing, an action reports what
// changed once the screen settled (one read where the phone's dump waited for it to be idle), a
// look waits for "Saved", and settle: false costs no extra call.

import assert from "node:assert/strict";
import { type Rig, startRig } from "../helpers/rig.ts";
import { INSTANT_MOTION, type MotionSettings } from "../../sim/sim_phone.ts";
import type { DumpIdle } from "../../sim/motion.ts";
import { waitFor } from "../helpers/wait_for.ts";

const textOf = (r: { content: Array<{ text?: string }> }) => r.content[0]?.text ?? "";

/**
 * Back to the launcher, with the motion a step asks for (INSTANT_MOTION's phases unless named):
 * one phone and one phone-eye serve every step, as an agent's session would.
 */
async function fresh(rig: Rig, motion: Partial<MotionSettings>): Promise<void> {
  rig.sim.faults.clear();
  rig.sim.motion.set({ ...INSTANT_MOTION });
  await rig.sim.motion.release("launch");
  await rig.sim.motion.release("snackbarDelay");
  await rig.sim.motion.release("snackbar");
  await rig.adb.adb("-s", rig.sim.serial, "shell", "input keyevent 3");
  assert.equal(rig.sim.screen().name, "home");
  rig.sim.motion.set(motion);
}

/** The centre of the first node whose `attribute` is `value`, from the sim's current dump. */
async function centreOf(rig: Rig, value: string, attribute = "text"): Promise<[number, number]> {
  const r = await rig.adb.adb("-s", rig.sim.serial, "exec-out", "uiautomator dump /dev/tty");
  const escaped = value.replace(/&/g, "&amp;");
  const m = new RegExp(
    `${attribute}="${escaped}"[^>]*bounds="\\[(\\d+),(\\d+)\\]\\[(\\d+),(\\d+)\\]"`,
  )
    .exec(r.stdout);
  assert.ok(m, `no ${attribute} "${value}" on screen`);
  const [x1, y1, x2, y2] = m.slice(1).map(Number) as [number, number, number, number];
  return [Math.floor((x1 + x2) / 2), Math.floor((y1 + y2) / 2)];
}

const taps = (rig: Rig) => rig.sim.toolCalls("input").filter((c) => c[0] === "tap");

/**
 * A phone's own wait before each dump (uiautomator waits until the screen has been quiet), with a
 * short quiet time so the steps stay quick; its rules are a phone's (sim/motion.ts).
 */
const WAITING: DumpIdle = { quietMs: 200, maxMs: 10_000, workMs: 0 };

/** The [changed] section of a reply. */
const changedOf = (text: string) => text.slice(text.indexOf("[changed]"));

/** The screen reads (UI dumps) sent to the phone so far, answered or still waiting. */
const dumps = (rig: Rig) => rig.sim.commands().filter((c) => c.includes("uiautomator dump")).length;

Deno.test("the agent's loop on a simulated phone that moves", async (t) => {
  await using rig = await startRig();
  await t.step(
    "phone_tap element: the tap lands on the named element's centre and the reply names it",
    async () => {
      await fresh(rig, {});
      const [x, y] = await centreOf(rig, "Settings");
      const r = await rig.call("phone_tap", { element: "settings" });
      assert.equal(r.isError, undefined, textOf(r));
      assert.deepEqual(taps(rig).at(-1), ["tap", String(x), String(y)]);
      assert.match(
        textOf(r),
        new RegExp(
          `^Tapped "Settings" \\(TextView\\) @ .* centre \\(${x}, ${y}\\): \\(${x}, ${y}\\)\\.`,
        ),
      );
      assert.equal(rig.sim.screen().name, "settings");
    },
  );
  await t.step(
    "phone_tap element with several matches lists them with centres and taps nothing",
    async () => {
      await fresh(rig, {});
      await rig.call("phone_intent", { package: "com.android.settings", settle: false });
      const before = taps(rig).length;
      const r = await rig.call("phone_tap", { element: "&" });
      assert.equal(r.isError, true);
      const text = textOf(r);
      assert.match(text, /^Cannot tap: "&" matches \d+ elements, so nothing was tapped/);
      assert.match(
        text,
        /\n- "Network & internet" \(TextView, id title\) @ \[\d+,\d+\]\[\d+,\d+\] centre \(\d+, \d+\)/,
      );
      assert.equal(taps(rig).length, before, "no tap reached the phone");

      const none = await rig.call("phone_tap", { element: "Batery" });
      assert.equal(none.isError, true);
      assert.match(
        textOf(none),
        /no element on screen has text, content-desc or resource-id "Batery"; the closest labels on screen are "Battery"/,
      );
      assert.equal(taps(rig).length, before);

      const both = await rig.call("phone_tap", { element: "Battery", x: 1, y: 2 });
      assert.equal(both.isError, true);
      assert.match(textOf(both), /give either x and y \(device pixels\) or element/);
    },
  );
  await t.step(
    "a tap that opens an app reports the new app and its elements once the switch has drawn",
    async () => {
      await fresh(rig, { launch: "held", dumpIdle: WAITING });
      await rig.call("phone_look", {});
      const starts = rig.sim.motion.events().filter((e) => e.kind === "launch-start").length;
      const before = dumps(rig);
      const tapping = rig.call("phone_tap", { element: "Notes" });
      await rig.sim.motion.until("launch-start", starts + 1);
      // The switch ends once the settle's read is waiting for the screen to be quiet: the dump
      // after the one that found "Notes".
      await waitFor(() => dumps(rig) >= before + 2, "a read of the screen while the switch draws");
      await rig.sim.motion.release("launch");
      const r = await tapping;
      const text = textOf(r);
      assert.equal(r.isError, undefined, text);
      assert.equal(rig.sim.motion.launching(), null);
      const changed = text.slice(text.indexOf("[changed]"));
      assert.match(
        changed,
        /^\[changed\]\napp: com\.android\.launcher3 → com\.android\.notes\/\S+\n/,
      );
      assert.match(changed, /\n\+ Save @ \[\d+,\d+\]\[\d+,\d+\]/);
      assert.match(changed, /\n- Settings @ /);
      assert.ok(changed.split("\n").length <= 16, changed);
      assert.doesNotMatch(changed, /did not settle/);
      assert.equal(dumps(rig), before + 2, "the read that waited out the switch is the only one");
    },
  );
  await t.step(
    "a window still drawing when the dump answers is read again until it has drawn",
    async () => {
      // A dump that answers at once with the old screen while the new activity draws: the focused
      // window is still the launcher's while the activity started is Notes'.
      await fresh(rig, { launch: "held", launchTree: "old-screen" });
      await rig.call("phone_look", {});
      const tapping = rig.call("phone_intent", { package: "com.android.notes" });
      const during = dumps(rig);
      await waitFor(() => dumps(rig) >= during + 2, "two reads while the switch draws");
      await rig.sim.motion.release("launch");
      const text = textOf(await tapping);
      const changed = changedOf(text);
      assert.match(
        changed,
        /^\[changed\]\napp: com\.android\.launcher3 → com\.android\.notes\/\S+\n/,
      );
      assert.match(changed, /\n\+ Save @ /);
      assert.doesNotMatch(changed, /did not settle/);
    },
  );
  await t.step(
    "an action on a screen that never settles says so and shows what is there now",
    async () => {
      // The phone's dump waits for the switch, which never ends, until its own limit (10 s on a
      // phone, 0.6 s here), then gives the idle-state error: the screen did not settle.
      await fresh(rig, { launch: "held", dumpIdle: { ...WAITING, maxMs: 600 } });
      const read = dumps(rig);
      const r = await rig.call("phone_intent", { package: "com.android.settings" });
      assert.match(
        textOf(r),
        /\[changed\]\nthe screen did not settle within \d+(\.\d)? s and gave no UI tree \(uiautomator: "ERROR: could not get idle state\."\)/,
      );
      assert.equal(dumps(rig), read + 1, "no second wait after the phone's own verdict");
    },
  );
  await t.step(
    "phone_type element taps the field, types, and the text shows in [changed]",
    async () => {
      await fresh(rig, {});
      await rig.call("phone_intent", { package: "com.android.notes", settle: false });
      const [x, y] = await centreOf(rig, "com.android.notes:id/note_text", "resource-id");
      const r = await rig.call("phone_type", { element: "note_text", text: "milk" });
      assert.equal(r.isError, undefined, textOf(r));
      assert.deepEqual(rig.sim.toolCalls("input").slice(-2), [["tap", String(x), String(y)], [
        "text",
        "milk",
      ]]);
      assert.equal(rig.sim.screen().text, "milk");
      assert.match(
        textOf(r),
        /^Tapped "note_text" \(EditText, id note_text\) @ .*, then: Typed 4 characters\.\n\n\[changed\]\n/,
      );
      assert.match(textOf(r), /\n\+ milk @ /);
    },
  );
  await t.step(
    "phone_look wait_for answers once Saved appears, and times out cleanly when it never does",
    async () => {
      await fresh(rig, { snackbarDelay: "held" });
      await rig.call("phone_intent", { package: "com.android.notes", settle: false });
      await rig.call("phone_tap", { element: "Save", settle: false });
      const dumps = () => rig.sim.toolCalls("uiautomator").length;
      const polled = dumps();
      const waiting = rig.call("phone_look", { wait_for: "Saved" });
      await waitFor(() => dumps() >= polled + 2, "the look to poll the tree twice");
      await rig.sim.motion.release("snackbarDelay");
      const r = await waiting;
      const text = textOf(r);
      assert.match(
        text,
        /^\[waited\]\n"Saved" appeared after \d+(\.\d)? s \(Saved @ \[\d+,\d+\]\[\d+,\d+\]\)\n/,
      );
      assert.match(text, /\[ui-tree\][^]*Saved @ /);

      // Shorter than the 250 ms between polls: each wait reads the tree once, then looks.
      const gone = await rig.call("phone_look", { wait_gone: "Saved", timeout_ms: 200 });
      assert.match(textOf(gone), /^\[waited\]\n"Saved" did not disappear within 0\.2 s\n/);
      const never = await rig.call("phone_look", { wait_for: "Unicorn", timeout_ms: 200 });
      assert.equal(never.isError, undefined);
      assert.match(textOf(never), /^\[waited\]\n"Unicorn" did not appear within 0\.2 s\n/);
      assert.match(textOf(never), /\[ui-tree\]\n/);
    },
  );
  await t.step(
    "settle: false sends exactly today's one input command; settle reads in one round trip per read",
    async () => {
      await fresh(rig, {});
      await rig.call("phone_tap", { x: 10, y: 10, settle: false }); // wm size, then cached
      const start = rig.sim.commands().length;
      const fast = await rig.call("phone_tap", { x: 20, y: 30, settle: false });
      assert.equal(textOf(fast), "Tapped (20, 30).");
      assert.deepEqual(rig.sim.commands().slice(start).map((c) => c.replace(/; echo .*/, "")), [
        "input tap 20 30",
      ]);
      for (
        const [tool, args] of [
          ["phone_swipe", { x1: 10, y1: 10, x2: 20, y2: 20, settle: false }],
          ["phone_key", { key: "back", settle: false }],
          ["phone_type", { text: "a", settle: false }],
        ] as const
      ) {
        const at = rig.sim.commands().length;
        await rig.call(tool, args);
        assert.equal(rig.sim.commands().length - at, 1, `${tool}: one command`);
      }
      const at = rig.sim.commands().length;
      const settled = await rig.call("phone_key", { key: "back" });
      assert.match(textOf(settled), /\[changed\]\n/);
      const reads = rig.sim.commands().slice(at + 1);
      assert.equal(reads.length, 1, "one read on a still screen: the dump's own wait settles it");
      for (const read of reads) {
        assert.match(read, /^uiautomator dump \/dev\/tty; dumpsys window \| grep .*$/);
      }
    },
  );
  await t.step(
    "on a phone whose dumps wait for idle, each settled verb costs its command and one read",
    async () => {
      await fresh(rig, { dumpIdle: WAITING });
      await rig.call("phone_intent", { package: "com.android.notes", settle: false });
      await rig.call("phone_tap", { x: 10, y: 10, settle: false }); // wm size, then cached
      for (
        const [tool, args] of [
          ["phone_tap", { x: 540, y: 150 }],
          ["phone_swipe", { x1: 540, y1: 1800, x2: 540, y2: 1600 }],
          ["phone_key", { key: "volume_up" }],
          ["phone_type", { text: "a" }],
          ["phone_intent", { package: "com.android.notes" }],
        ] as const
      ) {
        const at = rig.sim.commands().length;
        const r = await rig.call(tool, args);
        assert.match(textOf(r), /\n\n\[changed\]\n/, tool);
        const sent = rig.sim.commands().slice(at);
        assert.equal(sent.length, 2, `${tool}: ${sent.join(" / ")}`);
        assert.match(sent[1]!, /^uiautomator dump \/dev\/tty; dumpsys window/, tool);
      }
    },
  );
  await t.step(
    "Save whose message shows within the dump's idle wait: [changed] says it appeared, and only that",
    async () => {
      await fresh(rig, { snackbarDelay: 100, snackbar: "held", dumpIdle: WAITING });
      await rig.call("phone_intent", { package: "com.android.notes", settle: false });
      const before = dumps(rig);
      const r = await rig.call("phone_tap", { element: "Save" });
      const changed = changedOf(textOf(r));
      assert.equal(dumps(rig), before + 2, "the lookup, then one read");
      // The keyboard was up before and after; the lookup's tree did not ask, so nothing is said.
      assert.match(changed, /^\[changed\]\n\+ Saved @ \[\d+,\d+\]\[\d+,\d+\]$/);
    },
  );
  await t.step(
    "[changed] compares the keyboard only when the screen before knew it",
    async () => {
      await fresh(rig, { dumpIdle: WAITING });
      await rig.call("phone_intent", { package: "com.android.notes", settle: false });
      await rig.call("phone_look", {}); // a look's tree: no keyboard state
      const typed = changedOf(textOf(await rig.call("phone_type", { text: "tea" })));
      assert.match(typed, /\n\+ \S*tea @ /);
      assert.doesNotMatch(typed, /keyboard/, "up before and after: no change to report");
      // Now the screen before is the settle's own read, which knows the keyboard.
      const back = changedOf(textOf(await rig.call("phone_key", { key: "back" })));
      assert.match(back, /\nkeyboard: hidden\n/);
    },
  );
  await t.step(
    "calls refused before acting leave the remembered screen for the next action",
    async () => {
      await fresh(rig, { dumpIdle: WAITING });
      await rig.call("phone_look", {});
      const refused = [
        await rig.call("phone_tap", { x: 1080, y: 2500 }), // off the screen
        await rig.call("phone_tap", { element: "Unicorn" }), // nothing by that name
        await rig.call("phone_type", { text: "thé" }), // no ADB Keyboard on this phone
      ];
      for (const r of refused) assert.equal(r.isError, true, textOf(r));
      const r = await rig.call("phone_key", { key: "volume_up" });
      assert.equal(changedOf(textOf(r)), "[changed]\nno visible change");
    },
  );
  await t.step(
    "two calls at once on one phone: the section says another call acted instead of crediting it",
    async () => {
      await fresh(rig, { launch: "held", dumpIdle: WAITING });
      await rig.call("phone_look", {});
      const before = dumps(rig);
      const tapping = rig.call("phone_tap", { element: "Settings" });
      await waitFor(() => dumps(rig) >= before + 2, "the tap's read, waiting for the switch");
      const keying = rig.call("phone_key", { key: "volume_up" });
      await waitFor(() => dumps(rig) >= before + 3, "the key's read");
      await rig.sim.motion.release("launch");
      const [tap, key] = await Promise.all([tapping, keying]);
      assert.match(
        changedOf(textOf(tap)),
        /^\[changed\]\nanother call acted on this phone meanwhile \(1 action\); the changes below may be theirs\napp: com\.android\.launcher3 → com\.android\.settings\//,
      );
      const keyChanged = changedOf(textOf(key));
      assert.doesNotMatch(keyChanged, /→/, "the key does not claim the tap's app switch");
      assert.match(keyChanged, /no earlier screen to compare with/);
    },
  );
  await t.step(
    "a cancelled call stops its settle read: phone-eye's adb child for it ends",
    async () => {
      await fresh(rig, { launch: "held", dumpIdle: WAITING });
      const reading = () => adbChildren(rig, "uiautomator dump");
      const cancel = new AbortController();
      const opening = rig.client.callTool({
        name: "phone_intent",
        arguments: { package: "com.android.settings" },
      }, { signal: cancel.signal });
      opening.catch(() => {});
      await eventually(async () => (await reading()) !== "", "the settle read under way");
      cancel.abort();
      await assert.rejects(opening);
      await eventually(async () => (await reading()) === "", "the settle read's adb to end");
      assert.equal(rig.sim.motion.launching(), "com.android.launcher3 -> com.android.settings");
    },
  );
});

/** phone-eye's own adb children whose command line holds `pattern` (pgrep's lines; "" for none). */
async function adbChildren(rig: Rig, pattern: string): Promise<string> {
  const { stdout } = await new Deno.Command("pgrep", {
    args: ["-P", String(rig.eye.pid), "-f", pattern],
    stdout: "piped",
    stdin: "null",
  }).output();
  return new TextDecoder().decode(stdout).trim();
}

/** Checks `check` once per event-loop turn until it holds; fails after 10 s. */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`waited 10 s for ${what}, in vain`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
