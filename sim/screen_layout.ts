// The view tree of the simulated phone's current screen: one builder per app, with bounds in the
// logical screen size, and the hit test that finds what a tap lands on.

import {
  type AppName,
  APPS,
  type Bounds,
  chromeOf,
  node,
  type NodeSpec,
  packageOf,
  renamedSpec,
  type ScreenState,
  SETTINGS_ITEMS,
  settingsGeometry,
  type Size,
  type UiNode,
} from "./screen.ts";

/** What every app's builder works with: the state, the screen and its bars, and the view to fill. */
interface ScreenKit {
  state: ScreenState;
  size: Size;
  w: number;
  h: number;
  statusBar: number;
  navBar: number;
  /** A length given for a 1080 px wide screen, scaled to this one. */
  px: (n: number) => number;
  /** A view of the current app's package. */
  mk: (spec: NodeSpec) => UiNode;
  /** The app's content view, between the status and navigation bars. */
  content: UiNode;
}

const APP_SCREENS: Readonly<Record<AppName, (kit: ScreenKit) => void>> = {
  home: homeScreen,
  notes: notesScreen,
  gallery: galleryScreen,
  settings: settingsScreen,
  browser: browserScreen,
  camera: cameraScreen,
};

/** The view tree of the current screen, with bounds in the current logical screen size. */
export function layout(state: ScreenState, size: Size): UiNode {
  const { width: w, height: h } = size;
  const s = w / 1080;
  const { statusBar, navBar } = chromeOf(size);
  const px = (n: number) => Math.round(n * s);
  const pkg = packageOf(state.app);
  const mk = (spec: NodeSpec) => node(pkg, renamedSpec(state.renamed, spec));
  const root = mk({ cls: "android.widget.FrameLayout", bounds: [0, 0, w, h], layoutOnly: true });
  const content = mk({
    cls: "android.widget.LinearLayout",
    id: "android:id/content",
    bounds: [0, statusBar, w, h - navBar],
    layoutOnly: true,
  });
  root.children.push(content);
  APP_SCREENS[state.app]({ state, size, w, h, statusBar, navBar, px, mk, content });
  return root;
}

/** The launcher: a grid of app icons, four to a row; a tap opens the app. */
function homeScreen({ w, h, statusBar, navBar, px, mk, content }: ScreenKit): void {
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
}

/** Notes: a title bar, the focused text field, Clear and Save, and the snackbar when one shows. */
function notesScreen(kit: ScreenKit): void {
  const { state, w, h, statusBar, px, mk, content } = kit;
  content.fill = 0xfffbea;
  const barBottom = statusBar + px(170);
  const fieldBottom = barBottom + px(40) + Math.round(h * 0.4);
  const buttonTop = barBottom + px(80) + Math.round(h * 0.4);
  const buttonBottom = barBottom + px(230) + Math.round(h * 0.4);
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
      bounds: [px(40), barBottom + px(40), w - px(40), fieldBottom],
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
      bounds: [w - px(340), buttonTop, w - px(40), buttonBottom],
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
      bounds: [w - px(680), buttonTop, w - px(380), buttonBottom],
      clickable: true,
      focusable: true,
      onTap: { kind: "saveNote" },
      fill: 0x188038,
      ink: 0xffffff,
    }),
  );
  if (state.snackbar !== null) content.children.push(snackbar(kit, state.snackbar));
}

/**
 * A Snackbar lives in the app's own window, so `uiautomator dump` (the active window's root only)
 * shows it; a Toast is a window of its own that the dump leaves out.
 */
function snackbar({ w, h, navBar, px, mk }: ScreenKit, text: string): UiNode {
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
    text,
    bounds: [px(80), bottom - px(120), w - px(80), bottom - px(30)],
    ink: 0xffffff,
  }));
  return bar;
}

/** Gallery: a title bar over one photo filling the rest of the screen. */
function galleryScreen({ w, h, statusBar, navBar, px, mk, content }: ScreenKit): void {
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
}

/** Settings: the open item's page, or the scrolling list of items. */
function settingsScreen(kit: ScreenKit): void {
  kit.content.fill = 0xf8f9fa;
  if (kit.state.settingsPage !== null) settingsPage(kit, kit.state.settingsPage);
  else settingsList(kit);
}

/** An item's page: its title and summary; back returns to the list. */
function settingsPage({ w, statusBar, px, mk, content }: ScreenKit, title: string): void {
  const item = SETTINGS_ITEMS.find(([t]) => t === title);
  content.children.push(
    mk({
      cls: "android.widget.TextView",
      id: "com.android.settings:id/collapsing_toolbar_title",
      text: title,
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
}

/** The list of items, scrolled by state.scroll: only rows within the viewport, clipped to it. */
function settingsList(kit: ScreenKit): void {
  const { state, size, w, statusBar, px, mk, content } = kit;
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
  const clip = (y: number) => Math.min(g.bottom, Math.max(g.top, y));
  SETTINGS_ITEMS.forEach(([title, summary], i) => {
    const y1 = g.top + i * g.row - state.scroll;
    const y2 = y1 + g.row;
    if (y2 <= g.top || y1 >= g.bottom) return;
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
}

/** Browser: the URL bar (focused while edited) over the page, which names its host. */
function browserScreen({ state, w, h, statusBar, navBar, px, mk, content }: ScreenKit): void {
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
}

/** Camera: the preview, the count of photos taken, and the shutter. */
function cameraScreen({ state, w, h, statusBar, navBar, px, mk, content }: ScreenKit): void {
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
