// phone_type's element names a text field: anything else is refused before anything is tapped; a
// field's tap and the typing reach the phone as one command; typing that found no focused field
// says so; and a cancelled call stops the read that looks its element up.

import assert from "node:assert/strict";
import { createDevice } from "../../lib/adb/device.ts";
import { exited, fakeAdb, type FakeAnswer } from "../helpers/fake_adb.ts";
import { connectInProcess, textOf } from "../helpers/in_process.ts";
import { waitFor } from "../helpers/wait_for.ts";

const node = (attrs: string, children = "") =>
  `<node index="0" text="" resource-id="" class="android.view.View" package="com.android.notes" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" ${attrs}${
    children ? `>${children}</node>` : " />"
  }`;

/** A dump as `uiautomator dump /dev/tty` prints it. */
const dump = (nodes: string) =>
  `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">${
    node('class="android.widget.FrameLayout" bounds="[0,0][1080,2400]"', nodes)
  }</hierarchy>UI hierchary dumped to: /dev/tty\n`;

/**
 * Notes: a title, its text field (focused or not), Clear and Save, and far below a label "Search"
 * over a search field whose content-desc is "Search" too.
 */
function notes(focused: boolean): string {
  return dump(
    node('text="Notes" class="android.widget.TextView" bounds="[0,100][1080,200]"') +
      node(
        `text="" resource-id="com.android.notes:id/note_text" class="android.widget.EditText" clickable="true" focusable="true" focused="${focused}" bounds="[40,300][1040,900]"`,
      ) +
      node(
        'text="Clear" resource-id="com.android.notes:id/clear" class="android.widget.Button" clickable="true" bounds="[40,950][500,1050]"',
      ) +
      node(
        'text="Save" resource-id="com.android.notes:id/save" class="android.widget.Button" clickable="true" bounds="[580,950][1040,1050]"',
      ) +
      node('text="Search" class="android.widget.TextView" bounds="[40,2000][300,2080]"') +
      node(
        'text="Search notes" resource-id="com.android.notes:id/search" content-desc="Search" class="android.widget.AutoCompleteTextView" clickable="true" focusable="true" bounds="[40,2100][1040,2200]"',
      ),
  );
}

/** The settle read's answer: the dump, then the focused window and keyboard lines. */
const screenState = (keyboard: boolean, xml: string): FakeAnswer =>
  exited(
    0,
    `${xml}  mCurrentFocus=Window{5f0e1d2 u0 com.android.notes/com.android.notes.Main}\n  mFocusedApp=ActivityRecord{3c2b1a0 u0 com.android.notes/.Main t12}\nmInputShown=${keyboard}\n`,
  );

function notesPhone(after: FakeAnswer) {
  const adb = fakeAdb([
    [/exec-out uiautomator dump .*dumpsys window/, after],
    [/exec-out uiautomator dump/, exited(0, notes(true))],
  ]);
  return { adb, device: createDevice({ run: adb.run, serial: undefined, timeoutMs: 1000 }) };
}

Deno.test({
  name: "phone_type naming a button is refused before anything is tapped, listing nearby fields",
  permissions: "none",
  async fn() {
    const { adb, device } = notesPhone(screenState(true, notes(true)));
    const mcp = await connectInProcess({ device });
    try {
      const r = await mcp.client.callTool({
        name: "phone_type",
        arguments: { element: "Clear", text: "milk" },
      });
      assert.equal(r.isError, true);
      const text = textOf(r);
      assert.match(
        text,
        /^Cannot type text: "Clear" names "Clear" \(Button, id clear\) @ \[40,950\]\[500,1050\] centre \(270, 1000\), which is not a text field, so nothing was tapped or typed\./,
      );
      // The nearest field first: the note above the button, then the search field far below.
      const listed = text.split("\n").filter((l) => l.startsWith("- "));
      assert.match(listed[0]!, /^- "note_text" \(EditText, id note_text\)/);
      assert.match(listed[1]!, /^- "Search notes" \(AutoCompleteTextView, id search\)/);
      assert.equal(listed.length, 2);
      assert.deepEqual(adb.sent.filter((c) => c.startsWith("input")), [], "nothing was tapped");
    } finally {
      await mcp.close();
    }
  },
});

Deno.test({
  name: "phone_type's tap on its field and the typing go to the phone as one command",
  permissions: "none",
  async fn() {
    const { adb, device } = notesPhone(screenState(true, notes(true)));
    const mcp = await connectInProcess({ device });
    try {
      const r = await mcp.client.callTool({
        name: "phone_type",
        arguments: { element: "note_text", text: "milk", settle: false },
      });
      assert.equal(r.isError, undefined, textOf(r));
      assert.match(textOf(r), /^Tapped "note_text" \(EditText, id note_text\) @ .*, then: Typed 4/);
      const inputs = adb.sent.filter((c) => c.startsWith("input"));
      assert.deepEqual(inputs, ["input tap 540 600 && { input text 'milk'; }"]);
      // A name that a label and a field share types into the field, whatever its text class.
      const search = await mcp.client.callTool({
        name: "phone_type",
        arguments: { element: "Search", text: "x", settle: false },
      });
      assert.equal(search.isError, undefined, textOf(search));
      assert.equal(adb.sent.at(-1), "input tap 540 2150 && { input text 'x'; }");
    } finally {
      await mcp.close();
    }
  },
});

Deno.test({
  name: "typing with no focused field and the keyboard down says the text may have gone nowhere",
  permissions: "none",
  async fn() {
    const home = dump(
      node(
        'text="Notes" class="android.widget.TextView" clickable="true" bounds="[40,300][300,500]"',
      ),
    );
    const nowhere = notesPhone(screenState(false, home));
    const mcp = await connectInProcess({ device: nowhere.device });
    try {
      const r = await mcp.client.callTool({ name: "phone_type", arguments: { text: "milk" } });
      assert.equal(r.isError, undefined, textOf(r));
      assert.match(
        textOf(r),
        /^Typed 4 characters, but no text field has focus and the keyboard is down, so the text may have gone nowhere\. Tap the field/,
      );
    } finally {
      await mcp.close();
    }
    const focused = notesPhone(screenState(true, notes(true)));
    const again = await connectInProcess({ device: focused.device });
    try {
      const r = await again.client.callTool({ name: "phone_type", arguments: { text: "milk" } });
      assert.match(textOf(r), /^Typed 4 characters\.\n\n\[changed\]/);
    } finally {
      await again.close();
    }
  },
});

Deno.test({
  name: "a cancelled phone_tap or phone_type stops the read that looks its element up",
  permissions: "none",
  async fn() {
    for (const [tool, args] of [["phone_tap", {}], ["phone_type", { text: "milk" }]] as const) {
      const stopped: AbortSignal[] = [];
      const adb = fakeAdb([[/uiautomator dump/, () => {
        // The dump answers only once its run is stopped, as adb killed by the runner does.
        const signal = adb.limits.at(-1)!.signal!;
        stopped.push(signal);
        return new Promise<FakeAnswer>((resolve) => {
          signal.addEventListener("abort", () => resolve(exited(1, "", "killed")), { once: true });
        });
      }]]);
      const device = createDevice({ run: adb.run, serial: undefined, timeoutMs: 60_000 });
      const mcp = await connectInProcess({ device });
      try {
        const cancel = new AbortController();
        const call = mcp.client.callTool(
          { name: tool, arguments: { ...args, element: "note_text" } },
          { signal: cancel.signal },
        );
        await waitFor(() => stopped.length === 1, `${tool}'s lookup to start its dump`);
        cancel.abort();
        await assert.rejects(call);
        await waitFor(() => stopped[0]!.aborted, `${tool}'s lookup dump to be stopped`);
        assert.deepEqual(adb.sent.filter((c) => c.startsWith("input")), [], tool);
      } finally {
        await mcp.close();
      }
    }
  },
});
