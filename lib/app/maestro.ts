// `phone-eye --maestro FILE`: a journal's actions as a Maestro flow (YAML), with a comment wherever
// Maestro's meaning differs from phone-eye's. Pure: journal_read.ts's steps in, the flow's text out.

import { resolveKey } from "../adb/keys.ts";
import type { JournalEntry } from "../mcp/journal.ts";
import { describeStep, type Numbered, replaySteps, type Step } from "./journal_read.ts";

/** How many of what an action's [changed] said appeared the flow asserts after it. */
const ASSERTED_MAX = 3;

/** phone-eye's keycodes Maestro's pressKey names (its documented keys, Android TV's remote ones). */
const MAESTRO_KEYS: Readonly<Record<number, string>> = {
  3: "Home",
  4: "Back",
  19: "Remote Dpad Up",
  20: "Remote Dpad Down",
  21: "Remote Dpad Left",
  22: "Remote Dpad Right",
  23: "Remote Dpad Center",
  24: "Volume Up",
  25: "Volume Down",
  26: "Power",
  66: "Enter",
  67: "Backspace",
  85: "Remote Media Play Pause",
  87: "Remote Media Next",
  88: "Remote Media Previous",
};

/**
 * A Maestro text or id selector matching exactly `text`: Maestro reads selectors as whole regular
 * expressions, so every character that means something in one is escaped (`$` too, which would
 * also start Maestro's `${…}` expressions).
 */
export function exactRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A YAML value: JSON is YAML, so strings and maps are written as JSON, one command per line. */
const yaml = (value: unknown) => JSON.stringify(value);

/** The package part of `package/activity`. */
const packageOf = (app: string | undefined) => app?.split("/", 1)[0];

/** The app the flow is about: the one the first app switch went to, else the first app seen. */
function appIdOf(entries: readonly Numbered[]): { appId: string; first: string | undefined } {
  let first: string | undefined;
  for (const { entry } of entries) {
    const before = packageOf(entry.changed?.app.before ?? entry.observed?.app);
    const after = packageOf(entry.changed?.app.after);
    first ??= before ?? after;
    if (after !== undefined && first !== undefined && after !== first) {
      return { appId: after, first };
    }
  }
  return { appId: first ?? "com.example.app", first };
}

/** The selector for the element a step named, with a note when Maestro would read it otherwise. */
function selector(
  entry: JournalEntry,
  name: string,
): { sel: Record<string, string>; note?: string } {
  const by = entry.target?.by;
  if (by === undefined) return { sel: { text: exactRegex(name) } };
  const sel = by.field === "resource-id"
    ? { id: exactRegex(by.value) }
    : { text: exactRegex(by.value) };
  const whole = [by.value, by.value.split("/").at(-1) ?? ""];
  const note = whole.includes(name.trim())
    ? undefined
    : `phone-eye found "${name}" in "${by.value}" (ignoring case, or as part of it); Maestro matches the whole ${
      by.field === "resource-id" ? "id" : "text"
    } exactly, so the selector holds the element's own`;
  return note === undefined ? { sel } : { sel, note };
}

const percent = (value: number, whole: number) => `${Math.round(value / whole * 100)}%`;

/** Counts the secrets asked for, so each gets its own variable. */
interface Secrets {
  count: number;
}

/** One step's commands (and comments). */
function stepLines(step: Step, entry: JournalEntry, secrets: Secrets): string[] {
  if (step.kind === "wait") {
    return [
      `- ${step.gone ? "assertNotVisible" : "assertVisible"}: ${yaml(exactRegex(step.name))}`,
    ];
  }
  const { args } = step;
  const lines: string[] = [];
  const element = typeof args.element === "string" ? args.element : undefined;
  const tapOn = (command: string) => {
    if (element !== undefined) {
      const { sel, note } = selector(entry, element);
      if (note !== undefined) lines.push(`# ${note}`);
      lines.push(`- ${command}: ${yaml(sel)}`);
      return;
    }
    const { x, y } = args as { x: number; y: number };
    const screen = step.screen;
    lines.push(
      `# fragile: a point, not an element (phone-eye tapped (${x}, ${y})${
        screen ? ` on a ${screen.width}x${screen.height} screen` : ""
      }); give the element a text or id to tap it by name`,
    );
    const point = screen ? `${percent(x, screen.width)},${percent(y, screen.height)}` : `${x},${y}`;
    lines.push(`- ${command}: ${yaml({ point })}`);
  };
  switch (step.verb) {
    case "phone_tap": {
      const count = typeof args.count === "number" ? args.count : 1;
      if (args.hold_ms !== undefined) {
        lines.push(
          `# phone-eye held ${args.hold_ms} ms; Maestro's longPressOn holds for its own time`,
        );
        tapOn("longPressOn");
      } else if (count >= 2) {
        if (count === 3) lines.push("# phone-eye triple-tapped; Maestro has a double tap only");
        tapOn("doubleTapOn");
      } else tapOn("tapOn");
      break;
    }
    case "phone_type": {
      if (element !== undefined) tapOn("tapOn");
      if (step.redacted) {
        secrets.count++;
        const name = secrets.count === 1 ? "PASSWORD" : `PASSWORD_${secrets.count}`;
        lines.push(
          `# typed into a password field: the journal never keeps that text; run with -e ${name}=…`,
          `- inputText: ${yaml(`\${${name}}`)}`,
        );
      } else lines.push(`- inputText: ${yaml(args.text)}`);
      break;
    }
    case "phone_key": {
      const key = resolveKey(args.key as string | number);
      const named = "code" in key ? MAESTRO_KEYS[key.code] : undefined;
      if (named === undefined) {
        lines.push(`# phone_key ${yaml(args.key)} has no Maestro pressKey: do it by hand here`);
      } else lines.push(`- pressKey: ${yaml(named)}`);
      break;
    }
    case "phone_swipe":
      lines.push(...swipeLines(step));
      break;
    case "phone_intent":
      lines.push(...intentLines(args));
      break;
  }
  return lines;
}

/** A swipe in percentages of the recorded screen; an upward one down the middle is a scroll. */
function swipeLines(step: Step & { kind: "act" }): string[] {
  const { x1, y1, x2, y2, duration_ms } = step.args as Record<string, number>;
  const screen = step.screen;
  if (screen === undefined) {
    return [
      "# fragile: pixels of a screen the journal did not record",
      `- swipe: ${yaml({ start: `${x1}, ${y1}`, end: `${x2}, ${y2}`, duration: duration_ms })}`,
    ];
  }
  const up = y1! - y2!;
  if (up > screen.height * 0.3 && Math.abs(x2! - x1!) < screen.width * 0.1) {
    return [
      `# phone-eye swiped up from (${x1}, ${y1}) to (${x2}, ${y2}); Maestro's scroll scrolls down by its own distance`,
      "- scroll",
    ];
  }
  return [
    `# fragile: a swipe between points of a ${screen.width}x${screen.height} screen, as percentages`,
    `- swipe: ${
      yaml({
        start: `${percent(x1!, screen.width)}, ${percent(y1!, screen.height)}`,
        end: `${percent(x2!, screen.width)}, ${percent(y2!, screen.height)}`,
        duration: duration_ms ?? 300,
      })
    }`,
  ];
}

/** launchApp for a package, openLink for a link; anything else is said, not guessed. */
function intentLines(args: Record<string, unknown>): string[] {
  const { package: pkg, data, component, action } = args as Record<string, string | undefined>;
  if (data !== undefined) {
    const also = pkg ?? component;
    return [
      ...(also === undefined ? [] : [
        `# phone-eye opened it in ${also}; Maestro's openLink lets the phone pick the app`,
      ]),
      `- openLink: ${yaml(data)}`,
    ];
  }
  const app = pkg ?? component?.split("/", 1)[0];
  if (app === undefined) {
    return [`# phone_intent ${yaml(args)} has no Maestro command: do it by hand here`];
  }
  return [
    ...(component !== undefined || action !== undefined
      ? [
        `# phone-eye started ${
          component ?? action
        }; Maestro's launchApp starts the app's launcher activity`,
      ]
      : []),
    `- launchApp: ${yaml({ appId: app, stopApp: false })}`,
  ];
}

/** The flow for a journal's entries: header, then each step and what it brought, asserted. */
export function maestroFlow(entries: readonly Numbered[], source: string): string {
  const steps = replaySteps(entries);
  const byLine = new Map(entries.map((n) => [n.line, n.entry]));
  const { appId, first } = appIdOf(entries);
  const out = [
    `# Written by phone-eye --maestro from ${source}: ${steps.length} step${
      steps.length === 1 ? "" : "s"
    }.`,
    "# Selectors are whole regular expressions in Maestro: the texts below are escaped to match exactly.",
    ...(first !== undefined && first !== appId
      ? [`# The recording began in ${first}: start the flow there.`]
      : []),
    `appId: ${yaml(appId)}`,
    "---",
  ];
  const secrets: Secrets = { count: 0 };
  for (const step of steps) {
    const entry = byLine.get(step.line)!;
    out.push(`# journal line ${step.line}: ${describeStep(step)}`);
    out.push(...stepLines(step, entry, secrets));
    if (step.kind === "act") {
      const shown = step.appeared.slice(0, ASSERTED_MAX);
      for (const name of shown) out.push(`- assertVisible: ${yaml(exactRegex(name))}`);
      if (step.appeared.length > shown.length) {
        out.push(`# (${step.appeared.length - shown.length} more appeared; not asserted)`);
      }
    }
  }
  return `${out.join("\n")}\n`;
}
