// How recorded tool calls change the simulated phone's screen state: `input` taps, swipes, text
// and key events, `wm` overrides, and the launches and stops the fake `am` and `monkey` report.

import {
  type AppName,
  APPS,
  chromeOf,
  effectiveSize,
  LAUNCHER,
  packageOf,
  type ScreenState,
  settingsGeometry,
  type Size,
} from "./screen.ts";
import { hitTest, layout } from "./screen_layout.ts";

// Android key codes the sim reacts to or can name, as KeyEvent.KEYCODE_* defines them:
// https://github.com/aosp-mirror/platform_frameworks_base/blob/401c4b1d00d6f831eb30d1853683ca525d50f192/core/java/android/view/KeyEvent.java
const KEYCODES: Readonly<Record<string, number>> = Object.freeze({
  HOME: 3,
  BACK: 4,
  DPAD_UP: 19,
  DPAD_DOWN: 20,
  DPAD_LEFT: 21,
  DPAD_RIGHT: 22,
  DPAD_CENTER: 23,
  VOLUME_UP: 24,
  VOLUME_DOWN: 25,
  POWER: 26,
  CAMERA: 27,
  TAB: 61,
  SPACE: 62,
  ENTER: 66,
  DEL: 67,
  MENU: 82,
  SEARCH: 84,
  ESCAPE: 111,
  FORWARD_DEL: 112,
  APP_SWITCH: 187,
  SLEEP: 223,
  WAKEUP: 224,
  ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [String(i), 7 + i])),
  ...Object.fromEntries(
    Array.from({ length: 26 }, (_, i) => [String.fromCharCode(65 + i), 29 + i]),
  ),
});

/** Accepts `3`, `HOME` and `KEYCODE_HOME`, like KeyEvent.keyCodeFromString. */
export function keyCodeFromString(name: string): number | undefined {
  if (/^\d+$/.test(name)) return Number(name);
  const bare = name.toUpperCase().replace(/^KEYCODE_/, "");
  return KEYCODES[bare];
}

/**
 * `input text` turns each `%s` into a space (InputShellCommand.sendText,
 * https://github.com/aosp-mirror/platform_frameworks_base/blob/017cf35b7fa9d3a164cb6e2f067ca7effae9b370/services/core/java/com/android/server/input/InputShellCommand.java).
 */
export function decodeInputText(text: string): string {
  return text.replaceAll("%s", " ");
}

/**
 * Characters the virtual keyboard's key map can type; anything else makes `input text` fail and
 * type nothing (KeyCharacterMap.getEvents returns null: docs/android.md, input).
 */
export function typeable(text: string): boolean {
  return /^[\t\n\x20-\x7e]*$/.test(text);
}

function typeInto(state: ScreenState, text: string): void {
  if (state.app === "notes") state.notesText += text;
  else if (state.app === "browser" && state.urlDraft !== null) state.urlDraft += text;
}

/**
 * Whether a text field has focus with its keyboard up: Notes' field, or the browser's URL bar
 * while it is being edited. An input method's view exists only then.
 */
export function hasTextFocus(state: ScreenState): boolean {
  return state.app === "notes" || (state.app === "browser" && state.urlDraft !== null);
}

function deleteBack(state: ScreenState): void {
  if (state.app === "notes") state.notesText = state.notesText.slice(0, -1);
  else if (state.app === "browser" && state.urlDraft !== null) {
    state.urlDraft = state.urlDraft.slice(0, -1);
  }
}

function normalizeUrl(text: string): string {
  const t = text.trim();
  if (t === "") return "";
  if (/^[a-z][a-z0-9+.-]*:/i.test(t)) return t;
  if (/^[^\s/]+\.[^\s/]+/.test(t)) return `https://${t}`;
  return `https://www.google.com/search?q=${encodeURIComponent(t)}`;
}

export function openApp(state: ScreenState, app: AppName, data?: string): void {
  state.app = app;
  state.urlDraft = null;
  if (app === "settings") {
    state.scroll = 0;
    state.settingsPage = null;
  }
  if (app === "browser" && data) state.url = data;
}

function pressKey(state: ScreenState, code: number): void {
  switch (code) {
    case 3: // HOME
      state.app = "home";
      state.urlDraft = null;
      return;
    case 4: // BACK
      if (state.app === "browser" && state.urlDraft !== null) state.urlDraft = null;
      else if (state.app === "settings" && state.settingsPage !== null) state.settingsPage = null;
      else state.app = "home";
      return;
    case 66: // ENTER
      if (state.app === "notes") state.notesText += "\n";
      else if (state.app === "browser" && state.urlDraft !== null) {
        state.url = normalizeUrl(state.urlDraft);
        state.urlDraft = null;
      }
      return;
    case 67: // DEL
      deleteBack(state);
      return;
    case 62: // SPACE
      typeInto(state, " ");
      return;
    case 61: // TAB
      typeInto(state, "\t");
      return;
    case 27: // CAMERA
      openApp(state, "camera");
      return;
  }
  if (code >= 7 && code <= 16) typeInto(state, String(code - 7));
  else if (code >= 29 && code <= 54) typeInto(state, String.fromCharCode(97 + code - 29));
}

function tap(state: ScreenState, size: Size, x: number, y: number): void {
  const { navBar } = chromeOf(size);
  if (y >= size.height - navBar && y < size.height && x >= 0 && x < size.width) {
    // The three-button navigation bar: back, home, recents.
    if (x < size.width / 3) pressKey(state, 4);
    else if (x < (2 * size.width) / 3) pressKey(state, 3);
    return;
  }
  const hit = hitTest(layout(state, size), x, y);
  if (!hit?.onTap) return;
  const action = hit.onTap;
  switch (action.kind) {
    case "open":
      openApp(state, action.app);
      return;
    case "focusUrl":
      // Tapping the URL bar selects its text, so typing replaces it.
      state.urlDraft = "";
      return;
    case "clearNotes":
      state.notesText = "";
      return;
    case "openSetting":
      state.settingsPage = action.title;
      return;
    case "saveNote":
      state.savedNote = state.notesText;
      state.saves += 1;
      return;
    case "shutter":
      state.photos += 1;
      return;
  }
}

function swipe(state: ScreenState, size: Size, x1: number, y1: number, y2: number): void {
  if (state.app !== "settings" || state.settingsPage !== null) return;
  const g = settingsGeometry(size);
  if (y1 < g.top || y1 >= g.bottom || x1 < 0 || x1 >= size.width) return;
  state.scroll = Math.min(g.maxScroll, Math.max(0, state.scroll + (y1 - y2)));
}

const INPUT_SOURCES = new Set([
  "keyboard",
  "mouse",
  "joystick",
  "touchnavigation",
  "touchpad",
  "trackball",
  "dpad",
  "stylus",
  "gamepad",
  "touchscreen",
  "rotaryencoder",
]);

function int(s: string | undefined): number | undefined {
  if (s === undefined || !/^-?\d+(\.\d+)?$/.test(s)) return undefined;
  return Math.round(Number(s));
}

/** Applies one `input ...` argv (without the tool name). Malformed calls change nothing. */
function applyInput(state: ScreenState, size: Size, argv: readonly string[]): void {
  let args = [...argv];
  if (args[0] && INPUT_SOURCES.has(args[0])) args = args.slice(1);
  if (args[0] === "-d") args = args.slice(2);
  const [verb, ...rest] = args;
  switch (verb) {
    case "tap": {
      const x = int(rest[0]);
      const y = int(rest[1]);
      if (x !== undefined && y !== undefined) tap(state, size, x, y);
      return;
    }
    case "swipe": {
      const [x1, y1, x2, y2] = rest.slice(0, 4).map(int);
      if (x1 === undefined || y1 === undefined || x2 === undefined || y2 === undefined) return;
      // Same start and end point is how `input` spells a long press (docs/android.md, input): no movement,
      // no scroll.
      if (x1 === x2 && y1 === y2) return;
      swipe(state, size, x1, y1, y2);
      return;
    }
    case "text": {
      const text = decodeInputText(rest[0] ?? "");
      if (typeable(text)) typeInto(state, text);
      return;
    }
    case "keyevent": {
      for (const a of rest) {
        if (a.startsWith("--")) continue;
        const code = keyCodeFromString(a);
        if (code !== undefined) pressKey(state, code);
      }
      return;
    }
  }
}

function applyWm(state: ScreenState, argv: readonly string[]): void {
  const [verb, value] = argv;
  if (verb === "size" && value !== undefined) {
    if (value === "reset") state.overrideSize = null;
    const m = /^(\d+)x(\d+)$/.exec(value);
    if (m) state.overrideSize = { width: Number(m[1]), height: Number(m[2]) };
  }
  if (verb === "density" && value !== undefined) {
    if (value === "reset") state.overrideDensity = null;
    else if (/^\d+$/.test(value)) state.overrideDensity = Number(value);
  }
}

/**
 * Applies one recorded tool call. `@launch` and `@stop` are events the fake `am`/`monkey`
 * emit after resolving an intent themselves (they must print the outcome synchronously); `@type`
 * is text the fake `am broadcast` delivered to ADB Keyboard.
 */
export function applyToolCall(
  state: ScreenState,
  physical: Size,
  tool: string,
  argv: readonly string[],
): void {
  const size = effectiveSize(state, physical);
  switch (tool) {
    case "input":
      applyInput(state, size, argv);
      return;
    case "wm":
      applyWm(state, argv);
      return;
    case "@launch": {
      const app = APPS.find((a) => a.pkg === argv[0])?.app ??
        (argv[0] === LAUNCHER.pkg ? "home" : undefined);
      if (app) openApp(state, app, argv[1]);
      return;
    }
    case "@type":
      // Text an input method committed (ADB Keyboard's broadcast): any character at all.
      typeInto(state, argv[0] ?? "");
      return;
    case "@stop":
      if (packageOf(state.app) === argv[0] && state.app !== "home") state.app = "home";
      return;
  }
}
