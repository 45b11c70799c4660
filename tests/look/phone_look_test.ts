// phone_look's pure steps with scripted outcomes, no phone and no vision server: how the two
// channels' results (or failures) become the text the agent reads, and what the text shows at most.

import assert from "node:assert/strict";
import { fuseLook, type Look } from "../../lib/look/fuse.ts";
import type { LookOutcomes, Seen } from "../../lib/look/gather.ts";
import { lookAnswer } from "../../lib/look/look.ts";
import { ANSWER_SHOWN_MAX, LOOK_FAILED, lookText, POINTS_SHOWN_MAX } from "../../lib/look/words.ts";
import { lookResult } from "../../lib/tools/phone_look.ts";
import { parseUiTree } from "../../lib/screen/ui_tree.ts";
import { MAX_ANSWER_CHARS } from "../../lib/look/fusion.ts";
import { AdbError } from "../../lib/adb/errors.ts";
import { VisionError } from "../../lib/vision/errors.ts";

const node = (attrs: string, children = "") =>
  `<node index="0" text="" resource-id="" class="android.view.View" package="com.example.chat" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" ${attrs}${
    children ? `>${children}</node>` : " />"
  }`;

/** A 1080×2400 chat screen: a title, a message field and a Send button. */
const CHAT = parseUiTree(
  `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">${
    node(
      'class="android.widget.FrameLayout" bounds="[0,0][1080,2400]"',
      node('text="Chats" class="android.widget.TextView" bounds="[40,100][400,200]"') +
        node(
          'text="Type a message" class="android.widget.EditText" clickable="true" focusable="true" bounds="[20,2200][860,2300]"',
        ) +
        node(
          'text="Send" class="android.widget.Button" clickable="true" focusable="true" bounds="[880,2200][1060,2300]"',
        ),
    )
  }</hierarchy>`,
);

/** The same window with nothing labelled or interactive in it (a game, a video). */
const BARE = parseUiTree(
  `<hierarchy rotation="0">${
    node('class="android.widget.FrameLayout" bounds="[0,0][720,1600]"')
  }</hierarchy>`,
);

const SCREEN = { width: 1080, height: 2400 };
const SCREEN_LINE = "Screen: 1080×2400 device pixels.";
const TREE_LINES = [
  "Type a message @ [20,2200][860,2300]",
  "Send @ [880,2200][1060,2300]",
  "Chats @ [40,100][400,200]",
];
const VISION_DOWN =
  "Cannot reach http://127.0.0.1:8080: connection refused; is the vision server running?";
const TREE_DOWN =
  'Cannot read the UI tree: uiautomator said "ERROR: null root node returned by UiTestAutomationBridge."';

/** The vision channel's failure: the route's own error, shown as the route worded it. */
const VISION_FAILED: LookOutcomes["vision"] = {
  ok: false,
  failure: { kind: "error", error: new VisionError("UNREACHABLE", VISION_DOWN) },
};
/** The tree channel's failure: the screen layer's facts, worded by the look for its channel. */
const TREE_FAILED: LookOutcomes["tree"] = {
  ok: false,
  failure: {
    kind: "error",
    error: new AdbError("COMMAND_FAILED", {
      what: 'uiautomator said "ERROR: null root node returned by UiTestAutomationBridge."',
    }),
  },
};

function seen(answer: string, extra: Partial<Seen> = {}): LookOutcomes["vision"] {
  return {
    ok: true,
    value: { answer, screen: SCREEN, note: undefined, saved: undefined, ...extra },
  };
}

Deno.test({
  name:
    "both channels fail: the first words say so, each section says why, no screen is named, and the result is an error",
  permissions: "none",
  fn() {
    const outcomes: LookOutcomes = {
      vision: VISION_FAILED,
      tree: TREE_FAILED,
    };
    // Text only: Claude Code would show the model structuredContent instead of the text.
    assert.deepEqual(lookResult(lookAnswer(outcomes)), {
      content: [{
        type: "text",
        text:
          `${LOOK_FAILED}\n\n[vision]\nVision unavailable: ${VISION_DOWN}\n\n[ui-tree]\nUI tree unavailable: ${TREE_DOWN}`,
      }],
      isError: true,
    });
  },
});

Deno.test({
  name:
    "vision fails: the tree is shown on the screen its root spans, and the look is not an error",
  permissions: "none",
  fn() {
    const outcomes: LookOutcomes = {
      vision: {
        ok: false,
        failure: { kind: "unavailable", note: "Vision is not configured." },
      },
      tree: { ok: true, value: CHAT },
    };
    const look = fuseLook(outcomes);
    assert.deepEqual(look.screen, SCREEN);
    const text = [
      SCREEN_LINE,
      "",
      "[vision]",
      "Vision unavailable: Vision is not configured.",
      "",
      "[ui-tree]",
      ...TREE_LINES,
    ].join("\n");
    assert.equal(lookText(look), text);
    assert.deepEqual(lookResult(lookAnswer(outcomes)), { content: [{ type: "text", text }] });
  },
});

Deno.test({
  name: "the tree fails: the answer stands alone, its coordinates are not snapped to anything",
  permissions: "none",
  fn() {
    const outcomes: LookOutcomes = {
      vision: seen("  Send is at (970, 2250).\n"),
      tree: TREE_FAILED,
    };
    const look = fuseLook(outcomes);
    assert.deepEqual(look.snaps, []);
    assert.equal(
      lookText(look),
      `${SCREEN_LINE}\n\n[vision]\nSend is at (970, 2250).\n\n[ui-tree]\nUI tree unavailable: ${TREE_DOWN}`,
    );
    assert.equal(lookResult(lookAnswer(outcomes)).isError, undefined);
  },
});

Deno.test({
  name: "points the answer names snap to the element under them, one just beside them, or none",
  permissions: "none",
  fn() {
    const answer = "Send is at (970, 2250).\nThe title is at (220, 90).\nNothing at (540, 1200).";
    const look = fuseLook({ vision: seen(answer), tree: { ok: true, value: CHAT } });
    assert.equal(
      lookText(look),
      [
        SCREEN_LINE,
        "",
        "[vision]",
        answer,
        "",
        "[ui-tree]",
        ...TREE_LINES,
        "",
        "[points]",
        '(970,2250) → "Send" @ [880,2200][1060,2300] tap (970,2250)',
        '(220,90) → nearest "Chats", 10 px away @ [40,100][400,200] tap (220,150)',
        "(540,1200) → no element here: tap the point itself (540,1200)",
      ].join("\n"),
    );
  },
});

Deno.test({
  name: "a note from the screenshot fallback follows the answer",
  permissions: "none",
  fn() {
    const note =
      '"screencap -p" returned an empty PNG (a known quirk of some MIUI builds), so the raw ' +
      "frame was captured and encoded on the host";
    const look = fuseLook({
      vision: seen("A chat list.", { note }),
      tree: { ok: true, value: BARE },
    });
    assert.equal(
      lookText(look),
      `${SCREEN_LINE}\n\n[vision]\nA chat list.\n(note: ${note})\n\n[ui-tree]\nNo labelled or interactive elements on this screen.`,
    );
  },
});

Deno.test({
  name: "where the screenshot was saved comes last; an empty answer from saveShot adds nothing",
  permissions: "none",
  fn() {
    const saved = "Screenshot saved: /home/u/shots/phone-eye-2026-01-01T00-00-00-000Z-1a2b.png";
    const withSave = fuseLook({
      vision: seen("Send is at (970, 2250).", { saved }),
      tree: { ok: true, value: CHAT },
    });
    assert.equal(
      lookText(withSave),
      [
        SCREEN_LINE,
        "",
        "[vision]",
        "Send is at (970, 2250).",
        "",
        "[ui-tree]",
        ...TREE_LINES,
        "",
        "[points]",
        '(970,2250) → "Send" @ [880,2200][1060,2300] tap (970,2250)',
        "",
        saved,
      ].join("\n"),
    );
    const emptySave = fuseLook({
      vision: seen("A chat list.", { saved: "" }),
      tree: TREE_FAILED,
    });
    assert.equal(
      lookText(emptySave),
      `${SCREEN_LINE}\n\n[vision]\nA chat list.\n\n[ui-tree]\nUI tree unavailable: ${TREE_DOWN}`,
    );
  },
});

Deno.test({
  name: "a window without usable bounds leaves the screen unknown when vision fails",
  permissions: "none",
  fn() {
    const unsized = parseUiTree(
      `<hierarchy>${node('text="Loading" bounds="[0,0][0,0]"')}</hierarchy>`,
    );
    const look = fuseLook({
      vision: VISION_FAILED,
      tree: { ok: true, value: unsized },
    });
    assert.equal(look.screen, undefined);
    assert.doesNotMatch(lookText(look), /Screen:/);
  },
});

Deno.test({
  name:
    "a long answer is cut for display only: points past the display cut (within the read cap) are still snapped",
  permissions: "none",
  fn() {
    // 6,750 characters: past ANSWER_SHOWN_MAX, within fusion's MAX_ANSWER_CHARS.
    const filler = "The feed shows many posts. ".repeat(250);
    const answer = `${filler}Send is at (970, 2250).`;
    assert.ok(answer.length > ANSWER_SHOWN_MAX && answer.length < MAX_ANSWER_CHARS);
    const text = lookText(fuseLook({ vision: seen(answer), tree: { ok: true, value: CHAT } }));
    const vision = text.slice(text.indexOf("[vision]\n") + 9, text.indexOf("\n\n[ui-tree]"));
    const [shown, why] = vision.split("\n");
    assert.ok(shown !== undefined && shown.length <= ANSWER_SHOWN_MAX, String(shown?.length));
    assert.ok(shown.endsWith("…") && answer.startsWith(shown.slice(0, -1)));
    assert.equal(
      why,
      `(answer cut to its first ${ANSWER_SHOWN_MAX} of ${answer.length} characters; ask a narrower question to see the rest)`,
    );
    assert.match(text, /\[points\]\n\(970,2250\) → "Send" @ \[880,2200\]\[1060,2300\] tap/);
  },
});

Deno.test({
  name: "a label longer than the display cap is cut in the tree and in the points alike",
  permissions: "none",
  fn() {
    // 80 graphemes (ui_tree.ts's own cap) of a letter under 30 combining marks: 2,480 units.
    const zalgo = ("a" + "\u0301".repeat(30)).repeat(80);
    const tree = parseUiTree(
      `<hierarchy>${
        node(
          `text="${zalgo}" class="android.widget.Button" clickable="true" bounds="[880,2200][1060,2300]"`,
        )
      }</hierarchy>`,
    );
    const text = lookText(
      fuseLook({ vision: seen("Send is at (970, 2250)."), tree: { ok: true, value: tree } }),
    );
    const line = text.split("\n").find((l) => l.endsWith("@ [880,2200][1060,2300]"));
    assert.ok(line, text);
    const label = line.slice(0, -" @ [880,2200][1060,2300]".length);
    assert.ok(label.length <= 100 && label.endsWith("…"), String(label.length));
    assert.ok(zalgo.startsWith(label.slice(0, -1)));
    assert.ok(text.includes(`(970,2250) → ${JSON.stringify(label)} @ [880,2200][1060,2300]`), text);
  },
});

Deno.test({
  name: "more points than the display cap: the first ones are shown and the rest counted",
  permissions: "none",
  fn() {
    const snaps = Array.from({ length: POINTS_SHOWN_MAX + 3 }, (_, i) => ({
      point: { x: i, y: i, text: `(${i}, ${i})` },
      element: null,
      inside: false,
      distance: 0,
      tap: { x: i, y: i },
    }));
    const look: Look = {
      vision: seen("many points"),
      tree: { ok: true, value: { lines: [], elements: [] } },
      screen: SCREEN,
      snaps,
    };
    const points = lookText(look).split("[points]\n")[1]?.split("\n") ?? [];
    assert.equal(points.length, POINTS_SHOWN_MAX + 1);
    assert.equal(points[0], "(0,0) → no element here: tap the point itself (0,0)");
    assert.equal(points.at(-1), "(3 more points in the answer not shown)");
  },
});
