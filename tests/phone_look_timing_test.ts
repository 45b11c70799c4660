// phone_look answers before a client gives up: a hung vision server or a hung UI dump costs only
// its own channel, and a client that asks for progress hears from the look while it runs.
// The SDK's real Client and server in-process, a real OpenAI-compatible server on 127.0.0.1.

import assert from "node:assert/strict";
import type { Progress } from "@modelcontextprotocol/client";
import { createDevice } from "../lib/adb/device.ts";
import type { RunAdb } from "../lib/adb/runner.ts";
import { lookProgress } from "../lib/look.ts";
import type { ProgressUpdate } from "../lib/tools/tool.ts";
import { createVision } from "../lib/vision/vision.ts";
import { startOpenAiServer } from "./fixtures/openai_server.ts";
import { fakeAdb } from "./helpers/fake_adb.ts";
import { screenRules, SEND_LINE } from "./helpers/fake_screen.ts";
import { connectInProcess, textOf } from "./helpers/in_process.ts";

const MODEL = "vision-test-1";

function phone(run: RunAdb = fakeAdb(screenRules()).run) {
  return createDevice({ run, serial: "127.0.0.1:5555", timeoutMs: 5_000 });
}

function directVision(baseUrl: string, timeoutMs: number) {
  return createVision({ route: "direct", baseUrl, apiKey: undefined, model: MODEL, timeoutMs });
}

/** The lines of one section of phone_look's text. */
function section(text: string, name: string): string[] {
  const rest = text.split(`[${name}]\n`)[1];
  assert.ok(rest !== undefined, `no [${name}] in:\n${text}`);
  return rest.split("\n\n")[0]!.split("\n");
}

Deno.test("a hung vision server: the look answers with the tree and the vision timeout", async () => {
  const server = startOpenAiServer({ hang: true });
  const mcp = await connectInProcess({
    device: phone(),
    vision: directVision(server.url, 300),
  });
  try {
    const look = await mcp.client.callTool({ name: "phone_look", arguments: {} });
    const text = textOf(look);
    assert.equal(look.isError, undefined, text);
    assert.equal(server.requests.length, 1, "the model was asked");
    assert.deepEqual(section(text, "vision"), [
      `Vision unavailable: Vision model ${MODEL} at http://127.0.0.1:${server.port} gave no answer within 300 ms; raise PHONE_EYE_VISION_TIMEOUT_MS for slow (e.g. local CPU) models, or check the server's load`,
    ]);
    assert.deepEqual(section(text, "ui-tree"), [SEND_LINE]);
    assert.match(text, /^Screen: 360×800 device pixels\.\n/);
  } finally {
    await mcp.close();
    await server.close();
  }
});

Deno.test("the look's budget cuts a vision call that would outlast it, and keeps the tree", async () => {
  const server = startOpenAiServer({ hang: true });
  const mcp = await connectInProcess({
    device: phone(),
    // The vision call alone may take 30 s; the look as a whole only 0.3 s.
    vision: directVision(server.url, 30_000),
    lookBudgetMs: 300,
  });
  try {
    const look = await mcp.client.callTool({ name: "phone_look", arguments: {} });
    const text = textOf(look);
    assert.equal(look.isError, undefined, text);
    assert.match(
      section(text, "vision")[0] ?? "",
      new RegExp(
        `^Vision unavailable: The vision model at http://127\\.0\\.0\\.1:${server.port} gave no ` +
          `answer within the look's 0\\.3 s budget \\(the screenshot took [\\d.]+ s of it\\); look ` +
          `again, or for a slow model raise PHONE_EYE_VISION_TIMEOUT_MS`,
      ),
    );
    assert.deepEqual(section(text, "ui-tree"), [SEND_LINE]);
  } finally {
    await mcp.close();
    await server.close();
  }
});

Deno.test("a UI dump that never returns: the look answers at its budget with the vision answer", async () => {
  const server = startOpenAiServer({ answer: "Send is at (315, 740)." });
  const adb = fakeAdb(screenRules());
  // adb itself would kill this child at its own timeout; the look does not wait that long.
  const stuck: RunAdb = (args, timeoutMs) =>
    args.some((a) => a.includes("uiautomator")) ? new Promise(() => {}) : adb.run(args, timeoutMs);
  const mcp = await connectInProcess({
    device: phone(stuck),
    vision: directVision(server.url, 5_000),
    lookBudgetMs: 300,
  });
  try {
    const look = await mcp.client.callTool({ name: "phone_look", arguments: {} });
    const text = textOf(look);
    assert.equal(look.isError, undefined, text);
    assert.deepEqual(section(text, "vision"), ["Send is at (315, 740)."]);
    assert.deepEqual(section(text, "ui-tree"), [
      "UI tree unavailable: Cannot read the UI tree: uiautomator gave no answer within the look's 0.3 s budget (the phone is busy or its link is slow); look again, or check the phone",
    ]);
  } finally {
    await mcp.close();
    await server.close();
  }
});

Deno.test("a client that asks for progress hears each step of the look, in order", async () => {
  const server = startOpenAiServer({ answer: "Send is at (315, 740)." });
  const mcp = await connectInProcess({ device: phone(), vision: directVision(server.url, 5_000) });
  try {
    const heard: Progress[] = [];
    const look = await mcp.client.callTool(
      { name: "phone_look", arguments: {} },
      { onprogress: (p) => heard.push(p) },
    );
    assert.equal(look.isError, undefined, textOf(look));
    assert.ok(heard.length >= 1);
    const messages = heard.map((p) => p.message);
    assert.equal(messages[0], "reading the UI tree and taking a screenshot");
    assert.deepEqual(
      new Set(messages.slice(1)),
      new Set([
        "UI tree read",
        `screenshot taken; asking the vision model at http://127.0.0.1:${server.port}`,
        "vision model answered",
      ]),
    );
    // Milliseconds into the look out of its budget, growing with every notification.
    for (const [i, p] of heard.entries()) {
      assert.equal(p.total, 45_000);
      if (i > 0) assert.ok(p.progress > heard[i - 1]!.progress, JSON.stringify(heard));
    }
  } finally {
    await mcp.close();
    await server.close();
  }
});

Deno.test("while a look waits, a heartbeat says for what; after the result, nothing more is sent", async () => {
  const heard: ProgressUpdate[] = [];
  let beat = () => {};
  const twoBeats = new Promise<void>((resolve) => beat = resolve);
  const progress = lookProgress(
    (update) => {
      heard.push(update);
      if (heard.length === 3) beat();
      return Promise.resolve();
    },
    2_000,
    () => "the vision model",
    10,
  );
  progress.step("reading the UI tree and taking a screenshot");
  await twoBeats;
  await progress.stop();
  progress.step("vision model answered");
  assert.equal(heard.length, 3, JSON.stringify(heard));
  for (const update of heard.slice(1)) {
    assert.match(update.message ?? "", /^waiting for the vision model \([\d.]+ s of 2 s\)$/);
  }
  assert.ok(heard[0]!.progress < heard[1]!.progress && heard[1]!.progress < heard[2]!.progress);
});

Deno.test("a client that stopped listening does not fail the look's progress", async () => {
  let tried = 0;
  const progress = lookProgress(
    () => (tried++, Promise.reject(new Error("Not connected"))),
    1_000,
    () => "the UI tree",
    60_000,
  );
  progress.step("reading the UI tree");
  await assert.doesNotReject(progress.stop());
  assert.equal(tried, 1);
});
