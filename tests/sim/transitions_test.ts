// The simulated phone moves (sim/motion.ts): app switches that take time to draw, Notes'
// "Saved" snackbar that comes late and goes, the focused window and the keyboard in dumpsys, and
// a photo screen whose screenshot becomes a JPEG. Each phase is held and released, or waited for
// by its event, through the real adb client: no test here waits on the clock.

import assert from "node:assert/strict";
import {
  INSTANT_MOTION,
  type MotionEvent,
  type MotionEventKind,
  type SimPhone,
} from "../../sim/sim_phone.ts";
import { type AdbHarness, startAdbHarness } from "../helpers/adb_harness.ts";
import { startRig, type ToolResult } from "../helpers/rig.ts";
import { connectInProcess } from "../helpers/in_process.ts";
import { createDevice } from "../../lib/adb/device.ts";
import { createAdbRunner } from "../../lib/adb/runner.ts";
import { DEFAULT_ADB_TIMEOUT_MS } from "../../lib/config/config.ts";
import { readPngStream } from "../../lib/image/png_decode.ts";
import { initialState, SETTINGS_ITEMS, type UiNode } from "../../sim/screen.ts";
import { applyToolCall } from "../../sim/screen_input.ts";
import { layout } from "../../sim/screen_layout.ts";
import { Motion, type MotionSettings } from "../../sim/motion.ts";

// One adb server for the file: each test connects a fresh phone to it and disconnects it at its
// end (helpers/rig.ts, adbServer), so no test sees another's phone.
let adbServer: AdbHarness | undefined;
Deno.test.beforeAll(async () => {
  adbServer = await startAdbHarness();
});
Deno.test.afterAll(async () => {
  await adbServer?.close();
});

/** `before`: how many motion events the phone had logged when the step began. */
type PhoneCheck = (sim: SimPhone, adb: AdbHarness, before: number) => Promise<void>;

// Every check through adb runs on one phone (and one adb connection), as a step of one test (at
// the end of the file): connecting and dropping a phone per check cost more than the checks. A
// step sets the motion it needs and starts from the home screen with no phase running, and reads
// motion events from where they stood when it began, so steps do not depend on order.
const onPhone: Array<[string, Partial<MotionSettings>, PhoneCheck]> = [];
function onMotionPhone(name: string, motion: Partial<MotionSettings>, check: PhoneCheck): void {
  onPhone.push([name, motion, check]);
}

/** Back to how a new phone with `motion` starts: no phase running, home screen, empty storage. */
async function resetPhone(sim: SimPhone, motion: Partial<MotionSettings>): Promise<void> {
  for (const phase of ["launch", "snackbarDelay", "snackbar"] as const) {
    await sim.motion.release(phase);
  }
  sim.motion.set({ ...INSTANT_MOTION, ...motion });
  await sim.setScreen(initialState());
  for (const folder of ["sdcard", "data/local/tmp"]) {
    for await (const entry of Deno.readDir(`${sim.root}/${folder}`)) {
      await Deno.remove(`${sim.root}/${folder}/${entry.name}`, { recursive: true });
    }
  }
}

/** The motion events since `before` (the step's start). */
function eventsSince(sim: SimPhone, before: number): MotionEvent[] {
  return sim.motion.events().slice(before);
}

/** The next `kind` event after the first `before` events, past or future. */
function nextEvent(sim: SimPhone, kind: MotionEventKind, before: number): Promise<MotionEvent> {
  const seen = sim.motion.events().slice(0, before).filter((e) => e.kind === kind).length;
  return sim.motion.until(kind, seen + 1);
}

function shell(adb: AdbHarness, sim: SimPhone, command: string) {
  return adb.adb("-s", sim.serial, "shell", command);
}

/** The centre of the first node whose text is `label`, from a dump's XML. */
function centreOf(xml: string, label: string): [number, number] {
  const m = new RegExp(`text="${label}"[^>]*bounds="\\[(\\d+),(\\d+)\\]\\[(\\d+),(\\d+)\\]"`)
    .exec(xml);
  assert.ok(m, `no "${label}" in ${xml.slice(0, 300)}…`);
  const [x1, y1, x2, y2] = m.slice(1).map(Number) as [number, number, number, number];
  return [Math.round((x1 + x2) / 2), Math.round((y1 + y2) / 2)];
}

async function dumpXml(adb: AdbHarness, sim: SimPhone): Promise<string> {
  const r = await shell(adb, sim, "uiautomator dump >/dev/null && cat /sdcard/window_dump.xml");
  assert.equal(r.code, 0, r.stderr);
  return r.stdout;
}

async function focusLines(adb: AdbHarness, sim: SimPhone): Promise<string> {
  const r = await shell(adb, sim, "dumpsys window | grep -E 'mCurrentFocus|mFocusedApp'");
  assert.equal(r.code, 0, r.stderr);
  return r.stdout;
}

async function inputShown(adb: AdbHarness, sim: SimPhone): Promise<string> {
  const r = await shell(adb, sim, "dumpsys input_method | grep mInputShown");
  assert.equal(r.code, 0, r.stderr);
  return /mInputShown=(\w+)/.exec(r.stdout)?.[1] ?? `no mInputShown in ${r.stdout}`;
}

async function screenshot(adb: AdbHarness, sim: SimPhone) {
  const r = await adb.adbBytes("-s", sim.serial, "exec-out", "screencap -p");
  assert.equal(r.code, 0, r.stderr);
  return (await readPngStream(r.stdout)).image; // phone-eye's own decoder: native inflate
}

const SETTINGS_FOCUS =
  /mCurrentFocus=Window\{[0-9a-f]+ u0 com\.android\.settings\/com\.android\.settings\.Settings\}/;
const LAUNCHER_FOCUS = /mCurrentFocus=Window\{[0-9a-f]+ u0 com\.android\.launcher3\//;
const SETTINGS_APP =
  /mFocusedApp=ActivityRecord\{[0-9a-f]+ u0 com\.android\.settings\/\.Settings t\d+\}/;

onMotionPhone(
  "a held app switch: the dump says could not get idle state, exit 0, and keeps the old file",
  { launch: "held" },
  async (sim, adb, before) => {
    const home = await dumpXml(adb, sim);
    assert.match(home, /package="com\.android\.launcher3"/);

    const start = await shell(adb, sim, "am start -n com.android.settings/.Settings");
    assert.equal(start.stdout, "Starting: Intent { cmp=com.android.settings/.Settings }\n");
    assert.equal(sim.screen().launching, "com.android.launcher3 -> com.android.settings");

    for (const form of ["", " --compressed"]) {
      const r = await shell(adb, sim, `uiautomator dump${form}`);
      assert.deepEqual(
        [r.code, r.stdout, r.stderr],
        [0, "", "ERROR: could not get idle state.\n"],
        `uiautomator dump${form}`,
      );
    }
    const old = await shell(adb, sim, "cat /sdcard/window_dump.xml");
    assert.equal(old.stdout, home, "no file is written: the earlier dump stays");

    // The activity is started (mFocusedApp) while the old window keeps focus until it draws.
    const during = await focusLines(adb, sim);
    assert.match(during, LAUNCHER_FOCUS);
    assert.match(during, SETTINGS_APP);

    assert.equal(await sim.motion.release("launch"), true);
    assert.equal(sim.screen().launching, null);
    assert.match(await dumpXml(adb, sim), /package="com\.android\.settings"/);
    const after = await focusLines(adb, sim);
    assert.match(after, SETTINGS_FOCUS);
    assert.match(after, SETTINGS_APP);
    assert.deepEqual(
      eventsSince(sim, before).map((e) => [e.kind, e.detail]),
      [
        ["launch-start", "com.android.launcher3 -> com.android.settings"],
        ["launch-end", "com.android.launcher3 -> com.android.settings"],
      ],
    );
    assert.equal(await sim.motion.release("launch"), false, "nothing left to release");
  },
);

onMotionPhone(
  "launchTree old-screen: while a launcher tap's app draws, the dump shows the launcher",
  { launch: "held", launchTree: "old-screen" },
  async (sim, adb) => {
    const home = await dumpXml(adb, sim);
    const [x, y] = centreOf(home, "Notes");
    await shell(adb, sim, `input tap ${x} ${y}`);
    assert.equal(sim.screen().name, "notes");
    assert.equal(sim.screen().launching, "com.android.launcher3 -> com.android.notes");
    const during = await dumpXml(adb, sim);
    assert.equal(during, home);
    await sim.motion.release("launch");
    assert.match(await dumpXml(adb, sim), /resource-id="com\.android\.notes:id\/note_text"/);
  },
);

onMotionPhone(
  "a timed app switch from monkey ends by itself: until(launch-end), then the new tree",
  { launch: 150 },
  async (sim, adb, before) => {
    const r = await shell(
      adb,
      sim,
      "monkey -p com.android.settings -c android.intent.category.LAUNCHER 1",
    );
    assert.equal(r.code, 0);
    const end = await nextEvent(sim, "launch-end", before);
    assert.deepEqual([end.seq, end.detail], [
      before + 2,
      "com.android.launcher3 -> com.android.settings",
    ]);
    assert.match(await dumpXml(adb, sim), /text="Network &amp; internet"/);
    assert.match(await focusLines(adb, sim), SETTINGS_FOCUS);
  },
);

onMotionPhone("a screenshot mid-switch is half drawn: the new app above, the old screen below", {
  launch: "held",
}, async (sim, adb) => {
  const before = await screenshot(adb, sim);
  await shell(adb, sim, "am start -n com.android.settings/.Settings");
  const during = await screenshot(adb, sim);
  await sim.motion.release("launch");
  const after = await screenshot(adb, sim);
  const row = (img: typeof before, fraction: number) => {
    const y = Math.round(img.height * fraction);
    const bytes = img.width * 4;
    return Array.from(img.data.subarray(y * bytes, (y + 1) * bytes) as Uint8Array).join();
  };
  for (const f of [0.2, 0.3, 0.45]) {
    assert.equal(row(during, f), row(after, f), `row at ${f}: the new app`);
  }
  for (const f of [0.6, 0.75, 0.9]) {
    assert.equal(row(during, f), row(before, f), `row at ${f}: the old screen`);
  }
  assert.notEqual(row(before, 0.3), row(after, 0.3), "the two screens differ up there");
  assert.notEqual(row(before, 0.75), row(after, 0.75), "and down there");
});

onMotionPhone("Save: Saved appears after its held delay, stays while held, then goes", {
  snackbarDelay: "held",
  snackbar: "held",
}, async (sim, adb, before) => {
  await shell(
    adb,
    sim,
    "am start -n com.android.notes/.NotesActivity && input text 'buy%smilk'",
  );
  const [x, y] = centreOf(await dumpXml(adb, sim), "Save");
  await shell(adb, sim, `input tap ${x} ${y}`);
  assert.equal(sim.screen().savedNote, "buy milk");
  assert.equal(sim.motion.snackbarPhase(), "waiting");
  assert.doesNotMatch(await dumpXml(adb, sim), /text="Saved"/);

  await sim.motion.release("snackbarDelay");
  const shown = await dumpXml(adb, sim);
  assert.match(
    shown,
    /text="Saved" resource-id="com\.android\.notes:id\/snackbar_text" class="android\.widget\.TextView" package="com\.android\.notes"/,
  );
  assert.equal(sim.screen().snackbar, "Saved");

  await sim.motion.release("snackbar");
  assert.doesNotMatch(await dumpXml(adb, sim), /text="Saved"/);
  assert.deepEqual(
    eventsSince(sim, before).map((e) => e.kind),
    ["launch-start", "launch-end", "snackbar-shown", "snackbar-gone"],
  );
});

/** A dump through /dev/tty, started now; `answered` says whether it has come back yet. */
function startDump(adb: AdbHarness, sim: SimPhone) {
  const state = { answered: false };
  const result = shell(adb, sim, "uiautomator dump /dev/tty").finally(() => {
    state.answered = true;
  });
  return { state, result };
}

/** The phone's own idle wait, shortened so the steps stay quick; its rules are a phone's. */
const SHORT_IDLE = { quietMs: 300, maxMs: 60_000, workMs: 0 };

onMotionPhone(
  "with the idle wait, a dump during an app switch waits for it and answers the new screen, not an error",
  { launch: "held", dumpIdle: SHORT_IDLE },
  async (sim, adb) => {
    await shell(adb, sim, "am start -n com.android.settings/.Settings");
    assert.equal(sim.screen().launching, "com.android.launcher3 -> com.android.settings");
    const dump = startDump(adb, sim);
    // Commands sent after the dump are answered while it still waits for the screen to settle.
    for (let i = 0; i < 3; i++) assert.equal((await shell(adb, sim, "echo ok")).stdout, "ok\n");
    assert.equal(dump.state.answered, false, "the dump waits while the switch draws");
    await sim.motion.release("launch");
    const r = await dump.result;
    assert.equal(r.stderr, "");
    assert.match(r.stdout, /package="com\.android\.settings"/);
    assert.match(r.stdout, /UI hierchary dumped to: \/dev\/tty\n$/);
  },
);

onMotionPhone(
  "with the idle wait, a screen that keeps changing past its limit gets the idle-state error",
  { launch: "held", dumpIdle: { quietMs: 300, maxMs: 600, workMs: 0 } },
  async (sim, adb) => {
    await shell(adb, sim, "am start -n com.android.settings/.Settings");
    const r = await startDump(adb, sim).result;
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, "", "ERROR: could not get idle state.\n"]);
    assert.equal(sim.screen().launching, "com.android.launcher3 -> com.android.settings");
  },
);

onMotionPhone(
  "with the idle wait, a message that appears while the dump waits is in that dump",
  { snackbarDelay: 100, snackbar: "held", dumpIdle: SHORT_IDLE },
  async (sim, adb, before) => {
    await shell(adb, sim, "am start -n com.android.notes/.NotesActivity");
    const [x, y] = centreOf(await dumpXml(adb, sim), "Save");
    await shell(adb, sim, `input tap ${x} ${y}`);
    // One dump right after the tap: "Saved" comes 100 ms later, within the dump's quiet wait.
    const r = await startDump(adb, sim).result;
    assert.match(r.stdout, /text="Saved"/);
    assert.deepEqual(eventsSince(sim, before).map((e) => e.kind).slice(-1), ["snackbar-shown"]);
  },
);

onMotionPhone("Save with timed motion: Saved shows and goes by itself, in that order", {
  snackbarDelay: 40,
  snackbar: 80,
}, async (sim, adb, before) => {
  await shell(adb, sim, "am start -n com.android.notes/.NotesActivity");
  const [x, y] = centreOf(await dumpXml(adb, sim), "Save");
  await shell(adb, sim, `input tap ${x} ${y}`);
  const shown = await nextEvent(sim, "snackbar-shown", before);
  const gone = await nextEvent(sim, "snackbar-gone", before);
  assert.ok(shown.seq < gone.seq);
  assert.doesNotMatch(await dumpXml(adb, sim), /text="Saved"/);
});

onMotionPhone(
  "default motion: Saved is in the very next dump and stays; switches draw at once",
  {},
  async (sim, adb) => {
    await shell(adb, sim, "am start -n com.android.notes/.NotesActivity");
    assert.equal(sim.screen().launching, null);
    const [x, y] = centreOf(await dumpXml(adb, sim), "Save");
    await shell(adb, sim, `input tap ${x} ${y}`);
    assert.match(await dumpXml(adb, sim), /text="Saved"/);
    assert.match(await dumpXml(adb, sim), /text="Saved"/);
  },
);

onMotionPhone("the keyboard: mInputShown is true only once Notes' focused field has drawn", {
  launch: "held",
}, async (sim, adb) => {
  assert.equal(await inputShown(adb, sim), "false");
  const line = await shell(adb, sim, "dumpsys input_method | grep mInputShown");
  assert.equal(
    line.stdout,
    "  mShowRequested=false mShowExplicitlyRequested=false mShowForced=false mInputShown=false\n",
  );
  await shell(adb, sim, "am start -n com.android.notes/.NotesActivity");
  assert.equal(await inputShown(adb, sim), "false", "not while Notes draws");
  await sim.motion.release("launch");
  assert.equal(await inputShown(adb, sim), "true");
  const ime = await shell(
    adb,
    sim,
    "dumpsys window windows | grep -A3 'Window{[0-9a-f]* u0 InputMethod}:'",
  );
  assert.match(ime.stdout, /mViewVisibility=0x0/);
  await shell(adb, sim, "input keyevent KEYCODE_HOME");
  await sim.motion.release("launch");
  assert.equal(await inputShown(adb, sim), "false");
});

onMotionPhone(
  "Settings: tapping an item's row opens its page, back returns to the list",
  {},
  async (sim, adb) => {
    await shell(adb, sim, "am start -n com.android.settings/.Settings");
    const [x, y] = centreOf(await dumpXml(adb, sim), "Battery");
    await shell(adb, sim, `input tap ${x} ${y}`);
    const page = await dumpXml(adb, sim);
    assert.match(
      page,
      /text="Battery" resource-id="com\.android\.settings:id\/collapsing_toolbar_title"/,
    );
    assert.doesNotMatch(page, /text="Network &amp; internet"/);
    await shell(adb, sim, "input keyevent 4");
    assert.match(await dumpXml(adb, sim), /text="Network &amp; internet"/);
    assert.equal(sim.screen().name, "settings");
  },
);

Deno.test({
  name: "screen model: every Settings row names its item and opens that page",
  permissions: "none",
  fn() {
    const size = { width: 1080, height: 2400 };
    const rows = (root: UiNode): UiNode[] =>
      root.children.flatMap((c) => c.onTap?.kind === "openSetting" ? [c, ...rows(c)] : rows(c));
    const state = { ...initialState(), app: "settings" as const };
    const visible = rows(layout(state, size));
    assert.ok(visible.length >= 5);
    for (const row of visible) {
      const title = row.children.find((c) => c.id === "android:id/title")?.text;
      assert.deepEqual(row.onTap, { kind: "openSetting", title });
      assert.ok(SETTINGS_ITEMS.some(([t]) => t === title));
    }
    const [x1, y1, x2, y2] = visible[2]!.bounds;
    const tapped = { ...state };
    applyToolCall(tapped, size, "input", ["tap", String((x1 + x2) / 2), String((y1 + y2) / 2)]);
    assert.equal(tapped.settingsPage, SETTINGS_ITEMS[2]![0]);
  },
});

// phone-eye's choice of format is its logic, not its process's: checked in process (the real SDK
// client and server, the real adb runner) on the file's phone.
onMotionPhone(
  "the Gallery's photo makes phone_shot send a JPEG; the launcher stays PNG",
  {},
  async (sim, adb) => {
    const device = createDevice({
      run: createAdbRunner({ binary: "adb", env: adb.env }),
      serial: sim.serial,
      timeoutMs: DEFAULT_ADB_TIMEOUT_MS,
    });
    const mcp = await connectInProcess({ device });
    try {
      const call = (name: string, args: Record<string, unknown> = {}) =>
        mcp.client.callTool({ name, arguments: args }) as Promise<ToolResult>;
      const home = await call("phone_shot");
      assert.equal(home.isError, undefined);
      assert.equal(home.content.find((c) => c.type === "image")?.mimeType, "image/png");
      const open = await call("phone_intent", { package: "com.android.gallery3d" });
      assert.equal(open.isError, undefined, JSON.stringify(open));
      assert.equal(sim.screen().name, "gallery");
      const photo = await call("phone_shot");
      const image = photo.content.find((c) => c.type === "image");
      assert.equal(image?.mimeType, "image/jpeg");
      // A real JPEG: SOI marker first.
      const bytes = Uint8Array.fromBase64(image?.data ?? "");
      assert.deepEqual([...bytes.subarray(0, 3)], [0xff, 0xd8, 0xff]);
    } finally {
      await mcp.close();
    }
  },
);

/** Motion on a fake host whose timers fire when the test says: steps, not the clock. */
function motionRig(settings: Partial<MotionSettings>) {
  const state = initialState();
  const timers = new Map<number, { ms: number; fire: () => void }>();
  let next = 1;
  let changes = 0;
  const motion: Motion = new Motion({
    state,
    timer: (ms, fire) => {
      const id = next++;
      timers.set(id, { ms, fire });
      return id as unknown as ReturnType<typeof setTimeout>;
    },
    cancel: (t) => void timers.delete(t as unknown as number),
    changed: () => {
      changes++;
      motion.announce();
      return Promise.resolve();
    },
  }, settings);
  /** Fires the pending timers in order, as their time comes. */
  const fireAll = () => {
    const due = [...timers.entries()].sort((a, b) => a[1].ms - b[1].ms);
    timers.clear();
    for (const [, t] of due) t.fire();
  };
  /** Applies a tool call the way the phone does after a command. */
  const act = (tool: string, argv: string[]) => {
    const before = structuredClone(state);
    applyToolCall(state, { width: 1080, height: 2400 }, tool, argv);
    motion.afterCommand(before);
    motion.announce();
  };
  return { state, motion, timers, fireAll, act, changes: () => changes };
}

Deno.test({
  name: "motion: a switch during a switch keeps the first screen on display until the last ends",
  permissions: "none",
  fn() {
    const r = motionRig({ launch: 300 });
    r.act("@launch", ["com.android.notes", ""]);
    assert.equal(r.motion.launching(), "com.android.launcher3 -> com.android.notes");
    r.act("@launch", ["com.android.settings", ""]);
    assert.equal(r.motion.launching(), "com.android.launcher3 -> com.android.settings");
    assert.equal(r.timers.size, 1, "the first switch's timer was replaced");
    r.fireAll();
    assert.equal(r.motion.launching(), null);
    assert.equal(r.motion.from, null);
    assert.deepEqual(r.motion.events().map((e) => `${e.seq} ${e.kind} ${e.detail}`), [
      "1 launch-start com.android.launcher3 -> com.android.notes",
      "2 launch-start com.android.launcher3 -> com.android.settings",
      "3 launch-end com.android.launcher3 -> com.android.settings",
    ]);
    assert.equal(r.changes(), 1, "the timer rewrote the files once");
  },
});

Deno.test({
  name: "motion: a second Save replaces the snackbar on screen and restarts its clock",
  permissions: "none",
  async fn() {
    const r = motionRig({ snackbarDelay: 0, snackbar: 1500 });
    // What a tap on Save does to the state (the screen model's saveNote), twice.
    r.state.app = "notes";
    r.state.saves = 1;
    r.motion.afterCommand({ ...structuredClone(r.state), saves: 0 });
    r.motion.announce();
    assert.equal(r.state.snackbar, "Saved");
    r.state.saves = 2;
    r.motion.afterCommand({ ...structuredClone(r.state), saves: 1 });
    r.motion.announce();
    assert.equal(r.state.snackbar, "Saved");
    assert.equal(r.timers.size, 1, "one snackbar clock");
    const gone = r.motion.until("snackbar-gone", 2);
    r.fireAll();
    assert.equal(r.state.snackbar, null);
    assert.equal((await gone).seq, 4);
    assert.deepEqual(r.motion.events().map((e) => e.kind), [
      "snackbar-shown",
      "snackbar-gone",
      "snackbar-shown",
      "snackbar-gone",
    ]);
  },
});

Deno.test({
  name:
    "motion: until() counts past events, waits for future ones, and fails when the phone closes",
  permissions: "none",
  async fn() {
    const r = motionRig({ launch: "held" });
    r.act("@launch", ["com.android.notes", ""]);
    assert.equal((await r.motion.until("launch-start")).seq, 1);
    const end = r.motion.until("launch-end");
    assert.equal(await r.motion.release("launch"), true);
    assert.equal((await end).detail, "com.android.launcher3 -> com.android.notes");
    const never = r.motion.until("launch-end", 2);
    r.motion.close();
    await assert.rejects(never, /sim closed before launch-end #2/);
    assert.equal(await r.motion.release("snackbar"), false);
  },
});

Deno.test("one phone through real adb, its motion set per step (a step per check)", async (t) => {
  await using rig = await startRig({ phones: [{}], phoneEye: false, adbServer: adbServer! });
  for (const [name, motion, check] of onPhone) {
    await t.step(name, async () => {
      await resetPhone(rig.sim, motion);
      await check(rig.sim, rig.adb, rig.sim.motion.events().length);
    });
  }
});
