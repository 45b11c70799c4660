import assert from "node:assert/strict";
import {
  extractDump,
  isInteractive,
  isTappable,
  parseUiTree,
  type UiElement,
} from "../../lib/screen/ui_tree.ts";
import {
  formatElementLine,
  summarizeUiTree,
  usefulElements,
} from "../../lib/screen/ui_tree_summary.ts";
import { makeDump } from "../fixtures/ui/big_dump.ts";
import chatXml from "../fixtures/ui/chat.xml.txt" with { type: "text" };
import unicodeXml from "../fixtures/ui/unicode_entities.xml.txt" with { type: "text" };
import shuffledXml from "../fixtures/ui/shuffled_quotes.xml.txt" with { type: "text" };
import badBoundsXml from "../fixtures/ui/bad_bounds.xml.txt" with { type: "text" };
import dumpedBefore from "../fixtures/ui/dumped_before.txt" with { type: "text" };
import dumpedAfter from "../fixtures/ui/dumped_after.txt" with { type: "text" };
import errorIdle from "../fixtures/ui/error_idle.txt" with { type: "text" };
import errorNullRoot from "../fixtures/ui/error_null_root.txt" with { type: "text" };
import truncated from "../fixtures/ui/truncated.txt" with { type: "text" };

function test(name: string, fn: () => void): void {
  Deno.test({ name, permissions: "none", fn });
}

function xmlOf(output: string): string {
  const dump = extractDump(output);
  assert.ok(dump.ok, `expected XML, got ${JSON.stringify(dump)}`);
  return dump.xml;
}

function byLabel(elements: UiElement[], label: string): UiElement {
  const found = elements.find((e) => e.label === label);
  assert.ok(found, `no element labelled ${label}`);
  return found;
}

test("the fixtures keep the raw shapes devices print", () => {
  // A formatter run over them would silently turn these tests into tests of something else.
  assert.ok(!chatXml.includes("\n"), "chat dump is one line, with no trailing newline");
  assert.ok(shuffledXml.includes("</node >"));
  assert.ok(unicodeXml.includes("tabbed\n   continued"));
});

// --- extractDump ---------------------------------------------------------------------------

const dumpCases: { name: string; output: string; starts?: string; ends?: string }[] = [
  { name: "a one-line dump", output: chatXml, starts: "<?xml", ends: "</hierarchy>" },
  { name: "a multi-line dump", output: unicodeXml, starts: "<?xml", ends: "</hierarchy>" },
  {
    name: "a dump after the 'dumped to' line",
    output: dumpedBefore,
    starts: "<?xml",
    ends: "</hierarchy>",
  },
  {
    name: "a dump before the 'dumped to' line, with no newline between",
    output: dumpedAfter,
    starts: "<?xml",
    ends: "</hierarchy>",
  },
  {
    name: "a dump without the XML declaration",
    output:
      `UI hierchary dumped to: /x\n<hierarchy rotation="0"><node bounds="[0,0][1,1]"/></hierarchy>\n`,
    starts: "<hierarchy",
    ends: "</hierarchy>",
  },
  {
    name: "a dump with a byte-order mark and CRLF line ends",
    output: "\ufeff" + unicodeXml.replaceAll("\n", "\r\n"),
    starts: "<?xml",
    ends: "</hierarchy>",
  },
  {
    name: "an empty hierarchy written as a self-closing tag",
    output: `<?xml version='1.0' ?><hierarchy rotation="0"/>`,
    starts: "<?xml",
    ends: "/>",
  },
];

for (const c of dumpCases) {
  test(`extractDump finds the XML in ${c.name}`, () => {
    const xml = xmlOf(c.output);
    if (c.starts) assert.ok(xml.startsWith(c.starts), xml.slice(0, 40));
    if (c.ends) assert.ok(xml.endsWith(c.ends), xml.slice(-40));
    assert.ok(!xml.includes("hierchary"));
  });
}

const failureCases: { name: string; output: string; reason: RegExp; idleState: boolean }[] = [
  {
    name: "the idle-state error, flagged as worth a retry",
    output: errorIdle,
    reason: /^ERROR: could not get idle state\.$/,
    idleState: true,
  },
  {
    name: "the null-root error (CRLF), not flagged for retry",
    output: errorNullRoot,
    reason: /^ERROR: null root node returned by UiTestAutomationBridge\.$/,
    idleState: false,
  },
  { name: "empty output", output: "", reason: /^no XML in output$/, idleState: false },
  {
    name: "a missing uiautomator binary",
    output: "/system/bin/sh: uiautomator: not found\n",
    reason: /^no XML in output \(got: .*uiautomator: not found\)$/,
    idleState: false,
  },
  {
    name: "a dump cut off mid-transfer",
    output: truncated,
    reason: /cut short/,
    idleState: false,
  },
  {
    name: "only the XML declaration",
    output: "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>",
    reason: /cut short/,
    idleState: false,
  },
];

for (const c of failureCases) {
  test(`extractDump reports ${c.name}`, () => {
    const dump = extractDump(c.output);
    assert.equal(dump.ok, false);
    if (dump.ok) return;
    assert.match(dump.reason, c.reason);
    assert.equal(dump.idleState, c.idleState);
  });
}

test("extractDump does not mistake on-screen text reading ERROR: for a uiautomator failure", () => {
  const xml =
    `<?xml version='1.0' ?><hierarchy rotation="0"><node text="ERROR: could not get idle state." ` +
    `bounds="[0,0][100,100]"/>\n<node text="x&#10;ERROR: boom" bounds="[0,0][1,1]"/></hierarchy>`;
  const dump = extractDump(`UI hierchary dumped to: /x\n${xml}`);
  assert.deepEqual(dump, { ok: true, xml });
});

// --- parseUiTree -----------------------------------------------------------------------------

test("parseUiTree returns every node in document order with its nesting depth", () => {
  const elements = parseUiTree(xmlOf(chatXml));
  assert.equal(elements.length, 31);
  assert.deepEqual(
    elements.slice(0, 6).map((e) => [e.className.split(".").pop(), e.depth]),
    [
      ["FrameLayout", 0],
      ["LinearLayout", 1],
      ["LinearLayout", 2],
      ["ImageButton", 3],
      ["TextView", 3],
      ["ImageButton", 3],
    ],
  );
  assert.equal(byLabel(elements, "Alice").depth, 5);
  assert.equal(byLabel(elements, "Archived (2)").depth, 3);
  assert.equal(elements.at(-1)?.label, "Zero size");
  assert.equal(elements.at(-1)?.depth, 2);
});

test("parseUiTree reads every attribute of a node", () => {
  const toggle = byLabel(parseUiTree(chatXml), "Notifications");
  assert.deepEqual(toggle, {
    label: "Notifications",
    text: "",
    contentDesc: "Notifications",
    resourceId: "",
    className: "android.widget.Switch",
    packageName: "com.example.chat",
    bounds: { x1: 900, y1: 2050, x2: 1060, y2: 2150 },
    center: { x: 980, y: 2100 },
    clickable: true,
    longClickable: false,
    scrollable: false,
    focusable: true,
    focused: false,
    checkable: true,
    checked: true,
    enabled: true,
    selected: false,
    password: false,
    depth: 2,
  });
});

const entityCases: [string, string][] = [
  [
    "Tom &amp; Jerry &lt;3 &quot;quoted&quot; &apos;single&apos; a&gt;b",
    `Tom & Jerry <3 "quoted" 'single' a>b`,
  ],
  ["&#169; 2024 &#x20AC;5 &#x1F600; &#128640; &#55357;&#56832;", "© 2024 €5 😀 🚀 😀"],
  ["&unknown; &#0; &#x110000; &amp;amp;", "&unknown; &#0; &#x110000; &amp;"],
  ["&#X41;&#x62;", "Ab"],
];

for (const [raw, decoded] of entityCases) {
  test(`parseUiTree decodes XML entities: ${raw}`, () => {
    const [e] = parseUiTree(`<hierarchy><node text="${raw}" bounds="[0,0][9,9]"/></hierarchy>`);
    assert.equal(e?.text, decoded);
  });
}

test("parseUiTree keeps CJK, right-to-left and emoji labels intact", () => {
  const labels = parseUiTree(xmlOf(unicodeXml)).map((e) => e.label);
  assert.ok(labels.includes("购物车"));
  assert.ok(labels.includes("שלום עולם"));
  assert.ok(labels.includes("🎉 Party 👨‍👩‍👧 🇯🇵"));
});

test("parseUiTree reads attributes in any order and with either quote style", () => {
  const elements = parseUiTree(xmlOf(shuffledXml));
  assert.equal(elements.length, 4);
  const [root, button, text, toggle] = elements;
  assert.deepEqual(root?.bounds, { x1: 0, y1: 0, x2: 2400, y2: 1080 });
  assert.equal(button?.text, `Say "hi" > bye`);
  assert.equal(button?.longClickable, true);
  assert.deepEqual(button?.bounds, { x1: 100, y1: 200, x2: 300, y2: 400 });
  assert.equal(text?.text, "it's > fine");
  assert.equal(toggle?.label, "Play");
  assert.equal(toggle?.resourceId, "com.example.game:id/play");
  assert.deepEqual(
    [toggle?.checkable, toggle?.checked, toggle?.selected, toggle?.focused, toggle?.depth],
    [true, true, true, true, 1],
  );
});

test("parseUiTree gives the same elements for the same tree however it is written", () => {
  const canonical = parseUiTree(
    `<hierarchy rotation="0"><node text="A" resource-id="r:id/a" class="c.B" clickable="true" ` +
      `bounds="[1,2][3,4]"><node text="B" bounds="[5,6][7,8]" /></node></hierarchy>`,
  );
  const rewritten = parseUiTree(
    `<?xml version="1.0"?>\n<!-- a comment with <node text="fake"/> inside -->\n<hierarchy>\n` +
      `  <node\n bounds='[1,2][3,4]'  clickable = 'true' class='c.B' resource-id='r:id/a' text='A'>\n` +
      `    <node bounds="[5,6][7,8]" text="B"></node>\n  </node>\n</hierarchy>\n`,
  );
  assert.deepEqual(rewritten, canonical);
});

const boundsCases: [string, string, { x1: number; y1: number; x2: number; y2: number }][] = [
  ["zero", `bounds="[0,0][0,0]"`, { x1: 0, y1: 0, x2: 0, y2: 0 }],
  ["negative", `bounds="[-300,-200][-100,-50]"`, { x1: -300, y1: -200, x2: -100, y2: -50 }],
  ["missing", ``, { x1: 0, y1: 0, x2: 0, y2: 0 }],
  ["empty", `bounds=""`, { x1: 0, y1: 0, x2: 0, y2: 0 }],
  ["not numbers", `bounds="[a,b][c,d]"`, { x1: 0, y1: 0, x2: 0, y2: 0 }],
  ["cut short", `bounds="[10,20][30"`, { x1: 0, y1: 0, x2: 0, y2: 0 }],
  ["spaced out", `bounds=" [ 1 , 2 ] [ 3 , 4 ] "`, { x1: 1, y1: 2, x2: 3, y2: 4 }],
];

for (const [name, attr, bounds] of boundsCases) {
  test(`parseUiTree tolerates ${name} bounds`, () => {
    const [e] = parseUiTree(`<hierarchy><node text="t" ${attr}/></hierarchy>`);
    assert.deepEqual(e?.bounds, bounds);
  });
}

test("parseUiTree never exposes the text of a password field", () => {
  const elements = parseUiTree(chatXml);
  assert.ok(!JSON.stringify(elements).includes("hunter2"));
  const pin = byLabel(elements, "pin (password field)");
  assert.equal(pin.text, "");
  assert.equal(pin.password, true);
  const [bare, described] = parseUiTree(
    `<hierarchy><node text="secret" password="true" bounds="[0,0][9,9]"/>` +
      `<node text="secret" content-desc="PIN" password="true" bounds="[0,0][9,9]"/></hierarchy>`,
  );
  assert.equal(bare?.label, "password field");
  assert.equal(described?.label, "PIN (password field)");
});

const labelCases: { name: string; attrs: string; label: string }[] = [
  { name: "text first", attrs: `text="Hi" content-desc="d" resource-id="a:id/b"`, label: "Hi" },
  {
    name: "content-desc next",
    attrs: `text="" content-desc="Back" resource-id="a:id/b"`,
    label: "Back",
  },
  {
    name: "the resource-id's short name last",
    attrs: `resource-id="com.app:id/send_button"`,
    label: "send_button",
  },
  {
    name: "whitespace-only text skipped",
    attrs: `text=" &#10; " content-desc="Menu"`,
    label: "Menu",
  },
  { name: "nothing at all", attrs: `class="android.view.View"`, label: "" },
  {
    name: "newlines collapsed",
    attrs: `text="Line one&#10;line   two&#9;tab"`,
    label: "Line one line two tab",
  },
  { name: "control characters removed", attrs: `text="a&#7;b&#x1b;[31mc"`, label: "a b [31mc" },
];

for (const c of labelCases) {
  test(`parseUiTree labels an element: ${c.name}`, () => {
    const [e] = parseUiTree(`<hierarchy><node ${c.attrs} bounds="[0,0][9,9]"/></hierarchy>`);
    assert.equal(e?.label, c.label);
  });
}

test("parseUiTree truncates long labels to 80 characters without splitting an emoji", () => {
  const long = byLabel(
    parseUiTree(unicodeXml),
    "This product description is deliberately long so that the label has to be trunc…",
  );
  assert.equal([...long.label].length, 80);
  const emoji = "👨‍👩‍👧".repeat(100);
  const [e] = parseUiTree(`<hierarchy><node text="${emoji}" bounds="[0,0][9,9]"/></hierarchy>`);
  assert.equal(e?.label, "👨‍👩‍👧".repeat(79) + "…");
  const exact = "x".repeat(80);
  const [f] = parseUiTree(`<hierarchy><node text="${exact}" bounds="[0,0][9,9]"/></hierarchy>`);
  assert.equal(f?.label, exact);
});

test("parseUiTree never throws on a dump cut at any point", () => {
  const xml = xmlOf(chatXml);
  for (let end = 0; end <= xml.length; end += 7) {
    const elements = parseUiTree(xml.slice(0, end));
    assert.ok(elements.length <= 31);
    summarizeUiTree(elements);
  }
  for (
    const junk of [
      "<",
      "<<<>>>",
      "<node",
      `<node text="`,
      "</node></node>",
      "<node =x/>",
      "<node a b c/>",
    ]
  ) {
    parseUiTree(junk);
  }
});

test("parseUiTree handles very deep nesting without recursion", () => {
  const levels = 20_000;
  const xml = `<hierarchy>${`<node text="x" bounds="[0,0][10,10]">`.repeat(levels)}${
    "</node>".repeat(levels)
  }</hierarchy>`;
  const elements = parseUiTree(xml);
  assert.equal(elements.length, levels);
  assert.equal(elements.at(-1)?.depth, levels - 1);
});

// Ten times a typical screen's dump; tests/long/ui_tree_corpus_test.ts reads the 5 MB one.
test("parseUiTree reads a 1 MB dump completely", () => {
  const xml = makeDump(1024 * 1024);
  assert.ok(xml.length >= 1024 * 1024);
  const elements = parseUiTree(xmlOf(xml));
  const items = (elements.length - 1) / 6;
  assert.ok(Number.isInteger(items) && items > 400, `${elements.length} elements`);
  assert.equal(elements.at(-1)?.label, "Like");
  assert.equal(elements.at(-2)?.text, `Body of post ${items - 1}: <b>bold</b> 😀`);
  assert.equal(summarizeUiTree(elements).lines.length, 40);
});

// --- summarizeUiTree -------------------------------------------------------------------------

test("summarizeUiTree lists interactive named elements, then labelled, then id-only, then class-only", () => {
  assert.deepEqual(summarizeUiTree(parseUiTree(chatXml)).lines, [
    "Navigate up @ [0,84][147,231]",
    "Notifications @ [900,2050][1060,2150]",
    "Type a message @ [20,2200][860,2300]",
    "Send @ [880,2200][1060,2300]",
    "Chats @ [189,117][520,198]",
    "Alice @ [204,261][700,326]",
    "See you at 6? @ [204,336][1038,401]",
    "Bob @ [204,461][700,526]",
    "Sent a photo @ [204,536][1038,601]",
    "Team @ [204,661][700,726]",
    "Carol: deploy is done @ [204,736][1038,801]",
    "Archived (2) @ [0,831][1080,900]",
    "menu_overflow @ [933,84][1080,231]",
    "list @ [0,231][1080,2000]",
    "row @ [0,231][1080,431]",
    "row @ [0,431][1080,631]",
    "row @ [0,631][1080,831]",
    "pin (password field) @ [20,2050][860,2150]",
    "(ImageButton) @ [880,1800][1040,1960]",
  ]);
});

test("summarizeUiTree spends a short budget on named elements before id-only and class-only ones", () => {
  const texts = Array.from(
    { length: 6 },
    (_, i) => `<node text="Item ${i}" bounds="[0,${i * 100 + 500}][500,${i * 100 + 590}]"/>`,
  ).join("");
  const xml = `<hierarchy><node bounds="[0,0][1080,2400]">` +
    `<node resource-id="a:id/toolbar_button" clickable="true" bounds="[0,0][100,100]"/>` +
    `<node class="x.ImageView" clickable="true" bounds="[100,0][200,100]"/>${texts}` +
    `<node text="Buy" clickable="true" bounds="[0,2000][500,2100]"/></node></hierarchy>`;
  assert.deepEqual(summarizeUiTree(parseUiTree(xml), 4).lines, [
    "Buy @ [0,2000][500,2100]",
    "Item 0 @ [0,500][500,590]",
    "Item 1 @ [0,600][500,690]",
    "Item 2 @ [0,700][500,790]",
  ]);
  assert.deepEqual(summarizeUiTree(parseUiTree(xml), 9).lines.slice(-2), [
    "toolbar_button @ [0,0][100,100]",
    "(ImageView) @ [100,0][200,100]",
  ]);
});

test("summarizeUiTree gives a bare clickable wrapper its only child's label and drops the child", () => {
  const { elements } = summarizeUiTree(parseUiTree(chatXml));
  const send = elements.filter((e) => e.label === "Send");
  assert.equal(send.length, 1);
  assert.deepEqual(send[0]?.bounds, { x1: 880, y1: 2200, x2: 1060, y2: 2300 });
  assert.deepEqual(send[0]?.center, { x: 970, y: 2250 });
  assert.equal(send[0]?.clickable, true);
});

const mergeCases: { name: string; xml: string; lines: string[] }[] = [
  {
    name: "a label nested several levels down is borrowed",
    xml:
      `<node clickable="true" class="a.FrameLayout" bounds="[0,0][100,100]"><node bounds="[0,0][100,100]">` +
      `<node text="Deep" bounds="[10,10][90,90]"/></node></node>`,
    lines: ["Deep @ [0,0][100,100]"],
  },
  {
    name: "a wrapper with two labelled children keeps both children",
    xml: `<node clickable="true" class="a.LinearLayout" bounds="[0,0][100,100]">` +
      `<node text="One" bounds="[0,0][100,50]"/><node text="Two" bounds="[0,50][100,100]"/></node>`,
    lines: ["One @ [0,0][100,50]", "Two @ [0,50][100,100]", "(LinearLayout) @ [0,0][100,100]"],
  },
  {
    name: "a scrollable list does not take its header's label",
    xml: `<node scrollable="true" class="a.RecyclerView" bounds="[0,0][100,500]">` +
      `<node text="Header" bounds="[0,0][100,50]"/></node>`,
    lines: ["Header @ [0,0][100,50]", "(RecyclerView) @ [0,0][100,500]"],
  },
  {
    name: "a wrapper holding another control does not take a label",
    xml:
      `<node clickable="true" class="a.CardView" bounds="[0,0][100,500]"><node text="Title" bounds="[0,0][100,50]"/>` +
      `<node text="Buy" clickable="true" bounds="[0,400][100,500]"/></node>`,
    lines: ["Buy @ [0,400][100,500]", "Title @ [0,0][100,50]", "(CardView) @ [0,0][100,500]"],
  },
  {
    name: "a wrapper with its own content-desc keeps it",
    xml: `<node clickable="true" content-desc="Compose" bounds="[0,0][100,100]">` +
      `<node text="New" bounds="[10,10][90,90]"/></node>`,
    lines: ["Compose @ [0,0][100,100]", "New @ [10,10][90,90]"],
  },
  {
    name: "a text that repeats the name of the control holding it is that control's line",
    xml: `<node clickable="true" content-desc="Home" bounds="[0,0][100,100]">` +
      `<node text="Home" bounds="[10,60][90,90]"/><node text="3 new" bounds="[10,10][90,50]"/></node>`,
    lines: ["Home @ [0,0][100,100]", "3 new @ [10,10][90,50]"],
  },
  {
    name: "a bare wrapper exactly covering a labelled control is dropped",
    xml: `<node clickable="true" class="a.FrameLayout" bounds="[0,0][100,100]">` +
      `<node text="OK" clickable="true" class="a.Button" bounds="[0,0][100,100]"/></node>`,
    lines: ["OK @ [0,0][100,100]"],
  },
  {
    name: "repeated identical label and bounds appear once",
    xml:
      `<node content-desc="Logo" bounds="[0,0][100,100]"><node content-desc="Logo" bounds="[0,0][100,100]"/></node>`,
    lines: ["Logo @ [0,0][100,100]"],
  },
  {
    name: "layout plumbing named only by resource-id is left out",
    xml:
      `<node resource-id="android:id/content" bounds="[0,0][100,100]"><node resource-id="a:id/go" ` +
      `clickable="true" bounds="[0,0][50,50]"/></node>`,
    lines: ["go @ [0,0][50,50]"],
  },
];

for (const c of mergeCases) {
  test(`summarizeUiTree dedupes: ${c.name}`, () => {
    const elements = parseUiTree(`<hierarchy rotation="0">${c.xml}</hierarchy>`);
    assert.deepEqual(summarizeUiTree(elements, 40, { width: 1080, height: 2400 }).lines, c.lines);
  });
}

test("summarizeUiTree leaves out elements with empty, inverted or off-screen bounds", () => {
  const elements = parseUiTree(xmlOf(dumpedAfter));
  assert.equal(elements.length, 11);
  assert.deepEqual(summarizeUiTree(elements).lines, [
    "Fine @ [100,1000][300,1100]",
    "Partly off @ [0,2300][200,2400]",
  ]);
  assert.deepEqual(byLabel(summarizeUiTree(elements).elements, "Partly off").center, {
    x: 100,
    y: 2350,
  });
  assert.ok(!summarizeUiTree(parseUiTree(chatXml)).lines.some((l) => /Hidden|Zero/.test(l)));
});

test("summarizeUiTree clips to the screen size it is given", () => {
  const elements = parseUiTree(badBoundsXml);
  assert.deepEqual(summarizeUiTree(elements, 40, { width: 250, height: 1050 }).lines, [
    "Fine @ [100,1000][250,1050]",
  ]);
});

test("summarizeUiTree keeps screen order within a group", () => {
  const xml = `<hierarchy><node bounds="[0,0][1000,1000]">` +
    `<node text="C" clickable="true" bounds="[0,500][10,510]"/>` +
    `<node text="B" clickable="true" bounds="[500,100][510,110]"/>` +
    `<node text="A" clickable="true" bounds="[100,100][110,110]"/>` +
    `<node text="label" bounds="[0,0][10,10]"/>` +
    `<node class="x.ImageView" clickable="true" bounds="[0,0][5,5]"/>` +
    `</node></hierarchy>`;
  assert.deepEqual(summarizeUiTree(parseUiTree(xml)).lines, [
    "A @ [100,100][110,110]",
    "B @ [500,100][510,110]",
    "C @ [0,500][10,510]",
    "label @ [0,0][10,10]",
    "(ImageView) @ [0,0][5,5]",
  ]);
});

test("summarizeUiTree keeps at most max lines, favouring interactive labelled elements", () => {
  const elements = parseUiTree(chatXml);
  const five = summarizeUiTree(elements, 5);
  assert.equal(five.lines.length, 5);
  assert.equal(five.elements.length, 5);
  assert.deepEqual(five.lines, summarizeUiTree(elements).lines.slice(0, 5));
  assert.equal(summarizeUiTree(elements, 0).lines.length, 0);
  assert.ok(summarizeUiTree(elements).lines.length <= 40);
});

test("summarizeUiTree never shows a password field's contents", () => {
  const summary = summarizeUiTree(parseUiTree(chatXml));
  assert.ok(!JSON.stringify(summary).includes("hunter2"));
});

test("summarizeUiTree of an empty tree is empty", () => {
  assert.deepEqual(summarizeUiTree([]), { lines: [], elements: [] });
  assert.deepEqual(summarizeUiTree(parseUiTree(`<hierarchy rotation="0"/>`)).lines, []);
});

test("usefulElements keeps document order and is not capped", () => {
  const elements = parseUiTree(makeDump(200_000));
  const useful = usefulElements(elements);
  assert.ok(useful.length > 40);
  const ys = useful.filter((e) => e.label === "Like").map((e) => e.bounds.y1);
  assert.deepEqual(ys.slice(0, 3), [220, 440, 660]);
});

test("formatElementLine writes the label and the bounds", () => {
  const [e] = parseUiTree(`<node text="Send  it" bounds="[900,2200][1060,2300]"/>`);
  assert.ok(e);
  assert.equal(formatElementLine(e), "Send it @ [900,2200][1060,2300]");
});

test("a list is interactive but not tappable; a button, a checkbox and a text field are both", () => {
  const [list, button, box, field, label] = parseUiTree(
    `<hierarchy><node class="android.widget.ListView" scrollable="true" bounds="[0,0][10,10]">` +
      `<node class="android.widget.Button" clickable="true" bounds="[0,0][1,1]"/>` +
      `<node class="android.widget.CheckBox" checkable="true" bounds="[0,0][1,1]"/>` +
      `<node class="android.widget.EditText" bounds="[0,0][1,1]"/>` +
      `<node class="android.widget.TextView" text="Hi" bounds="[0,0][1,1]"/>` +
      `</node></hierarchy>`,
  );
  assert.deepEqual(
    [list, button, box, field, label].map((e) => [isInteractive(e!), isTappable(e!)]),
    [[true, false], [true, true], [true, true], [true, true], [false, false]],
  );
});

test("output that holds no XML is quoted as one line of at most 200 units, never half an emoji", () => {
  // The emoji's two units would be the 200th and 201st: it is left out whole.
  const dump = extractDump(`${"x".repeat(199)}😀 and more`);
  assert.ok(!dump.ok);
  assert.equal(dump.reason, `no XML in output (got: ${"x".repeat(199)})`);
});
