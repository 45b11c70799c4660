// The simulated phone's screen model: its apps, its navigation state, and the view node the
// screens are built of. Pure. screen_layout.ts builds each app's screen; screen_input.ts applies
// recorded tool calls (taps, swipes, text, keys, launches) to the state.
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
  /**
   * Labels an app update renamed: a node whose text is a key shows the value instead, and a
   * resource-id named after the old text (…:id/save for "Save") is renamed with it.
   */
  renamed: Readonly<Record<string, string>>;
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
    renamed: {},
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

export type NodeSpec = Partial<UiNode> & { cls: string; bounds: Bounds };

/** A view of `pkg` with every flag at its default but those `spec` sets. */
/** The spec with the state's renamed labels applied (ScreenState.renamed). */
export function renamedSpec(renamed: ScreenState["renamed"], spec: NodeSpec): NodeSpec {
  const text = spec.text === undefined ? undefined : renamed[spec.text];
  if (text === undefined || spec.text === undefined) return spec;
  const old = `/${spec.text.toLowerCase()}`;
  const id = spec.id?.endsWith(old)
    ? `${spec.id.slice(0, -old.length)}/${text.toLowerCase().replace(/\W+/g, "_")}`
    : spec.id;
  return { ...spec, text, ...(id === undefined ? {} : { id }) };
}

export function node(pkg: string, spec: NodeSpec): UiNode {
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
export interface SettingsGeometry {
  /** The list's viewport, top and bottom. */
  top: number;
  bottom: number;
  /** One item's height. */
  row: number;
  /** How far the list scrolls before its last item reaches the viewport's bottom. */
  maxScroll: number;
}

export function settingsGeometry(size: Size): SettingsGeometry {
  const s = size.width / 1080;
  const { statusBar, navBar } = chromeOf(size);
  const top = statusBar + Math.round(260 * s);
  const bottom = size.height - navBar;
  const row = Math.round(220 * s);
  const maxScroll = Math.max(0, SETTINGS_ITEMS.length * row - (bottom - top));
  return { top, bottom, row, maxScroll };
}
