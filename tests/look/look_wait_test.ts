// phone_look's wait says only what its reads showed: something already there is "already on
// screen", something never there "was not on screen", not an event after 0 s; a timeout shorter
// than one dump still checks the screen once (the look's read joins the poll's); cancel stops
// the polls. In process, on a phone made of data, with a clock the tests advance.

import assert from "node:assert/strict";
import { createDevice } from "../../lib/adb/device.ts";
import { WAIT_GAP_MS } from "../../lib/look/look_wait.ts";
import { exited, fakeAdb, type FakeAnswer } from "../helpers/fake_adb.ts";
import { FakeClock } from "../helpers/fake_clock.ts";
import { connectInProcess, type InProcess, textOf } from "../helpers/in_process.ts";
import { waitFor } from "../helpers/wait_for.ts";

const node = (attrs: string) =>
  `<node index="0" text="" resource-id="" class="android.widget.TextView" package="com.android.notes" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" ${attrs} />`;

/** Notes, with the "Saved" message or without it, as `uiautomator dump /dev/tty` prints it. */
function notes(saved: boolean): FakeAnswer {
  return exited(
    0,
    `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">${
      node('text="Notes" bounds="[0,100][1080,200]"')
    }${
      saved ? node('text="Saved" bounds="[40,2000][1040,2100]"') : ""
    }</hierarchy>UI hierchary dumped to: /dev/tty\n`,
  );
}

/** A phone whose dumps answer in turn from `dumps` (the last one repeating), on a fake clock. */
async function phone(
  dumps: FakeAnswer[] | ((line: string) => Promise<FakeAnswer>),
): Promise<{ mcp: InProcess; clock: FakeClock; dumped: () => number }> {
  const adb = fakeAdb([[/uiautomator dump/, dumps]]);
  const device = createDevice({ run: adb.run, serial: undefined, timeoutMs: 60_000 });
  const clock = new FakeClock();
  const mcp = await connectInProcess({ device, clock });
  return { mcp, clock, dumped: () => adb.sent.filter((c) => /uiautomator dump/.test(c)).length };
}

/** The [waited] line of a look's text. */
function waited(text: string): string {
  const match = /^\[waited\]\n(.*)\n/.exec(text);
  assert.ok(match, text);
  return match[1]!;
}

/** Calls phone_look and advances the clock, a poll gap at a time, until it has answered. */
async function look(
  p: { mcp: InProcess; clock: FakeClock },
  args: Record<string, unknown>,
): Promise<string> {
  let done = false;
  const answer = p.mcp.client.callTool({ name: "phone_look", arguments: args }).finally(() => {
    done = true;
  });
  while (!done) await p.clock.advance(WAIT_GAP_MS);
  const result = await answer;
  assert.equal(result.isError, undefined, textOf(result));
  return textOf(result);
}

Deno.test({
  name: "wait_for on something already on screen says so, not that it appeared after 0 s",
  permissions: "none",
  async fn() {
    const p = await phone([notes(true)]);
    try {
      const line = waited(await look(p, { wait_for: "Saved" }));
      assert.equal(line, '"Saved" was already on screen (Saved @ [40,2000][1040,2100])');
    } finally {
      await p.mcp.close();
    }
  },
});

Deno.test({
  name: "wait_gone on something never on screen says it was not there, not that it disappeared",
  permissions: "none",
  async fn() {
    const p = await phone([notes(false)]);
    try {
      assert.equal(waited(await look(p, { wait_gone: "Saved" })), '"Saved" was not on screen');
    } finally {
      await p.mcp.close();
    }
  },
});

Deno.test({
  name: "what a later read shows is said as an event, after how long; a miss says the timeout",
  permissions: "none",
  async fn() {
    const appears = await phone([notes(false), notes(false), notes(true)]);
    try {
      const line = waited(await look(appears, { wait_for: "Saved" }));
      assert.match(line, /^"Saved" appeared after 0\.5 s \(Saved @ \[40,2000\]\[1040,2100\]\)$/);
    } finally {
      await appears.mcp.close();
    }
    const goes = await phone([notes(true), notes(false)]);
    try {
      const line = waited(await look(goes, { wait_gone: "Saved" }));
      assert.equal(line, '"Saved" disappeared after 0.3 s');
    } finally {
      await goes.mcp.close();
    }
    const never = await phone([notes(false)]);
    try {
      const line = waited(await look(never, { wait_for: "Saved", timeout_ms: 1000 }));
      assert.equal(line, '"Saved" did not appear within 1 s');
    } finally {
      await never.mcp.close();
    }
  },
});

Deno.test({
  name: "a timeout shorter than one dump still checks the screen once, with one dump",
  permissions: "none",
  async fn() {
    let release = () => {};
    const held = new Promise<void>((resolve) => release = resolve);
    const p = await phone(async () => {
      await held;
      return notes(true);
    });
    try {
      const answer = p.mcp.client.callTool({
        name: "phone_look",
        arguments: { wait_for: "Saved", timeout_ms: 0 },
      });
      await waitFor(() => p.dumped() === 1, "the wait's first dump");
      // The timeout passes while the dump runs; the look's own read joins it.
      await p.clock.advance(0);
      release();
      const text = textOf(await answer);
      assert.equal(waited(text), '"Saved" was already on screen (Saved @ [40,2000][1040,2100])');
      assert.match(text, /\[ui-tree\][^]*Saved @ /);
      assert.equal(p.dumped(), 1, "the look read the screen through the wait's dump");
    } finally {
      await p.mcp.close();
    }
  },
});

Deno.test({
  name: "a cancelled wait stops its poll's dump",
  permissions: "none",
  async fn() {
    const stopped: AbortSignal[] = [];
    const adb = fakeAdb([[/uiautomator dump/, () => {
      const signal = adb.limits.at(-1)!.signal!;
      stopped.push(signal);
      return new Promise<FakeAnswer>((resolve) => {
        signal.addEventListener("abort", () => resolve(exited(1, "", "killed")), { once: true });
      });
    }]]);
    const device = createDevice({ run: adb.run, serial: undefined, timeoutMs: 60_000 });
    const mcp = await connectInProcess({ device, clock: new FakeClock() });
    try {
      const cancel = new AbortController();
      const call = mcp.client.callTool(
        { name: "phone_look", arguments: { wait_for: "Saved" } },
        { signal: cancel.signal },
      );
      await waitFor(() => stopped.length === 1, "the wait's first dump");
      cancel.abort();
      await assert.rejects(call);
      await waitFor(() => stopped[0]!.aborted, "the poll's dump to be stopped");
      assert.equal(stopped.length, 1, "no poll after the cancel");
    } finally {
      await mcp.close();
    }
  },
});
