// The Maestro export, checked against Maestro's command set: a small schema written from Maestro's
// documentation (docs.maestro.dev, API reference: tapOn, inputText, launchApp, openLink, pressKey,
// swipe, scroll, assertVisible and their fields). Pure: entries in, YAML out.

import assert from "node:assert/strict";
import { exactRegex, maestroFlow } from "../../lib/app/maestro.ts";
import type { Numbered } from "../../lib/app/journal_read.ts";
import type { JournalEntry } from "../../lib/mcp/journal.ts";

type Check = (value: unknown) => string | undefined;

const isString: Check = (v) => typeof v === "string" ? undefined : "a string";
const fields = (allowed: Record<string, Check>, oneOf?: string[]): Check => (v) => {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return "a map";
  for (const [key, value] of Object.entries(v)) {
    const check = allowed[key];
    if (check === undefined) return `no field ${key}`;
    const problem = check(value);
    if (problem !== undefined) return `${key}: ${problem}`;
  }
  if (oneOf && oneOf.filter((k) => k in v).length !== 1) return `one of ${oneOf.join(", ")}`;
  return undefined;
};
const either = (...checks: Check[]): Check => (v) =>
  checks.some((c) => c(v) === undefined) ? undefined : checks.map((c) => c(v)).join(" or ");
const none: Check = (v) => v === undefined ? undefined : "no value";
/** `50%,50%` or `100,200` (tapOn's point); `90%, 50%` or `100, 200` (swipe's start and end). */
const position: Check = (v) =>
  typeof v === "string" && /^\d+%?,\s?\d+%?$/.test(v) ? undefined : "x,y or x%,y%";
const bool: Check = (v) => typeof v === "boolean" ? undefined : "true or false";
const ms: Check = (v) => Number.isInteger(v) ? undefined : "milliseconds";
const KEYS = [
  "Home",
  "Lock",
  "Enter",
  "Backspace",
  "Volume Up",
  "Volume Down",
  "Back",
  "Power",
  "Remote Dpad Up",
  "Remote Dpad Down",
  "Remote Dpad Left",
  "Remote Dpad Right",
  "Remote Dpad Center",
  "Remote Media Play Pause",
  "Remote Media Stop",
  "Remote Media Next",
  "Remote Media Previous",
  "Remote Media Rewind",
  "Remote Media Fast Forward",
];

/** Maestro's commands as its documentation gives them. */
const selector = fields({ text: isString, id: isString, point: position }, ["text", "id", "point"]);
const assertion = either(
  isString,
  fields({
    text: isString,
    id: isString,
    enabled: bool,
    checked: bool,
    focused: bool,
    selected: bool,
  }),
);
const MAESTRO: Record<string, Check> = {
  tapOn: either(isString, selector),
  doubleTapOn: either(isString, selector),
  longPressOn: either(isString, selector),
  inputText: isString,
  launchApp: either(
    none,
    isString,
    fields({ appId: isString, clearState: bool, clearKeychain: bool, stopApp: bool }),
  ),
  openLink: either(isString, fields({ link: isString, autoVerify: bool, browser: bool })),
  pressKey: (v) => typeof v === "string" && KEYS.includes(v) ? undefined : "a documented key",
  swipe: either(
    fields({ start: position, end: position, duration: ms }),
    fields({
      direction: (v) =>
        ["LEFT", "RIGHT", "UP", "DOWN"].includes(v as string) ? undefined : "a direction",
      duration: ms,
    }),
  ),
  scroll: none,
  assertVisible: assertion,
  assertNotVisible: assertion,
};

/** The flow's commands, each checked against MAESTRO; comments kept apart. */
function parseFlow(
  yaml: string,
): { appId: string; commands: [string, unknown][]; comments: string[] } {
  const [head, body] = yaml.split("\n---\n");
  assert.ok(body !== undefined, "a config section, ---, then the commands");
  const appId = /^appId: (.+)$/m.exec(head!)?.[1];
  assert.ok(appId !== undefined, "appId in the config section");
  const commands: [string, unknown][] = [];
  const comments: string[] = [];
  for (const line of body.split("\n").filter((l) => l !== "")) {
    if (line.startsWith("#")) {
      comments.push(line);
      continue;
    }
    const m = /^- (\w+)(?:: (.+))?$/.exec(line);
    assert.ok(m, `not a command line: ${line}`);
    const [, name, raw] = m;
    const value = raw === undefined ? undefined : JSON.parse(raw);
    const check = MAESTRO[name!];
    assert.ok(check, `${name} is not a Maestro command`);
    const problem = check(value);
    assert.equal(problem, undefined, `${line}: ${problem}`);
    commands.push([name!, value]);
  }
  return { appId: JSON.parse(appId), commands, comments };
}

const entry = (
  verb: string,
  args: Record<string, unknown>,
  more: Partial<JournalEntry> = {},
): Numbered => ({
  line: 0,
  entry: {
    time: "2026-01-01T00:00:00.000Z",
    client: { via: "stdio" },
    phone: "emulator-5554",
    verb,
    args,
    outcome: "done",
    words: "",
    ms: 1,
    ...more,
  },
});
const target = (value: string, field: "text" | "content-desc" | "resource-id" = "text") => ({
  name: value,
  label: value,
  bounds: { x1: 0, y1: 0, x2: 10, y2: 10 },
  point: { x: 5, y: 5 },
  password: false,
  by: { field, value },
});
const changed = (appeared: string[], app?: [string, string]) => ({
  settled: true,
  app: { before: app?.[0], after: app?.[1] },
  appeared,
  gone: [],
});
const SCREEN = { width: 1080, height: 2400 };

Deno.test({
  name:
    "every command of an exported flow is one of Maestro's, with the fields its documentation gives",
  permissions: "none",
  fn() {
    const flow = maestroFlow(
      [
        entry("phone_intent", { package: "com.example.shop" }, {
          changed: changed(["Sign in"], ["com.android.launcher3/.Home", "com.example.shop/.Main"]),
        }),
        entry("phone_type", { element: "password" }, {
          target: { ...target("com.example.shop:id/password", "resource-id"), password: true },
          redacted: { text: "typed into a password field" },
        }),
        entry("phone_tap", { element: "sign" }, {
          target: target("Sign in (2)"),
          changed: changed(["Cart"]),
        }),
        entry("phone_tap", { x: 540, y: 1200 }, { screen: SCREEN }),
        entry("phone_tap", { element: "Cart", count: 2 }, { target: target("Cart") }),
        entry("phone_tap", { element: "Cart", hold_ms: 800 }, { target: target("Cart") }),
        entry("phone_key", { key: "back" }),
        entry("phone_key", { key: "recents" }),
        entry("phone_swipe", { x1: 540, y1: 1800, x2: 540, y2: 600, duration_ms: 300 }, {
          screen: SCREEN,
        }),
        entry("phone_swipe", { x1: 900, y1: 1200, x2: 100, y2: 1200, duration_ms: 300 }, {
          screen: SCREEN,
        }),
        entry("phone_intent", {
          action: "android.intent.action.VIEW",
          data: "https://example.com/a?b=1",
        }),
        entry("phone_look", { wait_for: "Order placed" }, {
          observed: {
            screen: SCREEN,
            app: "com.example.shop",
            elements: 3,
            waited: { name: "Order placed", gone: false, met: true },
          },
        }),
        entry("phone_look", {}, {
          observed: { screen: SCREEN, app: "com.example.shop", elements: 3 },
        }),
        entry("phone_tap", { element: "Nowhere" }, { outcome: "refused" }),
      ].map((numbered, i) => ({ ...numbered, line: i + 1 })),
      "calls.jsonl",
    );
    const { appId, commands, comments } = parseFlow(flow);
    assert.equal(appId, "com.example.shop");
    assert.deepEqual(commands, [
      ["launchApp", { appId: "com.example.shop", stopApp: false }],
      ["assertVisible", "Sign in"],
      ["tapOn", { id: "com\\.example\\.shop:id/password" }],
      ["inputText", "${PASSWORD}"],
      ["tapOn", { text: "Sign in \\(2\\)" }],
      ["assertVisible", "Cart"],
      ["tapOn", { point: "50%,50%" }],
      ["doubleTapOn", { text: "Cart" }],
      ["longPressOn", { text: "Cart" }],
      ["pressKey", "Back"],
      ["scroll", undefined],
      ["swipe", { start: "83%, 50%", end: "9%, 50%", duration: 300 }],
      ["openLink", "https://example.com/a?b=1"],
      ["assertVisible", "Order placed"],
    ]);
    const said = comments.join("\n");
    assert.match(said, /fragile: a point, not an element/);
    assert.match(said, /password field: the journal never keeps that text; run with -e PASSWORD=/);
    assert.match(said, /phone-eye found "sign" in "Sign in \(2\)"/);
    assert.match(said, /phone_key "recents" has no Maestro pressKey/);
    assert.match(said, /Maestro's scroll scrolls down by its own distance/);
    assert.match(said, /Maestro's longPressOn holds for its own time/);
  },
});

Deno.test({
  name: "text selectors are escaped so Maestro's whole-regex match finds exactly the text",
  permissions: "none",
  fn() {
    const texts = ["Save", "Total: $4.99 (incl. tax)", "a+b*c?", "[x] {y} ^z|w \\ end", "${env}"];
    for (const text of texts) {
      const pattern = new RegExp(`^${exactRegex(text)}$`);
      assert.ok(pattern.test(text), text);
      assert.ok(!pattern.test(`${text}!`), text);
    }
    assert.equal(exactRegex("${env}"), "\\$\\{env\\}");
  },
});
