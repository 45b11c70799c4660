// A small phone screen as fake-adb rules: `screencap -p` answers a real PNG and `uiautomator dump`
// a real dump of the same 360×800 screen, so in-process tests can run phone_shot and phone_look.

import { encodePng } from "../../lib/image/encode.ts";
import { exited, type FakeAnswer } from "./fake_adb.ts";

export const SCREEN = { width: 360, height: 800 };

/** The dump's one button and the line phone_look's [ui-tree] shows for it. */
export const SEND_LINE = "Send @ [280,700][350,780]";

/** A gradient, so screen.ts does not refuse it as a blank (secure or switched-off) frame. */
function frame(): Uint8Array {
  const { width, height } = SCREEN;
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      data.set([x % 256, y % 256, (x + y) % 256, 255], i);
    }
  }
  return encodePng({ width, height, data });
}

const node = (attrs: string, children = "") =>
  `<node index="0" text="" resource-id="" class="android.view.View" package="com.example.chat" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" ${attrs}${
    children ? `>${children}</node>` : " />"
  }`;

const DUMP =
  `UI hierchary dumped to: /data/local/tmp/x.xml\n<?xml version='1.0' encoding='UTF-8' ` +
  `standalone='yes' ?><hierarchy rotation="0">${
    node(
      'class="android.widget.FrameLayout" bounds="[0,0][360,800]"',
      node(
        'text="Send" class="android.widget.Button" clickable="true" focusable="true" bounds="[280,700][350,780]"',
      ),
    )
  }</hierarchy>`;

/** Rules for fakeAdb: the screenshot (exec-out, binary, no exit marker), the dump, `wm size`. */
export function screenRules(): Array<[RegExp, FakeAnswer]> {
  return [
    [/exec-out screencap -p$/, { kind: "exited", code: 0, stdout: frame(), stderr: "" }],
    [/uiautomator dump/, exited(0, DUMP)],
    [/shell wm size$/, exited(0, `Physical size: ${SCREEN.width}x${SCREEN.height}\n`)],
  ];
}
