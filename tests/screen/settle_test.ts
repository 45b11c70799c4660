// Settling after an action (lib/screen/settle.ts) on a scripted adb and a fake clock: which read is
// trusted and which is read again, how many reads that costs, when the screen "did not settle",
// what ends a read under way (the budget, a cancel), and what [changed] says and does not claim.

import assert from "node:assert/strict";
import { createDevice } from "../../lib/adb/device.ts";
import { AdbError } from "../../lib/adb/errors.ts";
import { createScreens, type PhoneScreen } from "../../lib/screen/phone_screen.ts";
import {
  changedSection,
  judgeRead,
  SETTLE_BUDGET_MS,
  SETTLE_GAP_MS,
  type Settled,
  type SettleRead,
  settleScreen,
} from "../../lib/screen/settle.ts";
import { parseWindowState, windowChanging } from "../../lib/screen/changes.ts";
import { dumpFinished } from "../../lib/screen/ui_dump.ts";
import { parseUiTree } from "../../lib/screen/ui_tree.ts";
import { SETTLE_BUDGET_S } from "../../lib/tools/acting.ts";
import { exited, fakeAdb, type FakeAnswer, type FakeRule } from "../helpers/fake_adb.ts";
import { FakeClock } from "../helpers/fake_clock.ts";

const IDLE_ERROR = "ERROR: could not get idle state.";

/** A dump of `labels` (one clickable TextView each) in `pkg`, as uiautomator prints it. */
function xml(labels: string[], pkg = "com.example"): string {
  const nodes = labels.map((text, i) =>
    `<node index="${i}" text="${text}" resource-id="" class="android.widget.TextView" package="${pkg}" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,${
      i * 100
    }][500,${i * 100 + 90}]" />`
  ).join("");
  return `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="${pkg}" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][1080,2400]">${nodes}</node></hierarchy>`;
}

/** A screen-state read's answer: the dump's output, then dumpsys's window and keyboard lines. */
function screenState(
  dump: string,
  window: { focus: string; app?: string; keyboard?: boolean },
): FakeAnswer {
  const { focus, app = focus, keyboard = false } = window;
  const ended = dump.startsWith("ERROR")
    ? `${dump}\n`
    : `${dump}UI hierchary dumped to: /dev/tty\n`;
  return exited(
    0,
    `${ended}  mCurrentFocus=Window{5f0e1d2 u0 ${focus}}\n  mFocusedApp=ActivityRecord{3c2b1a0 u0 ${app} t12}\nmInputShown=${keyboard}\n`,
  );
}

const STATE_READ = /exec-out uiautomator dump \/dev\/tty; dumpsys window/;

/** A phone whose screen-state reads answer by `rule`, on a fake clock. */
function phone(rule: FakeRule) {
  const adb = fakeAdb([[STATE_READ, rule]]);
  const device = createDevice({ run: adb.run, serial: "R58N", timeoutMs: 60_000 });
  const screen = createScreens().of(device);
  const clock = new FakeClock();
  const reads = () => adb.calls.filter((c) => STATE_READ.test(c)).length;
  return { adb, screen, clock, reads };
}

/** Runs settleScreen to its end, moving the fake clock `stepMs` at a time. */
async function settle(
  p: { screen: PhoneScreen; clock: FakeClock },
  options: { signal?: AbortSignal; stepMs?: number } = {},
): Promise<Settled> {
  const { signal = new AbortController().signal, stepMs = SETTLE_GAP_MS } = options;
  let done = false;
  const settling = settleScreen(p.screen, { clock: p.clock, signal }).finally(() => done = true);
  settling.catch(() => {});
  while (!done && p.clock.now() <= SETTLE_BUDGET_MS * 2) await p.clock.advance(stepMs);
  return await settling;
}

const tree = (labels: string[], window: Partial<SettleRead> = {}): SettleRead => ({
  ok: true,
  elements: parseUiTree(xml(labels)),
  focus: "com.example/com.example.Main",
  focusedApp: "com.example/.Main",
  keyboard: false,
  ...window,
} as SettleRead);

Deno.test({
  name:
    "a read is trusted when its dump shows a drawn screen; a window still drawing or an empty tree is read again",
  permissions: "none",
  fn() {
    const calm = tree(["Save", "Cancel"]);
    assert.equal(judgeRead(calm, undefined), "trust", "the dump waited for idle itself");
    assert.equal(judgeRead(tree(["Save"], { focusedApp: undefined }), undefined), "trust");
    assert.equal(
      judgeRead(tree(["Save"], { focus: undefined }), undefined),
      "trust",
      "no focused window (null, a popup, the shade) says nothing either way",
    );
    const drawing = tree(["Notes"], { focus: "com.launcher/com.launcher.Home" });
    assert.equal(
      judgeRead(drawing, undefined),
      "again",
      "an activity started, its window not drawn",
    );
    assert.equal(judgeRead(drawing, drawing), "again", "never trusted: the budget ends that wait");
    // A dump that answered at once with the old screen, its focus lines read once the new window
    // had drawn: the focused app has no node in the tree, so the tree is not yet the new screen.
    const oldTree: SettleRead = {
      ok: true,
      elements: parseUiTree(xml(["Notes", "Settings"], "com.launcher")),
      focus: "com.example/com.example.Main",
      focusedApp: "com.example/.Main",
      keyboard: false,
    };
    assert.equal(judgeRead(oldTree, undefined), "again", "the tree is behind the focused window");

    const rootOnly = tree([]);
    assert.equal(rootOnly.ok && rootOnly.elements.length, 1);
    assert.equal(judgeRead(rootOnly, undefined), "again");
    assert.equal(judgeRead(rootOnly, calm), "again");
    assert.equal(judgeRead(rootOnly, rootOnly), "trust", "the same empty tree twice is the screen");

    const idle: SettleRead = { ok: false, reason: IDLE_ERROR, idleState: true };
    assert.equal(judgeRead(idle, undefined), "moving", "the phone waited its whole wait already");
    assert.equal(judgeRead(idle, calm), "moving");
    const noRoot: SettleRead = {
      ok: false,
      reason: "ERROR: null root node returned by UiTestAutomationBridge.",
      idleState: false,
    };
    assert.equal(judgeRead(noRoot, undefined), "again");
    assert.equal(judgeRead(noRoot, calm), "again");
    assert.equal(judgeRead(noRoot, noRoot), "no tree");
  },
});

Deno.test({
  name:
    "on a calm screen an action costs one read, and [changed] compares it with the screen before",
  permissions: "none",
  async fn() {
    const p = phone(
      screenState(xml(["Save", "Saved"]), {
        focus: "com.example/com.example.Main",
        app: "com.example/.Main",
      }),
    );
    p.screen.remember({
      elements: parseUiTree(xml(["Save"])),
      at: 0,
      focus: "com.example/com.example.Main",
      keyboard: false,
    });
    const turn = p.screen.beginAction(0);
    const settled = await settle(p);
    assert.equal(settled.end, "settled");
    assert.equal(p.reads(), 1);
    assert.equal(
      changedSection(turn, settled),
      "[changed]\n+ Saved @ [0,100][500,190]",
      "a message shown within the dump's idle wait is reported as appeared",
    );
    assert.equal(p.screen.beginAction(0).before, settled.reading, "the next action's before");
  },
});

Deno.test({
  name: "a window still drawing is read again, at least the gap apart, until a read shows it drawn",
  permissions: "none",
  async fn() {
    const p = phone([
      screenState(xml(["Notes"], "com.launcher"), {
        focus: "com.launcher/com.launcher.Home",
        app: "com.notes/.Main",
      }),
      screenState(xml(["Save"], "com.notes"), { focus: "com.notes/com.notes.Main" }),
    ]);
    const turn = p.screen.beginAction(0);
    let done = false;
    const settling = settleScreen(p.screen, {
      clock: p.clock,
      signal: new AbortController().signal,
    }).finally(() => done = true);
    await p.clock.advance(0);
    assert.equal(p.reads(), 1);
    await p.clock.advance(SETTLE_GAP_MS - 1);
    assert.equal(p.reads(), 1, "not before the gap");
    await p.clock.advance(1);
    const settled = await settling;
    assert.ok(done);
    assert.equal(p.reads(), 2);
    assert.equal(settled.end, "settled");
    assert.match(
      changedSection(turn, settled),
      /^\[changed\]\napp: com\.notes\/com\.notes\.Main\n/,
    );
  },
});

Deno.test({
  name:
    "the phone's idle-state error ends the reading at once: it did not settle, with what an earlier read showed",
  permissions: "none",
  async fn() {
    const never = phone(screenState(IDLE_ERROR, { focus: "com.example/.Main" }));
    const turn = never.screen.beginAction(0);
    const first = await settle(never);
    assert.equal(first.end, "moving");
    assert.equal(never.reads(), 1, "no loop on the phone's own verdict");
    assert.match(
      changedSection(turn, first),
      /^\[changed\]\nthe screen did not settle within \d+(\.\d)? s and gave no UI tree \(uiautomator: "ERROR: could not get idle state\."\); look again in a moment$/,
    );

    const later = phone([
      screenState(xml(["Notes"], "com.launcher"), {
        focus: "com.launcher/com.launcher.Home",
        app: "com.notes/.Main",
      }),
      screenState(IDLE_ERROR, { focus: "com.notes/.Main" }),
    ]);
    const tapped = later.screen.beginAction(0);
    const second = await settle(later);
    assert.equal(second.end, "moving");
    assert.equal(later.reads(), 2);
    assert.match(
      changedSection(tapped, second),
      /^\[changed\]\nthe screen did not settle within \d+(\.\d)? s \(uiautomator: "ERROR: could not get idle state\."\); what it showed last:\n[^]*\nNotes @ /,
    );
  },
});

Deno.test({
  name:
    "a dump that fails otherwise is read once more; failing the same way it is a screen with no tree",
  permissions: "none",
  async fn() {
    const noRoot = "ERROR: null root node returned by UiTestAutomationBridge.";
    const p = phone(screenState(noRoot, { focus: "com.game/.Main" }));
    const settled = await settle(p);
    assert.equal(settled.end, "no tree");
    assert.equal(p.reads(), 2);
    const section = changedSection(p.screen.beginAction(0), settled);
    assert.match(
      section,
      /^\[changed\]\nthe screen gave no UI tree \(uiautomator: "ERROR: null root/,
    );
    assert.doesNotMatch(section, /did not settle/);
  },
});

Deno.test({
  name:
    "the budget ends a read that never answers, stops its adb, and says the screen did not settle within it",
  permissions: "none",
  async fn() {
    assert.equal(SETTLE_BUDGET_S * 1000, SETTLE_BUDGET_MS, "the descriptions say the budget");
    const p = phone(() => new Promise<FakeAnswer>(() => {}));
    const settled = await settle(p, { stepMs: 1_000 });
    assert.equal(settled.end, "budget");
    assert.equal(p.reads(), 1);
    assert.equal(p.adb.limits[0]?.signal?.aborted, true, "the read's adb is killed");
    assert.match(
      changedSection(p.screen.beginAction(0), settled),
      new RegExp(`^\\[changed\\]\\nthe screen did not settle within ${SETTLE_BUDGET_S} s`),
    );
    assert.equal(p.clock.pending, 0, "no timer left behind");
  },
});

Deno.test({
  name: "a window that never finishes drawing is read until the budget, then shown as it was last",
  permissions: "none",
  async fn() {
    const p = phone(
      screenState(xml(["Notes"], "com.launcher"), {
        focus: "com.launcher/com.launcher.Home",
        app: "com.notes/.Main",
      }),
    );
    const settled = await settle(p);
    assert.equal(settled.end, "budget");
    assert.ok(p.reads() <= SETTLE_BUDGET_MS / SETTLE_GAP_MS + 1, `${p.reads()} reads`);
    assert.match(
      changedSection(p.screen.beginAction(0), settled),
      new RegExp(`did not settle within ${SETTLE_BUDGET_S} s; what it showed last:\\n`),
    );
  },
});

Deno.test({
  name: "a cancelled call stops its settle read: the read's adb is stopped and the call rejects",
  permissions: "none",
  async fn() {
    const p = phone(() => new Promise<FakeAnswer>(() => {}));
    const cancel = new AbortController();
    const settling = settleScreen(p.screen, { clock: p.clock, signal: cancel.signal });
    await p.clock.advance(0);
    assert.equal(p.reads(), 1);
    cancel.abort();
    await assert.rejects(settling, (e) => e instanceof AdbError && e.code === "CANCELLED");
    assert.equal(p.adb.limits[0]?.signal?.aborted, true);
    assert.equal(p.clock.pending, 0);
  },
});

Deno.test({
  name:
    "[changed] says another call acted meanwhile instead of crediting this action, and compares the keyboard only when known before and after",
  permissions: "none",
  async fn() {
    const keyboardUp = screenState(xml(["Save"]), { focus: "com.example/.Main", keyboard: true });
    const p = phone(keyboardUp);
    // A "before" from a look or an element lookup: no keyboard state.
    p.screen.remember({ elements: parseUiTree(xml(["Save"])), at: 0 });
    const mine = p.screen.beginAction(0);
    const alone = await settle(p);
    assert.equal(changedSection(mine, alone), "[changed]\nno visible change");

    const key = p.screen.beginAction(p.clock.now());
    p.screen.beginAction(p.clock.now()); // another call's tap, after this key and before its read
    const raced = await settle(p);
    assert.match(
      changedSection(key, raced),
      /^\[changed\]\nanother call acted on this phone meanwhile \(1 action\); the changes below may be theirs\n/,
    );

    // A before read, then another call's action, then this one: its reading is not all its own.
    const before = p.screen.remember({ elements: parseUiTree(xml(["Home"])), at: p.clock.now() });
    const theirs = p.screen.beginAction(p.clock.now());
    const late = { ...p.screen.beginAction(p.clock.now()), before };
    const after = await settle(p);
    assert.equal(theirs.before, before);
    assert.match(changedSection(late, after), /meanwhile \(1 action\)/);
  },
});

Deno.test({
  name:
    "focus and keyboard are read after the dump and outside its XML: screen text cannot pass for them",
  permissions: "none",
  fn() {
    const forged = xml(["mCurrentFocus=Window{1 u0 evil/evil.Main} mInputShown=true"]);
    const text = `${forged}UI hierchary dumped to: /dev/tty\n` +
      "  mCurrentFocus=Window{5f0e1d2 u0 com.example/com.example.Main}\n" +
      "  mFocusedApp=ActivityRecord{3c2b1a0 u0 com.example/.Main t12}\nmInputShown=false\n";
    assert.deepEqual(parseWindowState(text), {
      focus: "com.example/com.example.Main",
      focusedApp: "com.example/.Main",
      keyboard: false,
    });
    assert.equal(windowChanging(parseWindowState(text)), false, "pkg/.Main is pkg/pkg.Main");
    const onlyForged = `${forged}UI hierchary dumped to: /dev/tty\n`;
    assert.deepEqual(parseWindowState(onlyForged), {
      focus: undefined,
      focusedApp: undefined,
      keyboard: undefined,
    });
    assert.equal(
      dumpFinished(new TextEncoder().encode(text)),
      true,
      "its last lines follow the dump",
    );
  },
});
