// A look without a screenshot names the phone's own size (`wm size`, read once per phone), turned
// to the orientation the tree is drawn in, not the extent of whatever window the dump's root spans.

import assert from "node:assert/strict";
import { createDevice } from "../../lib/adb/device.ts";
import { fuseLook } from "../../lib/look/fuse.ts";
import type { LookOutcomes } from "../../lib/look/gather.ts";
import { parseUiTree } from "../../lib/screen/ui_tree.ts";
import { exited, fakeAdb } from "../helpers/fake_adb.ts";
import { connectInProcess, textOf } from "../helpers/in_process.ts";

/** A window of `width`×`height` holding one button, as a dump prints it. */
function windowDump(width: number, height: number): string {
  const attrs =
    'index="0" text="" resource-id="" package="com.android.notes" content-desc="" checkable="false" checked="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false"';
  return `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node ${attrs} class="android.widget.FrameLayout" clickable="false" bounds="[0,0][${width},${height}]"><node ${attrs} text="Save" class="android.widget.Button" clickable="true" bounds="[40,400][500,500]" /></node></hierarchy>`;
}

const unavailable: LookOutcomes["vision"] = {
  ok: false,
  failure: { kind: "unavailable", note: "Vision is not configured." },
};

Deno.test({
  name: "with only the tree the size is wm size's, turned as the tree is, else the tree's extent",
  permissions: "none",
  fn() {
    const natural = { width: 1080, height: 2400 };
    const tree = (w: number, h: number): LookOutcomes["tree"] => ({
      ok: true,
      value: parseUiTree(windowDump(w, h)),
    });
    const size = (outcomes: LookOutcomes) => fuseLook(outcomes).screen;
    // Under a status bar the app's window is shorter than the screen: the phone's size stands.
    assert.deepEqual(
      size({ vision: unavailable, tree: tree(1080, 2280), screenSize: natural }),
      natural,
    );
    // Turned sideways, the tree is drawn landscape; wm size still says the natural size.
    assert.deepEqual(
      size({ vision: unavailable, tree: tree(2280, 1080), screenSize: natural }),
      { width: 2400, height: 1080 },
    );
    const treeDown: LookOutcomes["tree"] = {
      ok: false,
      failure: { kind: "unexpected", detail: "no tree" },
    };
    // Neither channel gave anything: no screen is named, whatever wm size said.
    assert.equal(size({ vision: unavailable, tree: treeDown, screenSize: natural }), undefined);
    // wm size could not be read: the tree's extent, as before.
    assert.deepEqual(size({ vision: unavailable, tree: tree(1080, 2280) }), {
      width: 1080,
      height: 2280,
    });
  },
});

Deno.test({
  name: "two looks without vision name one size, read with one wm size, whatever the window spans",
  permissions: "none",
  async fn() {
    const adb = fakeAdb([
      [/uiautomator dump/, [
        exited(0, `${windowDump(1080, 2280)}UI hierchary dumped to: /dev/tty\n`),
        exited(0, `${windowDump(1080, 2400)}UI hierchary dumped to: /dev/tty\n`),
      ]],
    ]);
    const device = createDevice({ run: adb.run, serial: undefined, timeoutMs: 1000 });
    const mcp = await connectInProcess({ device });
    try {
      for (let i = 0; i < 2; i++) {
        const look = await mcp.client.callTool({ name: "phone_look", arguments: {} });
        assert.match(textOf(look), /^Screen: 1080×2400 device pixels\.\n/, `look ${i + 1}`);
      }
      assert.equal(adb.sent.filter((c) => c === "wm size").length, 1, "cached per phone");
    } finally {
      await mcp.close();
    }
  },
});
