// The journal: one whole JSON line per call with the facts its verb found (target, [changed],
// observations), password text never written, rotation at its size; in process, with fake files.

import assert from "node:assert/strict";
import { createDevice } from "../../lib/adb/device.ts";
import {
  createJournal,
  type JournalEntry,
  type JournalFiles,
  journalFolder,
  withClient,
} from "../../lib/mcp/journal.ts";
import { exited, fakeAdb } from "../helpers/fake_adb.ts";
import { connectInProcess } from "../helpers/in_process.ts";

/** Files in memory: what the journal appended, renamed, and asked about. */
function memoryFiles(): JournalFiles & { text: Map<string, string> } {
  const text = new Map<string, string>();
  const decoder = new TextDecoder();
  return {
    text,
    append(path, bytes) {
      text.set(path, (text.get(path) ?? "") + decoder.decode(bytes));
      return Promise.resolve();
    },
    size: (path) =>
      Promise.resolve(text.has(path) ? new TextEncoder().encode(text.get(path)).length : undefined),
    rename(from, to) {
      text.set(to, text.get(from) ?? "");
      text.delete(from);
      return Promise.resolve();
    },
  };
}

const node = (attrs: string, children = "") =>
  `<node index="0" text="" resource-id="" class="android.view.View" package="com.example.login" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" ${attrs}${
    children ? `>${children}</node>` : " />"
  }`;

/** A sign-in screen: a user field, a password field (marked so by the dump) and a button. */
const LOGIN =
  `UI hierchary dumped to: /data/local/tmp/x.xml\n<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">${
    node(
      'class="android.widget.FrameLayout" bounds="[0,0][360,800]"',
      node(
        'text="user" resource-id="com.example.login:id/user" class="android.widget.EditText" clickable="true" focusable="true" bounds="[20,100][340,160]"',
      ) +
        node(
          'text="hunter2" resource-id="com.example.login:id/password" class="android.widget.EditText" clickable="true" focusable="true" password="true" bounds="[20,200][340,260]"',
        ) +
        node(
          'text="Sign in" class="android.widget.Button" clickable="true" focusable="true" bounds="[20,300][340,360]"',
        ),
    )
  }</hierarchy>`;

async function journaled(
  work: (call: (name: string, args: object) => Promise<unknown>) => Promise<void>,
) {
  const files = memoryFiles();
  const adb = fakeAdb([[/uiautomator dump/, exited(0, LOGIN)]]);
  const device = createDevice({ run: adb.run, serial: "emulator-5554", timeoutMs: 1000 });
  const journal = createJournal({
    path: "/var/log/phone-eye/journal.jsonl",
    files,
    now: () => Date.UTC(2026, 0, 2, 3, 4, 5),
    logError: () => {},
  });
  const eye = await connectInProcess({ device, journal });
  try {
    await work((name, args) => eye.client.callTool({ name, arguments: { ...args } }));
  } finally {
    await eye.close();
  }
  const text = files.text.get("/var/log/phone-eye/journal.jsonl") ?? "";
  assert.ok(text.endsWith("\n"), "every line is whole");
  return {
    text,
    entries: text.trimEnd().split("\n").map((line) => JSON.parse(line) as JournalEntry),
  };
}

Deno.test("each call ends in one journal line: client, phone, verb, arguments, target, outcome, words, duration", async () => {
  const { entries } = await journaled(async (call) => {
    await call("phone_tap", { element: "Sign in", settle: false });
    await call("phone_tap", { element: "Nowhere", settle: false });
    await call("phone_tap", { x: 1, settle: false });
  });
  assert.equal(entries.length, 3);
  const [tap, miss, refused] = entries;
  assert.deepEqual(
    { ...tap, ms: 0 },
    {
      time: "2026-01-02T03:04:05.000Z",
      client: { via: "stdio" },
      phone: "emulator-5554",
      verb: "phone_tap",
      args: { element: "Sign in", settle: false },
      target: {
        name: "Sign in",
        label: "Sign in",
        bounds: { x1: 20, y1: 300, x2: 340, y2: 360 },
        point: { x: 180, y: 330 },
        password: false,
        by: { field: "text", value: "Sign in" },
      },
      outcome: "done",
      words: 'Tapped "Sign in" (Button) @ [20,300][340,360] centre (180, 330): (180, 330).',
      ms: 0,
    },
  );
  assert.equal(miss?.outcome, "refused");
  assert.match(miss?.words ?? "", /^Cannot tap: no element on screen/);
  assert.equal(refused?.outcome, "refused");
});

Deno.test("text typed into a password field is never written; the entry says it was left out", async () => {
  const { text, entries } = await journaled(async (call) => {
    await call("phone_type", { element: "password", text: "s3cret-Passw0rd", settle: false });
    await call("phone_type", { element: "user", text: "alice", settle: false });
    // No element and no screen read that says which field has focus: not written either.
    await call("phone_type", { text: "0therSecret", settle: false });
  });
  assert.doesNotMatch(text, /s3cret-Passw0rd|0therSecret|hunter2/);
  assert.deepEqual(entries.map((e) => e.args.text), [undefined, "alice", undefined]);
  assert.deepEqual(entries[0]?.redacted, { text: "typed into a password field" });
  assert.equal(entries[0]?.target?.password, true);
  assert.match(entries[2]?.redacted?.text ?? "", /could not tell/);
});

Deno.test("an action's [changed] section and a look's observation are kept as data", async () => {
  const { entries } = await journaled(async (call) => {
    await call("phone_look", { wait_for: "Sign in", timeout_ms: 0 });
    await call("phone_key", { key: "back" });
  });
  const [look, key] = entries;
  assert.deepEqual(look?.observed, {
    screen: { width: 360, height: 800 },
    app: "com.example.login",
    elements: 3,
    waited: { name: "Sign in", gone: false, met: true },
  });
  assert.equal(key?.changed?.settled, true);
  assert.deepEqual(key?.changed?.appeared, []);
});

Deno.test("the journal rolls over to FILE.1 past its size, keeping one previous file", async () => {
  const files = memoryFiles();
  const journal = createJournal({
    path: "/j/calls.jsonl",
    files,
    now: () => 0,
    logError: () => {},
    maxBytes: 600,
  });
  const ended = (n: number) => ({
    client: { via: "stdio" } as const,
    phone: null,
    verb: "phone_key",
    args: { key: `k${n}` },
    record: {},
    outcome: "done" as const,
    words: "Pressed.",
    ms: 1,
  });
  for (let n = 0; n < 12; n++) await journal.record(ended(n));
  const current = files.text.get("/j/calls.jsonl") ?? "";
  const previous = files.text.get("/j/calls.jsonl.1") ?? "";
  assert.ok(current.length <= 600 && previous.length <= 600);
  assert.match(current, /"k11"/);
  assert.deepEqual([...files.text.keys()].sort(), ["/j/calls.jsonl", "/j/calls.jsonl.1"]);
});

Deno.test("a journal that cannot be written says so once, with the grant to add, and the call goes on", async () => {
  const logged: string[] = [];
  const refused = Object.assign(new Error("Requires write access"), { name: "NotCapable" });
  const journal = createJournal({
    path: "/srv/j/calls.jsonl",
    files: {
      append: () => Promise.reject(refused),
      size: () => Promise.resolve(undefined),
      rename: () => Promise.resolve(),
    },
    now: () => 0,
    logError: (m) => logged.push(m),
  });
  const call = {
    client: { via: "stdio" } as const,
    phone: null,
    verb: "phone_key",
    args: {},
    record: {},
    outcome: "done" as const,
    words: "",
    ms: 0,
  };
  await journal.record(call);
  await journal.record(call);
  assert.equal(logged.length, 1);
  assert.match(logged[0] ?? "", /--journal-dir \/srv\/j.*--allow-write=\/srv\/j/);
  assert.equal(journalFolder("/srv/j/calls.jsonl"), "/srv/j");
  assert.equal(journalFolder("calls.jsonl"), ".");
});

Deno.test("an HTTP client's address reaches the server in a header it cannot forge", () => {
  const request = new Request("http://127.0.0.1/mcp", {
    method: "POST",
    headers: { "x-phone-eye-client": "203.0.113.9" },
    body: "{}",
  });
  assert.equal(withClient(request, "127.0.0.1").headers.get("x-phone-eye-client"), "127.0.0.1");
});
