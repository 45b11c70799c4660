// The simulated phone's screen model: its apps, navigation state, the view tree of the current
// screen, and how recorded tool calls (taps, swipes, text, keys, launches) change it. Pure.
//
// Apps: the launcher (an icon per app, tap opens it); Notes (a focused text field, Clear, Save:
// Save records the note and counts a save, on which the sim's motion shows a "Saved" snackbar);
// Settings (a scrolling list; tapping an item's row opens its page, back returns); Browser (URL
// bar); Camera (shutter); Gallery (one photo filling the screen, drawn as a noisy photograph).
// The bottom bar's left third is back, its middle home.

export type AppName = "home" | "notes" | "settings" | "browser" | "camera" | "gallery";

export interface AppInfo {
  app: Exclude<AppName, "home">;
  label: string;
  pkg: string;
  /** Fully qualified launcher activity class. */
  activity: string;
  /** Icon colour on the home screen, 0xRRGGBB. */
  color: number;
}

export const APPS: readonly AppInfo[] = [
  {
    app: "notes",
    label: "Notes",
    pkg: "com.android.notes",
    activity: "com.android.notes.NotesActivity",
    color: 0xf4b400,
  },
  {
    app: "settings",
    label: "Settings",
    pkg: "com.android.settings",
    activity: "com.android.settings.Settings",
    color: 0x607d8b,
  },
  {
    app: "browser",
    label: "Browser",
    pkg: "com.android.browser",
    activity: "com.android.browser.BrowserActivity",
    color: 0x1a73e8,
  },
  {
    app: "camera",
    label: "Camera",
    pkg: "com.android.camera2",
    activity: "com.android.camera.CameraLauncher",
    color: 0x34a853,
  },
  {
    app: "gallery",
    label: "Gallery",
    pkg: "com.android.gallery3d",
    activity: "com.android.gallery3d.app.GalleryActivity",
    color: 0x9c27b0,
  },
];

/** What the Notes app's Save button confirms with, a few hundred ms after the tap on a phone. */
export const SAVED_MESSAGE = "Saved";

export const LAUNCHER = {
  pkg: "com.android.launcher3",
  activity: "com.android.launcher3.uioverride.QuickstepLauncher",
} as const;

/**
 * Installed packages with no launcher activity (services, providers, the launcher itself, whose
 * activity is HOME, not LAUNCHER): `pm list packages` shows them, monkey finds nothing to run.
 */
export const SYSTEM_PACKAGES: readonly string[] = [
  LAUNCHER.pkg,
  "com.android.systemui",
  "com.android.phone",
  "com.android.providers.settings",
  "com.android.providers.media.module",
  "com.android.inputmethod.latin",
  "com.google.android.gms",
];

export const SETTINGS_ITEMS: readonly (readonly [string, string])[] = [
  ["Network & internet", "Mobile, Wi-Fi, hotspot"],
  ["Connected devices", "Bluetooth, pairing"],
  ["Apps", "Recent apps, default apps"],
  ["Notifications", "Notification history, conversations"],
  ["Battery", "100%"],
  ["Storage", "34% used - 84 GB free"],
  ["Sound & vibration", "Volume, haptics, Do Not Disturb"],
  ["Display", "Dark theme, font size, brightness"],
  ["Wallpaper & style", "Colors, themed icons, app grid"],
  ["Accessibility", "Display, interaction, audio"],
  ["Security & privacy", "App security, device lock, permissions"],
  ["Location", "On - 3 apps have access to location"],
  ["Safety & emergency", "Emergency SOS, medical info, alerts"],
  ["Passwords & accounts", "Saved passwords, autofill, synced accounts"],
  ["Digital Wellbeing", "Screen time, app timers, bedtime schedules"],
  ["Google", "Services & preferences"],
  ["System", "Languages, gestures, time, backup"],
  ["About phone", "SimPhone"],
  ["Tips & support", "Help articles, phone & chat"],
  ["Developer options", "USB debugging, wireless debugging"],
];

export interface Size {
  width: number;
  height: number;
}

export interface ScreenState {
  app: AppName;
  notesText: string;
  url: string;
  /** Text being typed into the browser's URL bar; null when the bar is not being edited. */
  urlDraft: string | null;
  scroll: number;
  photos: number;
  /** `wm size WxH`: the logical screen the phone renders and takes input in. */
  overrideSize: Size | null;
  overrideDensity: number | null;
  /**
   * The foreground window is marked FLAG_SECURE (a banking, password or payment screen):
   * screenshots refuse it or paint it black, depending on the Android version. The UI tree, which
   * comes through accessibility, still shows it.
   */
  secureWindow: boolean;
  /** The Settings item whose page is open (a tap on its row), null on the list. */
  settingsPage: string | null;
  /** What Notes last saved (its Save button); null before the first save. */
  savedNote: string | null;
  /** How many times Notes' Save was tapped: the sim starts its "Saved" snackbar on each. */
  saves: number;
  /**
   * The snackbar Notes shows at the bottom of its window ("Saved"), null when none. The sim's
   * motion (sim/motion.ts) sets and clears it on its own clock after a save.
   */
  snackbar: string | null;
}

export function initialState(): ScreenState {
  return {
    app: "home",
    notesText: "",
    url: "",
    urlDraft: null,
    scroll: 0,
    photos: 0,
    overrideSize: null,
    overrideDensity: null,
    secureWindow: false,
    settingsPage: null,
    savedNote: null,
    saves: 0,
    snackbar: null,
  };
}

export type TapAction =
  | { kind: "open"; app: AppName }
  | { kind: "focusUrl" }
  | { kind: "clearNotes" }
  | { kind: "saveNote" }
  | { kind: "openSetting"; title: string }
  | { kind: "shutter" };

export type Bounds = [number, number, number, number];

export interface UiNode {
  cls: string;
  pkg: string;
  text: string;
  id: string;
  desc: string;
  bounds: Bounds;
  clickable: boolean;
  focusable: boolean;
  focused: boolean;
  scrollable: boolean;
  longClickable: boolean;
  checkable: boolean;
  checked: boolean;
  selected: boolean;
  password: boolean;
  enabled: boolean;
  children: UiNode[];
  // The rest is sim-only and never reaches the XML.
  /** What a tap inside this node does. */
  onTap?: TapAction;
  /** Background fill, 0xRRGGBB. */
  fill?: number;
  /** Colour of the bars that stand in for text, 0xRRGGBB. */
  ink?: number;
  /** Layout-only containers are dropped from `uiautomator dump --compressed`. */
  layoutOnly?: boolean;
  /** Drawn as a photo (smooth colour plus sensor noise, seeded by this number). */
  photo?: number;
}

type NodeSpec = Partial<UiNode> & { cls: string; bounds: Bounds };

function node(pkg: string, spec: NodeSpec): UiNode {
  return {
    pkg,
    text: "",
    id: "",
    desc: "",
    clickable: false,
    focusable: false,
    focused: false,
    scrollable: false,
    longClickable: false,
    checkable: false,
    checked: false,
    selected: false,
    password: false,
    enabled: true,
    children: [],
    ...spec,
  };
}

export interface Chrome {
  statusBar: number;
  navBar: number;
}

/** Status and navigation bar heights; they are drawn but belong to System UI, not the dump. */
export function chromeOf(size: Size): Chrome {
  return { statusBar: Math.round(size.height * 0.03), navBar: Math.round(size.height * 0.05) };
}

export function effectiveSize(state: ScreenState, physical: Size): Size {
  return state.overrideSize ?? physical;
}

export function appInfo(app: AppName): AppInfo | undefined {
  return APPS.find((a) => a.app === app);
}

export function packageOf(app: AppName): string {
  return appInfo(app)?.pkg ?? LAUNCHER.pkg;
}

export function activityOf(app: AppName): string {
  return appInfo(app)?.activity ?? LAUNCHER.activity;
}

/** Row height and list viewport of the Settings list, shared by layout and scrolling. */
function settingsGeometry(size: Size) {
  const s = size.width / 1080;
  const { statusBar, navBar } = chromeOf(size);
  const top = statusBar + Math.round(260 * s);
  const bottom = size.height - navBar;
  const row = Math.round(220 * s);
  const maxScroll = Math.max(0, SETTINGS_ITEMS.length * row - (bottom - top));
  return { top, bottom, row, maxScroll };
}

/** The view tree of the current screen, with bounds in the current logical screen size. */
export function layout(state: ScreenState, size: Size): UiNode {
  const { width: w, height: h } = size;
  const s = w / 1080;
  const { statusBar, navBar } = chromeOf(size);
  const px = (n: number) => Math.round(n * s);
  const pkg = packageOf(state.app);
  const mk = (spec: NodeSpec) => node(pkg, spec);
  const root = mk({ cls: "android.widget.FrameLayout", bounds: [0, 0, w, h], layoutOnly: true });
  const content = mk({
    cls: "android.widget.LinearLayout",
    id: "android:id/content",
    bounds: [0, statusBar, w, h - navBar],
    layoutOnly: true,
  });
  root.children.push(content);

  switch (state.app) {
    case "home": {
      content.fill = 0x203a43;
      const workspace = mk({
        cls: "android.view.ViewGroup",
        id: "com.android.launcher3:id/workspace",
        bounds: [0, statusBar, w, h - navBar],
        scrollable: true,
        layoutOnly: true,
      });
      content.children.push(workspace);
      const cellW = Math.floor(w / 4);
      const cellH = px(330);
      const top = statusBar + px(240);
      APPS.forEach((a, i) => {
        const x = (i % 4) * cellW;
        const y = top + Math.floor(i / 4) * cellH;
        workspace.children.push(mk({
          cls: "android.widget.TextView",
          text: a.label,
          desc: a.label,
          bounds: [x, y, x + cellW, y + cellH],
          clickable: true,
          focusable: true,
          longClickable: true,
          onTap: { kind: "open", app: a.app },
          ink: 0xffffff,
        }));
      });
      break;
    }
    case "notes": {
      content.fill = 0xfffbea;
      const barBottom = statusBar + px(170);
      content.children.push(
        mk({
          cls: "android.widget.TextView",
          id: "com.android.notes:id/title",
          text: "Notes",
          bounds: [0, statusBar, w, barBottom],
          fill: 0xf4b400,
          ink: 0x202124,
        }),
        mk({
          cls: "android.widget.EditText",
          id: "com.android.notes:id/note_text",
          text: state.notesText,
          bounds: [
            px(40),
            barBottom + px(40),
            w - px(40),
            barBottom + px(40) + Math.round(h * 0.4),
          ],
          clickable: true,
          focusable: true,
          focused: true,
          longClickable: true,
          fill: 0xffffff,
          ink: 0x202124,
        }),
        mk({
          cls: "android.widget.Button",
          id: "com.android.notes:id/clear",
          text: "Clear",
          bounds: [
            w - px(340),
            barBottom + px(80) + Math.round(h * 0.4),
            w - px(40),
            barBottom + px(230) + Math.round(h * 0.4),
          ],
          clickable: true,
          focusable: true,
          onTap: { kind: "clearNotes" },
          fill: 0xe37400,
          ink: 0xffffff,
        }),
        mk({
          cls: "android.widget.Button",
          id: "com.android.notes:id/save",
          text: "Save",
          bounds: [
            w - px(680),
            barBottom + px(80) + Math.round(h * 0.4),
            w - px(380),
            barBottom + px(230) + Math.round(h * 0.4),
          ],
          clickable: true,
          focusable: true,
          onTap: { kind: "saveNote" },
          fill: 0x188038,
          ink: 0xffffff,
        }),
      );
      if (state.snackbar !== null) {
        // A Snackbar lives in the app's own window, so `uiautomator dump` (the active window's
        // root only) shows it; a Toast is a window of its own that the dump leaves out.
        const bottom = h - navBar - px(40);
        const bar = mk({
          cls: "android.widget.LinearLayout",
          id: "com.android.notes:id/snackbar",
          bounds: [px(40), bottom - px(150), w - px(40), bottom],
          fill: 0x323232,
        });
        bar.children.push(mk({
          cls: "android.widget.TextView",
          id: "com.android.notes:id/snackbar_text",
          text: state.snackbar,
          bounds: [px(80), bottom - px(120), w - px(80), bottom - px(30)],
          ink: 0xffffff,
        }));
        content.children.push(bar);
      }
      break;
    }
    case "gallery": {
      content.fill = 0x000000;
      const barBottom = statusBar + px(170);
      content.children.push(
        mk({
          cls: "android.widget.TextView",
          id: "com.android.gallery3d:id/title",
          text: "Gallery",
          bounds: [0, statusBar, w, barBottom],
          fill: 0x212121,
          ink: 0xffffff,
        }),
        mk({
          cls: "android.widget.ImageView",
          id: "com.android.gallery3d:id/photo",
          desc: "Photo: harbour at dusk",
          bounds: [0, barBottom, w, h - navBar],
          clickable: true,
          focusable: true,
          longClickable: true,
          photo: 20260812,
        }),
      );
      break;
    }
    case "settings": {
      content.fill = 0xf8f9fa;
      if (state.settingsPage !== null) {
        // An item's page: its title and summary; back returns to the list.
        const item = SETTINGS_ITEMS.find(([t]) => t === state.settingsPage);
        content.children.push(
          mk({
            cls: "android.widget.TextView",
            id: "com.android.settings:id/collapsing_toolbar_title",
            text: state.settingsPage,
            bounds: [px(60), statusBar + px(60), w - px(60), statusBar + px(200)],
            ink: 0x202124,
          }),
          mk({
            cls: "android.widget.TextView",
            id: "android:id/summary",
            text: item?.[1] ?? "",
            bounds: [px(60), statusBar + px(260), w - px(60), statusBar + px(320)],
            ink: 0x5f6368,
          }),
        );
        break;
      }
      const g = settingsGeometry(size);
      content.children.push(mk({
        cls: "android.widget.TextView",
        id: "com.android.settings:id/homepage_title",
        text: "Settings",
        bounds: [px(60), statusBar + px(60), w - px(60), statusBar + px(200)],
        ink: 0x202124,
      }));
      const list = mk({
        cls: "androidx.recyclerview.widget.RecyclerView",
        id: "com.android.settings:id/recycler_view",
        bounds: [0, g.top, w, g.bottom],
        scrollable: true,
        focusable: true,
      });
      content.children.push(list);
      SETTINGS_ITEMS.forEach(([title, summary], i) => {
        const y1 = g.top + i * g.row - state.scroll;
        const y2 = y1 + g.row;
        if (y2 <= g.top || y1 >= g.bottom) return;
        const clip = (y: number) => Math.min(g.bottom, Math.max(g.top, y));
        const row = mk({
          cls: "android.widget.LinearLayout",
          bounds: [0, clip(y1), w, clip(y2)],
          clickable: true,
          focusable: true,
          onTap: { kind: "openSetting", title },
          fill: i % 2 === 0 ? 0xffffff : 0xf1f3f4,
        });
        const titleTop = y1 + px(50);
        if (titleTop + px(60) > g.top && titleTop < g.bottom) {
          row.children.push(mk({
            cls: "android.widget.TextView",
            id: "android:id/title",
            text: title,
            bounds: [px(60), clip(titleTop), w - px(60), clip(titleTop + px(60))],
            ink: 0x202124,
          }));
        }
        const sumTop = y1 + px(120);
        if (sumTop + px(45) > g.top && sumTop < g.bottom) {
          row.children.push(mk({
            cls: "android.widget.TextView",
            id: "android:id/summary",
            text: summary,
            bounds: [px(60), clip(sumTop), w - px(60), clip(sumTop + px(45))],
            ink: 0x5f6368,
          }));
        }
        list.children.push(row);
      });
      break;
    }
    case "browser": {
      content.fill = 0xffffff;
      const barBottom = statusBar + px(180);
      const editing = state.urlDraft !== null;
      content.children.push(
        mk({
          cls: "android.widget.EditText",
          id: "com.android.browser:id/url_bar",
          text: state.urlDraft ?? (state.url || "Search or type web address"),
          bounds: [px(30), statusBar + px(30), w - px(30), barBottom - px(30)],
          clickable: true,
          focusable: true,
          focused: editing,
          longClickable: true,
          onTap: { kind: "focusUrl" },
          fill: 0xf1f3f4,
          ink: 0x202124,
        }),
      );
      const page = mk({
        cls: "android.webkit.WebView",
        id: "com.android.browser:id/webview",
        desc: state.url ? pageTitle(state.url) : "New tab",
        bounds: [0, barBottom, w, h - navBar],
        focusable: true,
        scrollable: true,
        fill: 0xffffff,
      });
      page.children.push(mk({
        cls: "android.widget.TextView",
        text: state.url ? pageTitle(state.url) : "New tab",
        bounds: [px(60), barBottom + px(100), w - px(60), barBottom + px(200)],
        ink: 0x1a0dab,
      }));
      content.children.push(page);
      break;
    }
    case "camera": {
      content.fill = 0x000000;
      const shutter = px(220);
      content.children.push(
        mk({
          cls: "android.view.View",
          id: "com.android.camera2:id/preview_content",
          desc: "Camera preview",
          bounds: [0, statusBar, w, h - navBar - px(400)],
          fill: 0x263238,
        }),
        mk({
          cls: "android.widget.TextView",
          id: "com.android.camera2:id/photo_count",
          text: `${state.photos} photos`,
          bounds: [px(60), h - navBar - px(360), px(460), h - navBar - px(300)],
          ink: 0xffffff,
        }),
        mk({
          cls: "android.widget.ImageButton",
          id: "com.android.camera2:id/shutter_button",
          desc: "Shutter",
          bounds: [
            Math.round((w - shutter) / 2),
            h - navBar - px(320),
            Math.round((w + shutter) / 2),
            h - navBar - px(320) + shutter,
          ],
          clickable: true,
          focusable: true,
          onTap: { kind: "shutter" },
          fill: 0xffffff,
        }),
      );
      break;
    }
  }
  return root;
}

export function pageTitle(url: string): string {
  try {
    return `Page at ${new URL(url).host}`;
  } catch {
    return url;
  }
}

function inside(b: Bounds, x: number, y: number): boolean {
  return x >= b[0] && x < b[2] && y >= b[1] && y < b[3];
}

/** The deepest node under (x, y) that reacts to a tap, as the view system dispatches it. */
export function hitTest(root: UiNode, x: number, y: number): UiNode | undefined {
  if (!inside(root.bounds, x, y)) return undefined;
  for (let i = root.children.length - 1; i >= 0; i--) {
    const child = root.children[i];
    const hit = child && hitTest(child, x, y);
    if (hit) return hit;
  }
  return root.onTap ? root : undefined;
}

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
