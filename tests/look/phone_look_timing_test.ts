// phone_look answers before a client gives up: a hung vision server or a hung UI dump costs only
// its own channel, and a client that asks for progress hears from the look while it runs.
// The SDK's real Client and server in-process, a real OpenAI-compatible server on 127.0.0.1, and a
// fake clock the tests advance: a 45 s budget is reached without waiting 45 s.

import assert from "node:assert/strict";
import type { Progress } from "@modelcontextprotocol/client";
import { createDevice } from "../../lib/adb/device.ts";
import type { RunAdb } from "../../lib/adb/runner.ts";
import type { Clock } from "../../lib/core/clock.ts";
import { lookProgress, PROGRESS_EVERY_MS } from "../../lib/look/progress.ts";
import type { ProgressUpdate } from "../../lib/core/progress.ts";
import { createVision } from "../../lib/vision/vision.ts";
import { startOpenAiServer } from "../fixtures/openai_server.ts";
import { exited, fakeAdb, type FakeRule } from "../helpers/fake_adb.ts";
import { FakeClock } from "../helpers/fake_clock.ts";
import { screenRules as encodeScreenRules, SEND_LINE } from "../helpers/fake_screen.ts";
import { connectInProcess, textOf } from "../helpers/in_process.ts";
import { waitFor } from "../helpers/wait_for.ts";

const MODEL = "vision-test-1";

/**
 * The fake screen's rules, its PNG encoded once for the file (some 30 ms each time): each call
 * gets its own copy of the bytes, since phone-eye hands a screenshot's buffer back once decoded.
 */
const SCREEN_RULES = encodeScreenRules();
function screenRules(): Array<[RegExp, FakeRule]> {
  return SCREEN_RULES.map(([pattern, answer]): [RegExp, FakeRule] => [
    pattern,
    () =>
      Promise.resolve(
        answer.kind === "exited" ? { ...answer, stdout: answer.stdout.slice() } : answer,
      ),
  ]);
}

function phone(run: RunAdb = fakeAdb(screenRules()).run) {
  return createDevice({ run, serial: "127.0.0.1:5555", timeoutMs: 5_000 });
}

function directVision(baseUrl: string, timeoutMs: number, clock: Clock) {
  return createVision(
    { route: "direct", baseUrl, apiKey: undefined, model: MODEL, timeoutMs },
    { clock },
  );
}

/** The lines of one section of phone_look's text. */
function section(text: string, name: string): string[] {
  const rest = text.split(`[${name}]\n`)[1];
  assert.ok(rest !== undefined, `no [${name}] in:\n${text}`);
  return rest.split("\n\n")[0]!.split("\n");
}

Deno.test("a hung vision server: the look answers with the tree and the vision timeout", async () => {
  const server = startOpenAiServer({ hang: true });
  const clock = new FakeClock();
  const mcp = await connectInProcess({
    device: phone(),
    vision: directVision(server.url, 300, clock),
    clock,
  });
  try {
    const answered = mcp.client.callTool({ name: "phone_look", arguments: {} });
    await waitFor(() => server.requests.length === 1, "the vision request");
    await clock.advance(300);
    const look = await answered;
    const text = textOf(look);
    assert.equal(look.isError, undefined, text);
    assert.equal(server.requests.length, 1, "the model was asked");
    assert.deepEqual(section(text, "vision"), [
      `Vision unavailable: Vision model ${MODEL} at http://127.0.0.1:${server.port} gave no answer within 300 ms; raise PHONE_EYE_VISION_TIMEOUT_MS for slow (e.g. local CPU) models, or check the server's load`,
    ]);
    assert.deepEqual(section(text, "ui-tree"), [SEND_LINE]);
    assert.match(text, /^Screen: 360×800 device pixels\.\n/);
    assert.equal(clock.pending, 0, "the look left a timer behind");
  } finally {
    await mcp.close();
    await server.close();
  }
});

Deno.test("the look's budget cuts a vision call that would outlast it, and keeps the tree", async () => {
  const server = startOpenAiServer({ hang: true });
  const clock = new FakeClock();
  const mcp = await connectInProcess({
    device: phone(),
    // The vision call alone may take 30 s; the look as a whole only 0.3 s.
    vision: directVision(server.url, 30_000, clock),
    lookBudgetMs: 300,
    clock,
  });
  try {
    const answered = mcp.client.callTool({ name: "phone_look", arguments: {} });
    await waitFor(() => server.requests.length === 1, "the vision request");
    await clock.advance(300);
    const look = await answered;
    const text = textOf(look);
    assert.equal(look.isError, undefined, text);
    // The clock stood still while the screenshot was taken.
    assert.deepEqual(section(text, "vision"), [
      `Vision unavailable: The vision model at http://127.0.0.1:${server.port} gave no answer within the look's 0.3 s budget (the screenshot took 0 s of it); look again, or for a slow model raise PHONE_EYE_VISION_TIMEOUT_MS (the budget grows with it) and your client's tool timeout to match`,
    ]);
    assert.deepEqual(section(text, "ui-tree"), [SEND_LINE]);
    assert.equal(clock.pending, 0, "the look left a timer behind");
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
  const clock = new FakeClock();
  const mcp = await connectInProcess({
    device: phone(stuck),
    vision: directVision(server.url, 5_000, clock),
    lookBudgetMs: 300,
    clock,
  });
  try {
    const heard: (string | undefined)[] = [];
    const answered = mcp.client.callTool(
      { name: "phone_look", arguments: {} },
      { onprogress: (p) => heard.push(p.message) },
    );
    await waitFor(() => heard.includes("vision model answered"), "the vision answer");
    await clock.advance(300);
    const look = await answered;
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
  // A clock that never moves: progress must still grow with every notification.
  const clock = new FakeClock();
  const mcp = await connectInProcess({
    device: phone(),
    vision: directVision(server.url, 5_000, clock),
    clock,
  });
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

Deno.test("a look that waits on a hung vision model beats at 5 s and 10 s, and answers at 45 s", async () => {
  const server = startOpenAiServer({ hang: true });
  const clock = new FakeClock();
  const mcp = await connectInProcess({
    device: phone(),
    // Longer than the look's budget, which is what cuts the call.
    vision: directVision(server.url, 60_000, clock),
    clock,
  });
  try {
    const heard: Progress[] = [];
    const answered = mcp.client.callTool(
      { name: "phone_look", arguments: {} },
      { onprogress: (p) => heard.push(p) },
    );
    const said = (message: string) => heard.some((p) => p.message === message);
    await waitFor(() => server.requests.length === 1 && said("UI tree read"), "tree and request");
    const before = heard.length;
    await clock.advance(PROGRESS_EVERY_MS);
    await waitFor(() => heard.length === before + 1, "the first heartbeat");
    await clock.advance(PROGRESS_EVERY_MS);
    await waitFor(() => heard.length === before + 2, "the second heartbeat");
    assert.deepEqual(heard.slice(before), [
      { progress: 5_000, total: 45_000, message: "waiting for the vision model (5 s of 45 s)" },
      { progress: 10_000, total: 45_000, message: "waiting for the vision model (10 s of 45 s)" },
    ]);
    await clock.advance(45_000 - 2 * PROGRESS_EVERY_MS);
    const text = textOf(await answered);
    assert.match(section(text, "vision")[0] ?? "", /within the look's 45 s budget/);
    assert.equal(
      heard.at(-1)?.progress,
      40_000,
      "a heartbeat every 5 s up to 40 s, none at the budget",
    );
    assert.equal(clock.pending, 0, "the look left a timer behind");
  } finally {
    await mcp.close();
    await server.close();
  }
});

Deno.test("while a look waits, a heartbeat says for what; after the result, nothing more is sent", async () => {
  const heard: ProgressUpdate[] = [];
  const clock = new FakeClock();
  const progress = lookProgress(
    (update) => (heard.push(update), Promise.resolve()),
    2_000,
    () => "the vision model",
    clock,
    500,
  );
  progress.step("reading the UI tree and taking a screenshot");
  await clock.advance(1_000);
  await progress.stop();
  progress.step("vision model answered");
  await clock.advance(10_000);
  assert.deepEqual(heard, [
    { progress: 0, total: 2_000, message: "reading the UI tree and taking a screenshot" },
    { progress: 500, total: 2_000, message: "waiting for the vision model (0.5 s of 2 s)" },
    { progress: 1_000, total: 2_000, message: "waiting for the vision model (1 s of 2 s)" },
  ]);
  assert.equal(clock.pending, 0);
});

Deno.test("a heartbeat a busy event loop made late is sent once, then the schedule resumes", async () => {
  const heard: ProgressUpdate[] = [];
  const clock = new FakeClock();
  const progress = lookProgress(
    (update) => (heard.push(update), Promise.resolve()),
    10_000,
    () => "the UI tree",
    clock,
    500,
  );
  clock.stall(1_200); // beats due at 500 and 1000 could not fire
  await clock.advance(300);
  await progress.stop();
  assert.deepEqual(heard.map((u) => u.progress), [1_200, 1_500]);
});

Deno.test("a client that stopped listening does not fail the look's progress", async () => {
  let tried = 0;
  const progress = lookProgress(
    () => (tried++, Promise.reject(new Error("Not connected"))),
    1_000,
    () => "the UI tree",
    new FakeClock(),
  );
  progress.step("reading the UI tree");
  await assert.doesNotReject(progress.stop());
  assert.equal(tried, 1);
});

Deno.test("an animated screen's dump is retried 400 ms later on the look's clock, and then read", async () => {
  const clock = new FakeClock();
  const [screenshot] = screenRules();
  const dump = SCREEN_RULES[1]![1]; // text: copied with its exit marker on every answer
  const idle = exited(0, "ERROR: could not get idle state.\n");
  // Plain, then compressed at once, then compressed again after a pause: the third one answers.
  const adb = fakeAdb([screenshot!, [/uiautomator dump/, [idle, idle, dump]]]);
  const mcp = await connectInProcess({ device: phone(adb.run), clock });
  try {
    const heard: (string | undefined)[] = [];
    const answered = mcp.client.callTool(
      { name: "phone_look", arguments: {} },
      { onprogress: (p) => heard.push(p.message) },
    );
    const dumps = () => adb.sent.filter((c) => c.includes("uiautomator dump")).length;
    // Beside the look's budget (45 s) and heartbeat (5 s): the pause before the third dump.
    await waitFor(() => dumps() === 2 && clock.due.includes(400), "two dumps and the pause");
    await clock.advance(399);
    assert.equal(dumps(), 2, "the third dump waits for the pause");
    await clock.advance(1);
    const text = textOf(await answered);
    assert.equal(dumps(), 3);
    assert.deepEqual(section(text, "ui-tree"), [SEND_LINE]);
    assert.ok(heard.includes("UI tree read"), JSON.stringify(heard));
  } finally {
    await mcp.close();
  }
});
