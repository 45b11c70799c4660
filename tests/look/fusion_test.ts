import assert from "node:assert/strict";
import {
  buildVisionPrompt,
  extractPoints,
  formatSnapLines,
  MAX_ANSWER_CHARS,
  type Point,
  snapPoints,
} from "../../lib/look/fusion.ts";
import { parseUiTree, type UiElement } from "../../lib/screen/ui_tree.ts";
import { usefulElements } from "../../lib/screen/ui_tree_summary.ts";
import { assertLinearReads, assertSameAsRegexes } from "../helpers/extract_points_checks.ts";
import chatXml from "../fixtures/ui/chat.xml.txt" with { type: "text" };

function test(name: string, fn: () => void): void {
  Deno.test({ name, permissions: "none", fn });
}

const SCREEN = { width: 1080, height: 2400 };
const xy = (points: Point[]) => points.map((p) => [p.x, p.y]);
const chat = () => usefulElements(parseUiTree(chatXml));
const point = (x: number, y: number): Point => ({ x, y, text: `(${x}, ${y})` });

// --- extractPoints -----------------------------------------------------------------------------

const formatCases: [string, string, number[][]][] = [
  ["a parenthesised pair", "The Send button is at (540, 1200).", [[540, 1200]]],
  ["a bracketed pair", "Send: [540,1200]", [[540, 1200]]],
  ["x= and y=", "tap x=540, y=1200 to send", [[540, 1200]]],
  ["x: and y:", "position X: 540 px, Y: 1200 px", [[540, 1200]]],
  ["x and y joined by 'and'", "x = 540 and y = 1200", [[540, 1200]]],
  ["'at' with a bare pair", "The menu is at 540,1200.", [[540, 1200]]],
  ["'coordinates:' with a bare pair", "coordinates: 540, 1200", [[540, 1200]]],
  ["px units inside the brackets", "(540px, 1200px)", [[540, 1200]]],
  ["decimals, rounded", "(540.4, 1199.6)", [[540, 1200]]],
  ["a box written [x1,y1][x2,y2]", "Send @ [900,2200][1060,2300]", [[980, 2250]]],
  ["a box written (x1, y1, x2, y2)", "box (900, 2200, 1060, 2300)", [[980, 2250]]],
  ["a box written [x1, y1, x2, y2]", "box [900, 2200, 1060, 2300]", [[980, 2250]]],
];

for (const [name, text, expected] of formatCases) {
  test(`extractPoints reads ${name}`, () => {
    assert.deepEqual(xy(extractPoints(text, SCREEN)), expected);
  });
}

const ignoredCases: [string, string][] = [
  ["a screen size", "The screen is 1080x2400 and 1080 × 2400."],
  ["points outside the screen", "(1080, 10) (10, 2400) (-5, 100) (2000, 3000)"],
  ["normalized fractions", "The button is at (0.52, 0.91)."],
  ["a triple", "RGB (12, 30, 200)"],
  ["prose numbers", "It has 3 tabs, 2 buttons and 1, 2 or 3 items; version 1.2.3."],
  ["a number glued to a unit", "at 540,1200ms"],
];

for (const [name, text] of ignoredCases) {
  test(`extractPoints ignores ${name}`, () => {
    assert.deepEqual(extractPoints(text, SCREEN), []);
  });
}

test("extractPoints reads several formats in one answer, in order, without duplicates", () => {
  const answer = [
    "This is a chat list. Alice's conversation is at (450, 290).",
    "The Send button is at [880,2200][1060,2300], the PIN field spans (20, 2050, 860, 2150).",
    "A floating button sits at 960,1880; the overflow menu is at x=1000, y=150.",
    "Alice again: (450,290). Off-screen: (5000, 10).",
  ].join("\n");
  const points = extractPoints(answer, SCREEN);
  assert.deepEqual(xy(points), [[450, 290], [970, 2250], [440, 2100], [960, 1880], [1000, 150]]);
  assert.match(points[0]?.text ?? "", /Alice's conversation is at \(450, 290\)/);
  assert.match(points[1]?.text ?? "", /\[880,2200\]\[1060,2300\]/);
  assert.ok(points.every((p) => !p.text.includes("\n")));
});

test("extractPoints keeps device coordinates that lie outside a scaled-down image", () => {
  // The model saw a 540×1200 image but was asked for device pixels: (900, 2000) is on screen.
  const points = extractPoints("The Send button is at (900, 2000).", SCREEN);
  assert.deepEqual(xy(points), [[900, 2000]]);
});

test("extractPoints stops at 20 points", () => {
  const answer = Array.from({ length: 30 }, (_, i) => `item ${i} at (${10 + i}, ${20 + i})`).join(
    "\n",
  );
  const points = extractPoints(answer, SCREEN);
  assert.equal(points.length, 20);
  assert.deepEqual(points[19], { x: 29, y: 39, text: "item 19 at (29, 39)" });
});

test("extractPoints finds nothing in an answer without coordinates", () => {
  assert.deepEqual(extractPoints("", SCREEN), []);
  assert.deepEqual(extractPoints("A login screen with a blue button.", SCREEN), []);
});

test("extractPoints reads exactly what the regexes it replaced read, on 2,000 random answers", () => {
  // A tenth of the corpus tests/long/fusion_corpus_test.ts runs (20,000, from the same seed).
  assertSameAsRegexes(2_000);
});

test("extractPoints reads each character of an adversarial answer a bounded number of times", () => {
  // tests/long/fusion_corpus_test.ts runs the same shapes at 4,096 and 65,536 characters.
  assertLinearReads(1 << 10);
});

test("extractPoints reads only the first MAX_ANSWER_CHARS characters of an answer", () => {
  const padding = "word ".repeat(MAX_ANSWER_CHARS / 5 - 4); // 20 characters short of the cap
  const answer = `${padding}at (100, 200) and (300, 400) then (500, 600)`;
  assert.deepEqual(xy(extractPoints(answer, SCREEN)), [[100, 200]]); // (300, 4 is cut
  assert.deepEqual(xy(extractPoints(answer, SCREEN, Infinity)), [[100, 200], [300, 400], [
    500,
    600,
  ]]);
});

// --- snapPoints --------------------------------------------------------------------------------

/** A launcher: a long-clickable "workspace" filling the screen, four icons, a dock button. */
const launcher = () =>
  usefulElements(
    parseUiTree(
      `<hierarchy><node class="android.widget.FrameLayout" bounds="[0,0][1080,2400]">` +
        `<node resource-id="com.android.launcher3:id/workspace" scrollable="true" long-clickable="true" bounds="[0,72][1080,2280]">` +
        ["Notes", "Settings", "Browser", "Camera"].map((name, i) =>
          `<node text="${name}" clickable="true" bounds="[${i * 270},312][${i * 270 + 270},642]"/>`
        ).join("") +
        `</node><node content-desc="Phone" clickable="true" bounds="[60,2290][240,2390]"/>` +
        `</node></hierarchy>`,
    ),
    SCREEN,
  );
const none = (x: number, y: number) => ({
  point: point(x, y),
  element: null,
  inside: false,
  distance: 0,
  tap: { x, y },
});

test("snapPoints picks the smallest interactive element containing the point", () => {
  const [snap] = snapPoints([point(950, 2250)], chat(), SCREEN);
  assert.equal(snap?.inside, true);
  assert.equal(snap?.distance, 0);
  assert.equal(snap?.element?.label, "Send");
  assert.deepEqual(snap?.element?.bounds, { x1: 880, y1: 2200, x2: 1060, y2: 2300 });
  assert.deepEqual(snap?.tap, { x: 970, y: 2250 });
});

test("snapPoints prefers a control to the list that contains it", () => {
  const [snap] = snapPoints([point(960, 1880)], chat(), SCREEN);
  assert.equal(snap?.element?.label, "ImageButton");
  assert.equal(snap?.inside, true);
});

test("snapPoints falls back to the smallest labelled element when nothing interactive contains the point", () => {
  const elements: UiElement[] = usefulElements(parseUiTree(
    `<hierarchy><node bounds="[0,0][1080,2400]"><node content-desc="Banner" bounds="[0,0][1080,500]">` +
      `<node text="Welcome" bounds="[100,100][500,200]"/></node></node></hierarchy>`,
  ));
  const [inWelcome, inBanner] = snapPoints([point(200, 150), point(900, 400)], elements, SCREEN);
  assert.equal(inWelcome?.element?.label, "Welcome");
  assert.equal(inBanner?.element?.label, "Banner");
});

test("snapPoints prefers a labelled child to a scrolling strip around it: the strip is swiped", () => {
  const elements = usefulElements(parseUiTree(
    `<hierarchy><node bounds="[0,0][1080,2400]"><node content-desc="Photos" scrollable="true" bounds="[0,1000][1080,1400]">` +
      `<node content-desc="Beach" bounds="[40,1040][340,1360]"/></node></node></hierarchy>`,
  ));
  const [snap] = snapPoints([point(200, 1200)], elements, SCREEN);
  assert.equal(snap?.element?.label, "Beach");
});

test("snapPoints: a point on an icon snaps to it, and one just below it to it too", () => {
  const [on, below] = snapPoints([point(144, 470), point(135, 660)], launcher(), SCREEN);
  assert.equal(on?.element?.label, "Notes");
  assert.equal(on?.inside, true);
  assert.deepEqual(on?.tap, { x: 135, y: 477 });
  assert.equal(below?.element?.label, "Notes");
  assert.equal(below?.inside, false);
  assert.equal(below?.distance, 19); // bounds end at y 641 (exclusive 642)
  assert.deepEqual(below?.tap, { x: 135, y: 477 });
});

test("snapPoints never snaps to a full-screen container: the point is tapped where it is", () => {
  // Issue 11: (60,30), in the status bar, snapped to "workspace" 42 px away and tapped (540,1176),
  // 1,150 px from the point the model named. Inside the workspace's empty middle is no better.
  const snaps = snapPoints([point(60, 30), point(540, 1200)], launcher(), SCREEN);
  assert.deepEqual(snaps, [none(60, 30), none(540, 1200)]);
  assert.deepEqual(formatSnapLines(snaps), [
    "(60,30) → no element here: tap the point itself (60,30)",
    "(540,1200) → no element here: tap the point itself (540,1200)",
  ]);
});

test("snapPoints leaves a point far from every element where it is", () => {
  // 359 px below the icons, 1,648 px above the dock: nothing is near enough to stand for it.
  assert.deepEqual(snapPoints([point(400, 1000)], launcher(), SCREEN), [none(400, 1000)]);
});

test("snapPoints between two elements takes the nearer only when its centre is close to the point", () => {
  // (865,2250) lies 6 px right of the message field, whose centre is 425 px away, and 15 px left
  // of Send. Tapping the field's far centre is not where the model pointed, and Send is not the
  // nearest: the point is tapped as it is. (873,2250) is nearest Send, 97 px from its centre.
  const [gap, nearSend] = snapPoints([point(865, 2250), point(873, 2250)], chat(), SCREEN);
  assert.deepEqual(gap, none(865, 2250));
  assert.equal(nearSend?.element?.label, "Send");
  assert.equal(nearSend?.distance, 7);
  assert.deepEqual(nearSend?.tap, { x: 970, y: 2250 });
});

test("snapPoints scales how far beside an element a point may be with the screen", () => {
  // 41 px right of a button: within 5% of a 1080-px short side (54 px), not of a 720-px one (36).
  const tree =
    `<hierarchy><node bounds="[0,0][1080,2400]"><node text="OK" clickable="true" bounds="[100,100][300,200]"/></node></hierarchy>`;
  const [big] = snapPoints([point(340, 150)], usefulElements(parseUiTree(tree)), SCREEN);
  assert.equal(big?.element?.label, "OK");
  assert.equal(big?.distance, 41);
  const small = { width: 720, height: 1600 };
  const [phone] = snapPoints([point(340, 150)], usefulElements(parseUiTree(tree)), small);
  assert.deepEqual(phone, none(340, 150));
});

test("snapPoints ignores layout plumbing when given a bare parse", () => {
  const elements = parseUiTree(chatXml);
  const [snap] = snapPoints([point(540, 2330)], elements, SCREEN);
  assert.notEqual(snap?.element?.resourceId, "android:id/content");
  assert.equal(snap?.element?.label, "Type a message");
});

test("snapPoints with no elements taps each point itself", () => {
  assert.deepEqual(snapPoints([point(1, 1)], [], SCREEN), [none(1, 1)]);
  assert.deepEqual(snapPoints([], chat(), SCREEN), []);
});

// --- formatSnapLines ---------------------------------------------------------------------------

test("formatSnapLines says where to tap for each point", () => {
  const points = extractPoints(
    "Send (950, 2250); field edge (859, 2310); corner (700, 1990)",
    SCREEN,
  );
  const elements = usefulElements(parseUiTree(
    `<hierarchy><node bounds="[0,0][1080,2400]"><node text="Say &quot;hi&quot;" clickable="true" bounds="[880,2200][1060,2300]"/>` +
      `<node text="Type" class="a.EditText" bounds="[620,2200][860,2300]"/></node></hierarchy>`,
  ));
  assert.deepEqual(formatSnapLines(snapPoints(points, elements, SCREEN)), [
    `(950,2250) → "Say \\"hi\\"" @ [880,2200][1060,2300] tap (970,2250)`,
    `(859,2310) → nearest "Type", 11 px away @ [620,2200][860,2300] tap (740,2250)`,
    `(700,1990) → no element here: tap the point itself (700,1990)`,
  ]);
});

// --- buildVisionPrompt -------------------------------------------------------------------------

test("buildVisionPrompt gives the screen size and the image's scale factor", () => {
  const prompt = buildVisionPrompt("Where is Send?", SCREEN, { width: 540, height: 1200 });
  assert.match(prompt, /1080×2400 device pixels/);
  assert.match(prompt, /540×1200/);
  assert.match(prompt, /scaled by 0\.5\b/);
  assert.match(prompt, /device pixels as \(x, y\)/);
  assert.ok(prompt.endsWith("Where is Send?"));
});

test("buildVisionPrompt says when the image is at full resolution", () => {
  const prompt = buildVisionPrompt(undefined, SCREEN, SCREEN);
  assert.match(prompt, /full device resolution/);
  assert.doesNotMatch(prompt, /scaled/);
});

test("buildVisionPrompt names both factors when the image is scaled unevenly", () => {
  const prompt = buildVisionPrompt(undefined, SCREEN, { width: 512, height: 1024 });
  assert.match(prompt, /0\.474 horizontally and 0\.427 vertically/);
});

test("buildVisionPrompt asks for a description of the screen when there is no question", () => {
  for (const question of [undefined, "", "   "]) {
    const prompt = buildVisionPrompt(question, SCREEN, SCREEN);
    assert.match(prompt, /Describe this screen/);
    assert.match(prompt, /interactive elements/);
  }
});

test("buildVisionPrompt holds no coordinates of its own to be echoed back as points", () => {
  const prompt = buildVisionPrompt(undefined, SCREEN, { width: 540, height: 1200 });
  assert.deepEqual(extractPoints(prompt, SCREEN), []);
});
