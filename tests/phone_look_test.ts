// phone_look's pure steps with scripted outcomes, no phone and no vision server: how the two
// channels' results (or failures) become the text the agent reads and the structured data.

import assert from "node:assert/strict";
import {
  fuseLook,
  lookData,
  type LookOutcomes,
  lookResult,
  lookText,
  type Seen,
} from "../lib/tools/phone_look.ts";
import { parseUiTree } from "../lib/ui_tree.ts";

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
const TREE_LINES = [
  "Type a message @ [20,2200][860,2300]",
  "Send @ [880,2200][1060,2300]",
  "Chats @ [40,100][400,200]",
];
const TREE_ELEMENTS = [
  {
    label: "Type a message",
    bounds: [20, 2200, 860, 2300],
    center: { x: 440, y: 2250 },
    clickable: true,
  },
  { label: "Send", bounds: [880, 2200, 1060, 2300], center: { x: 970, y: 2250 }, clickable: true },
  { label: "Chats", bounds: [40, 100, 400, 200], center: { x: 220, y: 150 }, clickable: false },
];
const VISION_DOWN =
  "Cannot reach http://127.0.0.1:8080: connection refused; is the vision server running?";
const TREE_DOWN =
  'Cannot read the UI tree: uiautomator said "ERROR: null root node returned by UiTestAutomationBridge."';

function seen(answer: string, extra: Partial<Seen> = {}): LookOutcomes["vision"] {
  return {
    ok: true,
    value: { answer, screen: SCREEN, note: undefined, saved: undefined, ...extra },
  };
}

Deno.test({
  name:
    "both channels fail: each says why, nothing is placed on a screen, and the result is an error",
  permissions: "none",
  fn() {
    const outcomes: LookOutcomes = {
      route: "direct",
      vision: { ok: false, reason: VISION_DOWN },
      tree: { ok: false, reason: TREE_DOWN },
    };
    const result = lookResult(outcomes);
    assert.deepEqual(result, {
      content: [{
        type: "text",
        text:
          `[vision]\nVision unavailable: ${VISION_DOWN}\n\n[ui-tree]\nUI tree unavailable: ${TREE_DOWN}`,
      }],
      structuredContent: {
        screen: null,
        vision: { ok: false, route: "direct", error: VISION_DOWN },
        tree: { ok: false, error: TREE_DOWN },
        elements: [],
        points: [],
      },
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
      route: "none",
      vision: { ok: false, reason: "Vision is not configured." },
      tree: { ok: true, value: CHAT },
    };
    const look = fuseLook(outcomes);
    assert.deepEqual(look.screen, SCREEN);
    assert.equal(
      lookText(look),
      ["[vision]", "Vision unavailable: Vision is not configured.", "", "[ui-tree]", ...TREE_LINES]
        .join("\n"),
    );
    assert.deepEqual(lookData(look), {
      screen: SCREEN,
      vision: { ok: false, route: "none", error: "Vision is not configured." },
      tree: { ok: true },
      elements: TREE_ELEMENTS,
      points: [],
    });
    assert.equal(lookResult(outcomes).isError, undefined);
  },
});

Deno.test({
  name: "the tree fails: the answer stands alone, its coordinates are not snapped to anything",
  permissions: "none",
  fn() {
    const outcomes: LookOutcomes = {
      route: "mcp",
      vision: seen("  Send is at (970, 2250).\n"),
      tree: { ok: false, reason: TREE_DOWN },
    };
    const look = fuseLook(outcomes);
    assert.equal(
      lookText(look),
      `[vision]\nSend is at (970, 2250).\n\n[ui-tree]\nUI tree unavailable: ${TREE_DOWN}`,
    );
    assert.deepEqual(lookData(look), {
      screen: SCREEN,
      // The structured answer is the model's own text, untrimmed.
      vision: { ok: true, route: "mcp", answer: "  Send is at (970, 2250).\n" },
      tree: { ok: false, error: TREE_DOWN },
      elements: [],
      points: [],
    });
    assert.equal(lookResult(outcomes).isError, undefined);
  },
});

Deno.test({
  name: "points the answer names snap to the element under them, one just beside them, or none",
  permissions: "none",
  fn() {
    const answer = "Send is at (970, 2250).\nThe title is at (220, 90).\nNothing at (540, 1200).";
    const look = fuseLook({
      route: "direct",
      vision: seen(answer),
      tree: { ok: true, value: CHAT },
    });
    assert.equal(
      lookText(look),
      [
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
    const [typeField, send, chats] = TREE_ELEMENTS;
    assert.deepEqual(lookData(look), {
      screen: SCREEN,
      vision: { ok: true, route: "direct", answer },
      tree: { ok: true },
      elements: [typeField, send, chats],
      points: [
        {
          x: 970,
          y: 2250,
          text: "Send is at (970, 2250).",
          element: send,
          inside: true,
          distance: 0,
        },
        {
          x: 220,
          y: 90,
          text: "The title is at (220, 90).",
          element: chats,
          inside: false,
          distance: 10,
        },
        {
          x: 540,
          y: 1200,
          text: "Nothing at (540, 1200).",
          element: null,
          inside: false,
          distance: 0,
        },
      ],
    });
  },
});

Deno.test({
  name: "a note from the screenshot fallback follows the answer, and the data leaves it out",
  permissions: "none",
  fn() {
    const note =
      '"screencap -p" returned an empty PNG (a known quirk of some MIUI builds), so the raw ' +
      "frame was captured and encoded on the host";
    const look = fuseLook({
      route: "direct",
      vision: seen("A chat list.", { note }),
      tree: { ok: true, value: BARE },
    });
    assert.equal(
      lookText(look),
      `[vision]\nA chat list.\n(note: ${note})\n\n[ui-tree]\nNo labelled or interactive elements on this screen.`,
    );
    assert.deepEqual(lookData(look), {
      screen: SCREEN,
      vision: { ok: true, route: "direct", answer: "A chat list." },
      tree: { ok: true },
      elements: [],
      points: [],
    });
  },
});

Deno.test({
  name: "where the screenshot was saved comes last; an empty answer from saveShot adds nothing",
  permissions: "none",
  fn() {
    const saved = "Screenshot saved: /home/u/shots/phone-eye-2026-01-01T00-00-00-000Z-1a2b.png";
    const withSave = fuseLook({
      route: "direct",
      vision: seen("Send is at (970, 2250).", { saved }),
      tree: { ok: true, value: CHAT },
    });
    assert.equal(
      lookText(withSave),
      [
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
    assert.equal("saved" in lookData(withSave), false);
    const emptySave = fuseLook({
      route: "direct",
      vision: seen("A chat list.", { saved: "" }),
      tree: { ok: false, reason: TREE_DOWN },
    });
    assert.equal(
      lookText(emptySave),
      `[vision]\nA chat list.\n\n[ui-tree]\nUI tree unavailable: ${TREE_DOWN}`,
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
      route: "direct",
      vision: { ok: false, reason: VISION_DOWN },
      tree: { ok: true, value: unsized },
    });
    assert.equal(look.screen, undefined);
    assert.equal(lookData(look).screen, null);
  },
});
