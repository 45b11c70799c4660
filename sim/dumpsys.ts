// What the simulated phone's `dumpsys window|activity|display|input|power|input_method` print,
// from the screen as it is displayed (the foreground app, the one still drawing, the keyboard). Pure.
//
// The lines follow what Android 10-14 print, the ones tools grep for:
//   dumpsys window | grep -E 'mCurrentFocus|mFocusedApp'
//     `  mCurrentFocus=Window{5f0e1d2 u0 com.android.settings/com.android.settings.Settings}`
//     `  mFocusedApp=ActivityRecord{3c2b1a0 u0 com.android.settings/.Settings t12}`
//   dumpsys input_method | grep mInputShown
//     `  mShowRequested=true mShowExplicitlyRequested=false mShowForced=false mInputShown=true`
// mFocusedApp moves to the new activity as soon as it is started; mCurrentFocus stays on the old
// window until the new one has drawn (WindowManagerService gives focus only to a window that can
// receive keys, i.e. is drawn), so during an app switch the two disagree. The mInputShown line is
// InputMethodManagerService.dump's of Android 10-12; Android 14 prints mInputShown on a line of
// its own (unverified): match the `mInputShown=` token, not the whole line.

import { activityOf, packageOf, type ScreenState, type Size } from "./screen.ts";

export interface DisplayedScreen {
  /** Where the phone is going: the started activity (mFocusedApp, mResumedActivity). */
  state: ScreenState;
  /** The window that has focus: the new app's once drawn, the old one's while it still draws. */
  focus: ScreenState;
  /** The soft keyboard is up (a text field has focus and no app switch is drawing). */
  keyboardShown: boolean;
  size: Size;
  physical: Size;
}

/** A stable identityHashCode-like hex id per name, so each app's window has its own. */
export function objectId(name: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return ((h >>> 0) % 0xfffffff).toString(16).padStart(7, "0");
}

export function windowOf(s: ScreenState): string {
  const pkg = packageOf(s.app);
  return `Window{${objectId(`window ${pkg}`)} u0 ${pkg}/${activityOf(s.app)}}`;
}

export function activityRecordOf(s: ScreenState): string {
  const pkg = packageOf(s.app);
  const cls = activityOf(s.app);
  const short = cls.startsWith(`${pkg}.`) ? `.${cls.slice(pkg.length + 1)}` : cls;
  return `ActivityRecord{${objectId(`activity ${pkg}`)} u0 ${pkg}/${short} t12}`;
}

export const IME_WINDOW = `Window{${objectId("window InputMethod")} u0 InputMethod}`;

/** Service -> text, for the fake dumpsys (tools/dumpsys.sh reads it as `$sim_dumpsys_<service>`). */
export function dumpsysTexts(d: DisplayedScreen): Record<string, string> {
  const pkg = packageOf(d.focus.app);
  const win = windowOf(d.focus);
  const record = activityRecordOf(d.state);
  const { width: w, height: h } = d.size;
  return {
    window: [
      "WINDOW MANAGER WINDOWS (dumpsys window windows)",
      `  Window #1 ${IME_WINDOW}:`,
      `    mDisplayId=0 rootTaskId=1 mSession=Session{2d4e6f 1234:u0a10099} mClient=android.os.BinderProxy@6a5b4c`,
      `    mOwnerUid=10099 showForAllUsers=false package=com.google.android.inputmethod.latin appop=NONE`,
      `    mViewVisibility=${d.keyboardShown ? "0x0" : "0x8"} mHaveFrame=true mObscured=false`,
      `  Window #0 ${win}:`,
      `    mDisplayId=0 rootTaskId=12 mSession=Session{9a8b7c 4321:u0a10123} mClient=android.os.BinderProxy@1f2e3d`,
      `    mOwnerUid=10123 showForAllUsers=false package=${pkg} appop=NONE`,
      `    mFrame=[0,0][${w},${h}] last=[0,0][${w},${h}]`,
      "",
      `  mGlobalConfiguration={1.0 ?mcc?mnc [en_US] ldltr sw411dp w411dp h914dp 420dpi nrml long port finger -keyb/v/h -nav/h}`,
      "  mTopFocusedDisplayId=0",
      `  mCurrentFocus=${win}`,
      `  mFocusedApp=${record}`,
      "",
      "WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)",
      `  Display: mDisplayId=0 rootTasks=1`,
      `    init=${d.physical.width}x${d.physical.height} 420dpi cur=${w}x${h} app=${w}x${
        h - Math.round(h * 0.08)
      } rng=${w}x${w}-${h}x${h}`,
      "",
    ].join("\n"),
    activity: [
      "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)",
      "Display #0 (activities from top to bottom):",
      `  * Task{5e6f7a #12 type=standard A=10123:${
        packageOf(d.state.app)
      } U=0 visible=true mode=fullscreen translucent=false sz=1}`,
      `    * Hist  #0: ${record}`,
      "",
      `  mResumedActivity: ${record}`,
      `  topResumedActivity=${record}`,
      "",
    ].join("\n"),
    display: [
      "DISPLAY MANAGER (dumpsys display)",
      `  mDefaultViewport=DisplayViewport{type=INTERNAL, valid=true, isActive=true, displayId=0, orientation=0, logicalFrame=Rect(0, 0 - ${w}, ${h}), deviceWidth=${w}, deviceHeight=${h}}`,
      `  mBaseDisplayInfo=DisplayInfo{"Built-in Screen", displayId 0, real ${d.physical.width} x ${d.physical.height}, density 420}`,
      "",
    ].join("\n"),
    input: "INPUT MANAGER (dumpsys input)\n  SurfaceOrientation: 0\n  SurfaceRotation: 0\n",
    power: "POWER MANAGER (dumpsys power)\n  mWakefulness=Awake\nDisplay Power: state=ON\n",
    // The rest of `dumpsys input_method`; tools/dumpsys.sh prints the selected method before it.
    input_method: [
      `  mCurFocusedWindow=${win} softInputMode=STATE_UNSPECIFIED|ADJUST_RESIZE`,
      `  mShowRequested=${d.keyboardShown} mShowExplicitlyRequested=false mShowForced=false mInputShown=${d.keyboardShown}`,
      "  mSystemReady=true mInteractive=true",
      "",
    ].join("\n"),
  };
}
