import assert from "node:assert/strict";
import type { DeviceCommand } from "../../lib/adb/commands.ts";
import { createDevice } from "../../lib/adb/device.ts";
import { exited, fakeAdb } from "../helpers/fake_adb.ts";
import { screenRules } from "../helpers/fake_screen.ts";
import { loadConfig } from "../../lib/config/config.ts";
import { createGarbageCollector } from "../../lib/core/memory.ts";
import { INSTRUCTIONS, preloadAfterFirstAnswer, preloadTools } from "../../lib/mcp/server.ts";
import { TOOLS } from "../../lib/tools/index.ts";
import { textResult } from "../../lib/tools/call.ts";
import { defineTool, LOOKS_ONLY } from "../../lib/tools/tool.ts";
import { z } from "zod";
import { createVision } from "../../lib/vision/vision.ts";
import { connectInProcess, textOf } from "../helpers/in_process.ts";

/** A phone made of data: answers `wm size`, records every device command, fails on demand. */
function fakePhone(rules: Parameters<typeof fakeAdb>[0] = []) {
  const adb = fakeAdb(rules);
  return {
    device: createDevice({ run: adb.run, serial: "127.0.0.1:5555", timeoutMs: 1000 }),
    sent: adb.sent,
  };
}

Deno.test({
  name:
    "tools/list shows exactly the spec's hand verbs, each with a description, bounds and annotations",
  permissions: "none",
  async fn() {
    const { device } = fakePhone();
    const mcp = await connectInProcess({ device });
    try {
      const { tools } = await mcp.client.listTools();
      assert.deepEqual(tools.map((t) => t.name), [
        "phone_look",
        "phone_tap",
        "phone_swipe",
        "phone_type",
        "phone_shot",
        "phone_key",
        "phone_intent",
        "phone_devices",
      ]);
      for (const tool of tools) {
        assert.ok(
          (tool.description ?? "").length > 60,
          `${tool.name} needs a description an agent can act on`,
        );
        const looks = tool.name === "phone_look" || tool.name === "phone_shot" ||
          tool.name === "phone_devices";
        assert.equal(tool.annotations?.readOnlyHint, looks, tool.name);
        if (!looks) assert.equal(tool.annotations?.destructiveHint, true, tool.name);
      }
      // Claude Code finds a tool through its tool search before first use: the first sentence
      // says what the tool does, in the words an agent searches with.
      const searched: Record<string, RegExp> = {
        phone_look: /^See what is on the Android phone's screen\b.*\bscreenshot\b.*\btap\b/,
        phone_tap: /^Tap \(click, press, double-tap or long-press\) the Android phone's screen\b/,
        phone_swipe: /^Swipe or scroll on the Android phone's screen\b/,
        phone_type: /^Type text into the focused text field on the Android phone\b.*\bkeyboard\b/,
        phone_shot: /^Take a screenshot of the Android phone's screen\b/,
        phone_key: /^Press a key or button on the Android phone: home, back, enter\b/,
        phone_intent: /^Open an app, a URL or a deep link on the Android phone\b/,
        phone_devices: /^List the Android phones this server may drive\b.*\bserial\b/,
      };
      for (const tool of tools) {
        const first = (tool.description ?? "").split(/(?<=\.)\s/, 1)[0]!;
        assert.match(first, searched[tool.name]!, tool.name);
      }
      const tap = tools.find((t) => t.name === "phone_tap")!;
      const x = (tap.inputSchema.properties as Record<string, Record<string, unknown>>).x!;
      assert.deepEqual([x.type, x.minimum, x.maximum], ["integer", 0, 20000]);
      assert.equal(mcp.client.getInstructions(), INSTRUCTIONS);
      // Codex's default model sees only the first line: the loop, the units and the bounds rule.
      const [first] = INSTRUCTIONS.split("\n");
      assert.match(first!, /act → read \[changed\] → look only when needed/);
      assert.match(first!, /coordinates are device pixels/);
      assert.match(first!, /exact bounds from \[ui-tree\]/);
      // The list never changes while the server runs, so the server does not say it might.
      assert.deepEqual(mcp.client.getServerCapabilities()?.tools, { listChanged: false });
      assert.match(INSTRUCTIONS, /use its \[points\] line/);
    } finally {
      await mcp.close();
    }
  },
});

Deno.test({
  name: "each hand verb sends the command the spec names",
  permissions: "none",
  async fn() {
    const { device, sent } = fakePhone();
    const mcp = await connectInProcess({ device });
    try {
      const call = (name: string, args: Record<string, unknown>) =>
        mcp.client.callTool({ name, arguments: { ...args, settle: false } });
      assert.equal(textOf(await call("phone_tap", { x: 540, y: 1200 })), "Tapped (540, 1200).");
      await call("phone_tap", { x: 540, y: 1200, hold_ms: 800 });
      await call("phone_swipe", { x1: 540, y1: 2000, x2: 540, y2: 600 });
      await call("phone_type", { text: "it's 5 o'clock" });
      await call("phone_key", { key: "Volume Up" });
      await call("phone_key", { key: "66" });
      await call("phone_intent", { package: "com.android.settings" });
      assert.deepEqual(sent, [
        "wm size",
        "input tap 540 1200",
        "input swipe 540 1200 540 1200 800",
        "input swipe 540 2000 540 600 300",
        "input text 'it'\\''s 5 o'\\''clock'",
        "input keyevent 24",
        "input keyevent 66",
        "monkey -p 'com.android.settings' -c android.intent.category.LAUNCHER 1",
      ]);
    } finally {
      await mcp.close();
    }
  },
});

Deno.test({
  name: "bad arguments come back as readable tool errors and nothing reaches the phone",
  permissions: "none",
  async fn() {
    const { device, sent } = fakePhone();
    const mcp = await connectInProcess({ device });
    try {
      const cases: Array<[string, Record<string, unknown>, RegExp]> = [
        ["phone_tap", { x: -1, y: 5 }, /x/],
        ["phone_tap", { x: 1.5, y: 5 }, /x/],
        ["phone_tap", { x: 5000, y: 5 }, /off the screen, which is 1080×2400/],
        ["phone_swipe", { x1: 0, y1: 0, x2: 0, y2: 9000 }, /the end \(0, 9000\) is off the screen/],
        ["phone_type", { text: "line1\nline2" }, /newline.*phone_key "enter"/],
        [
          "phone_key",
          { key: "hoem" },
          /^Cannot press a key: unknown key "hoem": use one of home, back/,
        ],
        ["phone_key", { key: "9999" }, /^Cannot press a key: unknown keycode 9999/],
        ["phone_intent", {}, /at least one of action, data, component or package/],
        ["phone_intent", { package: "com.x;reboot" }, /Refused package: it contains ";"/],
        [
          "phone_swipe",
          { x1: 0, y1: 0, x2: 0, y2: 9, duration: 900 },
          /"duration" is not an argument of phone_swipe/,
        ],
        [
          "phone_intent",
          { data: "https://x.test/\ud800" },
          /Refused data: .*lone UTF-16 surrogate/,
        ],
      ];
      for (const [name, args, message] of cases) {
        const result = await mcp.client.callTool({ name, arguments: args });
        assert.equal(result.isError, true, `${name} ${JSON.stringify(args)}`);
        assert.match(textOf(result), message);
        assert.doesNotMatch(textOf(result), /\n\s+at /, "a stack trace leaked");
      }
      assert.deepEqual(sent.filter((c) => c !== "wm size"), []);
      assert.equal(mcp.logged.length, 0);
    } finally {
      await mcp.close();
    }
  },
});

Deno.test({
  name: "device failures become isError results and the server keeps serving",
  permissions: "none",
  async fn() {
    // Legacy-protocol phones print am's failure with exit status 0; the text must tell.
    const { device } = fakePhone([[
      /am start/,
      [
        exited(
          0,
          "Starting: Intent { act=x.y }\nError: Activity not started, unable to resolve Intent { act=x.y flg=0x10000000 }\n",
        ),
        exited(0, "Starting: Intent { act=x.y }\n"),
      ],
    ]]);
    const mcp = await connectInProcess({ device });
    try {
      const failed = await mcp.client.callTool({
        name: "phone_intent",
        arguments: { action: "x.y" },
      });
      assert.equal(failed.isError, true);
      assert.match(textOf(failed), /Cannot start the intent: .*unable to resolve Intent/);
      const ok = await mcp.client.callTool({ name: "phone_intent", arguments: { action: "x.y" } });
      assert.equal(ok.isError, undefined);
    } finally {
      await mcp.close();
    }
  },
});

Deno.test({
  name: "an unexpected exception is logged to stderr's channel and returned without a stack",
  permissions: "none",
  async fn() {
    const { device } = fakePhone();
    const broken = { ...device, run: (_c: DeviceCommand) => Promise.reject(new TypeError("boom")) };
    const mcp = await connectInProcess({ device: broken });
    try {
      const result = await mcp.client.callTool({ name: "phone_key", arguments: { key: "home" } });
      assert.equal(result.isError, true);
      assert.equal(textOf(result), "Failed unexpectedly in phone_key: boom");
      assert.deepEqual(mcp.logged, ["phone_key failed unexpectedly: boom"]);
    } finally {
      await mcp.close();
    }
  },
});

Deno.test({
  name: "invalid vision settings disable only vision: phone_look says why, the hand still works",
  permissions: "none",
  async fn() {
    const { device } = fakePhone();
    const { vision: config } = loadConfig((name) =>
      name === "PHONE_EYE_VISION_BASE_URL" ? "htp:/typo" : undefined
    );
    const mcp = await connectInProcess({ device, vision: createVision(config) });
    try {
      const look = await mcp.client.callTool({ name: "phone_look", arguments: {} });
      assert.match(textOf(look), /\[vision\]\nVision unavailable: settings invalid \(/);
      assert.match(textOf(look), /PHONE_EYE_VISION_BASE_URL/);
      const tap = await mcp.client.callTool({ name: "phone_tap", arguments: { x: 1, y: 1 } });
      assert.equal(tap.isError, undefined, textOf(tap));
    } finally {
      await mcp.close();
    }
  },
});

Deno.test({
  name:
    "without vision, a session's first look carries the full note and every later look one line; a new session hears it again",
  permissions: "none",
  async fn() {
    const visionLine = (text: string) => /\[vision\]\n(.*)\n/.exec(text)?.[1];
    const note = createVision({ route: "none" }).unavailable!;
    for (const session of [1, 2]) {
      const { device } = fakePhone(screenRules());
      const mcp = await connectInProcess({ device });
      try {
        const look = () => mcp.client.callTool({ name: "phone_look", arguments: {} });
        const first = textOf(await look());
        assert.equal(visionLine(first), `Vision unavailable: ${note.note}`, `session ${session}`);
        // Written for the agent: what it can do now, what the user could set; no setup paragraph.
        assert.match(note.note, /phone_shot shows you the screen/);
        assert.match(
          note.note,
          /The user can add a vision model by setting PHONE_EYE_VISION_API_KEY/,
        );
        for (const _ of [2, 3]) {
          const later = textOf(await look());
          assert.equal(
            visionLine(later),
            "Vision unavailable: not configured (set PHONE_EYE_VISION_API_KEY or PHONE_EYE_VISION_URL; see the first look's note)",
          );
          assert.match(later, /\[ui-tree\]\n\S/, "the tree still comes back");
        }
      } finally {
        await mcp.close();
      }
    }
  },
});

Deno.test({
  name:
    "no tool answers with structuredContent or declares an outputSchema: clients show the content",
  permissions: "none",
  async fn() {
    // Claude Code shows the model only structuredContent when a result has it (dropping the text
    // and the image), and Cursor refuses a result without it from a tool with an outputSchema.
    const { device } = fakePhone(screenRules());
    const mcp = await connectInProcess({ device });
    try {
      const { tools } = await mcp.client.listTools();
      for (const tool of tools) assert.equal(tool.outputSchema, undefined, tool.name);

      const shot = await mcp.client.callTool({ name: "phone_shot", arguments: {} });
      assert.equal(shot.isError, undefined, textOf(shot));
      assert.equal("structuredContent" in shot, false);
      const [image, text] = shot.content as Array<{ type: string; mimeType?: string }>;
      assert.equal(image?.type, "image");
      assert.match(image.mimeType ?? "", /^image\/(png|jpeg)$/);
      assert.equal(text?.type, "text");
      // The text carries what the structured data used to: both sizes and the factor.
      assert.equal(
        textOf(shot),
        "Screenshot 360×800 of a 360×800 screen: image x,y are device pixels; tap them as they are.",
      );

      const results = [
        await mcp.client.callTool({ name: "phone_look", arguments: {} }),
        await mcp.client.callTool({ name: "phone_tap", arguments: { x: 1, y: 1 } }),
        await mcp.client.callTool({
          name: "phone_swipe",
          arguments: { x1: 1, y1: 1, x2: 2, y2: 2 },
        }),
        await mcp.client.callTool({ name: "phone_type", arguments: { text: "hi" } }),
        await mcp.client.callTool({ name: "phone_key", arguments: { key: "home" } }),
        await mcp.client.callTool({ name: "phone_intent", arguments: { package: "com.x" } }),
      ];
      for (const result of results) {
        assert.equal(result.isError, undefined, textOf(result));
        assert.equal("structuredContent" in result, false, textOf(result));
      }
    } finally {
      await mcp.close();
    }
  },
});

Deno.test({
  name: "phone_shot marks its garbage; it is collected after the next send only",
  permissions: "none",
  async fn() {
    const collected: unknown[] = [];
    const memory = createGarbageCollector((options) => collected.push(options), () => 0);
    const { device } = fakePhone(screenRules());
    const mcp = await connectInProcess({ device, memory });
    try {
      await mcp.client.callTool({ name: "phone_tap", arguments: { x: 1, y: 1 } });
      memory.afterSend();
      assert.deepEqual(collected, [], "a tap leaves nothing worth a collection");
      const shot = await mcp.client.callTool({ name: "phone_shot", arguments: {} });
      assert.equal(shot.isError, undefined, textOf(shot));
      assert.deepEqual(collected, [], "not before the answer has been written");
      memory.afterSend();
      assert.deepEqual(collected, [{ type: "minor" }]);
    } finally {
      await mcp.close();
    }
  },
});

Deno.test({
  name: "the eyes preload once, after the first answer that is not initialize's",
  permissions: "none",
  fn() {
    let loads = 0;
    const afterSend = preloadAfterFirstAnswer(() => (loads++, Promise.resolve()));
    afterSend({
      jsonrpc: "2.0",
      id: 0,
      result: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        serverInfo: { name: "x", version: "0" },
      },
    });
    afterSend({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: 1, progress: 1 },
    });
    assert.equal(loads, 0, "tools/list comes right after initialize: nothing may compete with it");
    afterSend({ jsonrpc: "2.0", id: 1, result: { tools: [] } });
    assert.equal(loads, 1);
    afterSend({ jsonrpc: "2.0", id: 2, result: { tools: [] } });
    afterSend({ jsonrpc: "2.0", id: 3, error: { code: -32601, message: "no" } });
    assert.equal(loads, 1, "once");
    const refused = preloadAfterFirstAnswer(() => (loads++, Promise.resolve()));
    refused({ jsonrpc: "2.0", id: 1, error: { code: -32601, message: "no" } });
    assert.equal(loads, 2, "an error answer is an answer too");
  },
});

Deno.test({
  name: "preloading loads the eyes' modules, and a module that fails is logged, never thrown",
  permissions: "none",
  async fn() {
    const logged: string[] = [];
    assert.ok(TOOLS.some((t) => t.preload !== undefined));
    await preloadTools((m) => logged.push(m));
    assert.equal(logged.length, 0, logged.join("\n"));
    const broken = defineTool({
      name: "phone_broken",
      title: "Broken",
      description: "a verb whose lazy module cannot load",
      inputSchema: z.strictObject({}),
      annotations: LOOKS_ONLY,
      action: "do nothing",
      handler: () => Promise.resolve(textResult("never")),
      preload: () => import(new URL("../lib/no_such_module.ts", import.meta.url).href),
    });
    await preloadTools((m) => logged.push(m), [broken, ...TOOLS]);
    assert.equal(logged.length, 1);
    assert.match(logged[0]!, /^phone_broken could not preload its modules: /);
  },
});
