// Finding an element by name and saying what an action changed: pure, on trees parsed from XML as
// uiautomator prints them.

import assert from "node:assert/strict";
import { describeChanges, parseWindowState, sameScreen } from "../../lib/screen/changes.ts";
import { findElement, matchElements, notFoundWhat } from "../../lib/screen/find_element.ts";
import { closestNames } from "../../lib/core/near_names.ts";
import { parseUiTree } from "../../lib/screen/ui_tree.ts";
import type { ScreenReading } from "../../lib/screen/phone_screen.ts";

interface N {
  text?: string;
  desc?: string;
  id?: string;
  cls?: string;
  bounds: string;
  clickable?: boolean;
  children?: N[];
}

function xml(nodes: N[], pkg = "com.app"): string {
  const node = (n: N): string =>
    `<node text="${n.text ?? ""}" resource-id="${n.id ?? ""}" class="${
      n.cls ?? "android.widget.TextView"
    }" package="${pkg}" content-desc="${n.desc ?? ""}" clickable="${
      n.clickable ?? false
    }" bounds="${n.bounds}">${(n.children ?? []).map(node).join("")}</node>`;
  return `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node text="" resource-id="" class="android.widget.FrameLayout" package="${pkg}" content-desc="" clickable="false" bounds="[0,0][1080,2400]">${
    nodes.map(node).join("")
  }</node></hierarchy>`;
}

const SCREEN = parseUiTree(xml([
  {
    text: "Save",
    id: "com.app:id/save",
    cls: "android.widget.Button",
    bounds: "[0,100][200,200]",
    clickable: true,
  },
  { text: "Save draft", bounds: "[0,300][400,400]" },
  {
    id: "com.app:id/row",
    cls: "android.widget.LinearLayout",
    bounds: "[0,500][1080,700]",
    clickable: true,
    desc: "Sign in",
    children: [{ text: "Sign in", bounds: "[40,550][300,650]" }],
  },
  {
    desc: "Search",
    cls: "android.widget.ImageButton",
    bounds: "[900,100][1000,200]",
    clickable: true,
  },
  { text: "Settings", bounds: "[0,800][400,900]" },
  { text: "Settings", bounds: "[0,1000][400,1100]" },
]));

Deno.test({
  name:
    "an exact name (ignoring case) wins over substrings; nested matches count once, the tappable one",
  permissions: "none",
  fn() {
    const save = findElement(SCREEN, "save");
    assert.equal(save.kind, "one");
    assert.equal(save.kind === "one" && save.element.center.x, 100);
    const draft = findElement(SCREEN, "draft");
    assert.equal(draft.kind === "one" && draft.element.text, "Save draft");
    const signIn = findElement(SCREEN, "Sign in");
    assert.equal(signIn.kind === "one" && signIn.element.resourceId, "com.app:id/row");
    const byId = findElement(SCREEN, "row");
    assert.equal(byId.kind === "one" && byId.element.resourceId, "com.app:id/row");
    const byDesc = findElement(SCREEN, "SEARCH");
    assert.equal(byDesc.kind === "one" && byDesc.element.center.x, 950);
    assert.deepEqual(matchElements(SCREEN, "  "), []);
  },
});

Deno.test({
  name: "several matches list candidates with bounds and centres; none names the closest labels",
  permissions: "none",
  fn() {
    const many = findElement(SCREEN, "settings");
    assert.equal(many.kind, "many");
    const text = notFoundWhat("settings", many);
    assert.match(text, /^"settings" matches 2 elements, so nothing was tapped/);
    assert.match(text, /\n- "Settings" \(TextView\) @ \[0,800\]\[400,900\] centre \(200, 850\)/);
    assert.match(
      text,
      /\n- "Settings" \(TextView\) @ \[0,1000\]\[400,1100\] centre \(200, 1050\)$/,
    );
    const none = findElement(SCREEN, "Sgin in");
    assert.equal(none.kind, "none");
    assert.match(
      notFoundWhat("Sgin in", none),
      /the closest labels on screen are "Sign in"/,
    );
    assert.equal(closestNames("setings", ["Search", "Settings", "Save"])[0], "Settings");
  },
});

Deno.test({
  name: "a prefer test breaks a tie, as phone_type prefers the text field",
  permissions: "none",
  fn() {
    const tree = parseUiTree(xml([
      { text: "Name", bounds: "[0,0][100,50]" },
      { text: "Name", cls: "android.widget.EditText", bounds: "[0,60][500,120]", clickable: true },
    ]));
    const found = findElement(tree, "name", { prefer: (e) => e.className.endsWith("EditText") });
    assert.equal(found.kind === "one" && found.element.bounds.y1, 60);
  },
});

const reading = (tree: string, more: Partial<ScreenReading> = {}): ScreenReading => ({
  elements: parseUiTree(tree),
  focus: undefined,
  keyboard: undefined,
  at: 0,
  actions: { sent: 0, read: 0 },
  ...more,
});

Deno.test({
  name:
    "[changed] says the app before → after, the keyboard, + and - elements interactive first, at most 15 lines",
  permissions: "none",
  fn() {
    const home = reading(
      xml([{ text: "Notes", bounds: "[0,100][270,400]", clickable: true }], "com.launcher"),
      {
        focus: "com.launcher/.Home",
        keyboard: false,
      },
    );
    const notes = reading(
      xml([
        { text: "Notes", id: "com.notes:id/title", bounds: "[0,0][1080,100]" },
        {
          text: "Save",
          cls: "android.widget.Button",
          bounds: "[0,2000][500,2100]",
          clickable: true,
        },
      ], "com.notes"),
      { focus: "com.notes/com.notes.Main", keyboard: true },
    );
    assert.deepEqual(describeChanges(home, notes), [
      "app: com.launcher/.Home → com.notes/com.notes.Main",
      "keyboard: shown",
      "+ Save @ [0,2000][500,2100]",
      "- Notes @ [0,100][270,400]",
      "+ Notes @ [0,0][1080,100]",
    ]);
    assert.deepEqual(describeChanges(notes, { ...notes, at: 5 }), ["no visible change"]);
    assert.equal(sameScreen(notes, { ...notes, at: 5 }), true);
    assert.equal(sameScreen(notes, { ...notes, keyboard: false }), false);
    const many = reading(
      xml(
        Array.from(
          { length: 30 },
          (_, i) => ({ text: `Item ${i}`, bounds: `[0,${i * 50}][500,${i * 50 + 40}]` }),
        ),
      ),
    );
    const lines = describeChanges(home, many);
    assert.equal(lines.length, 15);
    assert.match(lines.at(-1)!, /^\(\d+ more changes not shown/);
    const fresh = describeChanges(undefined, notes);
    assert.equal(fresh[0], "app: com.notes/com.notes.Main");
    assert.equal(fresh[1], "keyboard: shown");
    assert.match(fresh[2]!, /no earlier screen to compare with/);
  },
});

Deno.test({
  name: "window state is read from dumpsys lines of Android 10-14, null focus as unknown",
  permissions: "none",
  fn() {
    const text = [
      "  mCurrentFocus=Window{5f0e1d2 u0 com.android.settings/com.android.settings.Settings}",
      "  mFocusedApp=ActivityRecord{3c2b1a0 u0 com.android.settings/.Settings t12}",
      "  mCurrentFocus=Window{1 u0 other/other.X}",
      "mInputShown=true",
    ].join("\n");
    assert.deepEqual(parseWindowState(text), {
      focus: "com.android.settings/com.android.settings.Settings",
      focusedApp: "com.android.settings/.Settings",
      keyboard: true,
    });
    assert.deepEqual(parseWindowState("  mCurrentFocus=null\nmInputShown=false"), {
      focus: undefined,
      focusedApp: undefined,
      keyboard: false,
    });
  },
});
