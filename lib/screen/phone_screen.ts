// What the screen layer keeps about each phone for the server's life, with one owner: the last
// screen read (the next action's "before") and whether its uiautomator can dump to /dev/tty.

import type { Device } from "../adb/device.ts";
import type { UiElement } from "./ui_tree.ts";

/** How old the last tree may be to count as the screen before an action. */
export const BEFORE_MAX_AGE_MS = 30_000;

/** A UI tree phone-eye read, with the focused window and keyboard when that read asked for them. */
export interface ScreenReading {
  elements: UiElement[];
  /** mCurrentFocus's `package/activity`, or undefined when the read did not ask (a look's tree). */
  focus: string | undefined;
  keyboard: boolean | undefined;
  /** When it was read, on the server's clock. */
  at: number;
}

/** One phone as the screen layer sees it: the Device every read goes through, and what it learned. */
export interface PhoneScreen {
  readonly device: Device;
  /**
   * Keeps a tree just read as the phone's last seen screen, for the next action's "before". A read
   * that did not ask for the focused window or keyboard leaves them unknown.
   */
  remember(
    read: {
      elements: UiElement[];
      at: number;
      focus?: string | undefined;
      keyboard?: boolean | undefined;
    },
  ): ScreenReading;
  /**
   * The screen before an action: the last one read if it is at most BEFORE_MAX_AGE_MS old at
   * `now`, else undefined. Taken, not copied: once the action runs, it is no longer the phone's.
   */
  takeBefore(now: number): ScreenReading | undefined;
  /** Forgets the last screen: an action is about to change it. */
  forget(): void;
  /**
   * True until this phone's uiautomator has shown it cannot write to /dev/tty (it printed only its
   * "dumped to" line); from then on its dumps go to a file (ui_dump.ts).
   */
  readonly dumpsToTty: boolean;
  /** Learns, once per server, that this phone refuses /dev/tty. */
  refusedTty(): void;
}

/** The server's screens: one PhoneScreen per Device, made on first use and kept. */
export interface Screens {
  of(device: Device): PhoneScreen;
}

/**
 * One registry per server (main.ts), shared by every MCP server of the process as the phones are:
 * over HTTP each request has its own MCP server, and the screen before an action must outlive it.
 */
export function createScreens(): Screens {
  const screens = new WeakMap<Device, PhoneScreen>();
  return {
    of(device) {
      let screen = screens.get(device);
      if (screen === undefined) {
        screen = createPhoneScreen(device);
        screens.set(device, screen);
      }
      return screen;
    },
  };
}

function createPhoneScreen(device: Device): PhoneScreen {
  let last: ScreenReading | undefined;
  let dumpsToTty = true;
  return {
    device,
    remember({ elements, at, focus, keyboard }) {
      last = { elements, focus, keyboard, at };
      return last;
    },
    takeBefore(now) {
      const before = last;
      last = undefined;
      return before !== undefined && now - before.at <= BEFORE_MAX_AGE_MS ? before : undefined;
    },
    forget() {
      last = undefined;
    },
    get dumpsToTty() {
      return dumpsToTty;
    },
    refusedTty() {
      dumpsToTty = false;
    },
  };
}
