// What the screen layer keeps about each phone for the server's life, with one owner: the last
// screen read (the next action's "before"), the actions begun on it, and how its uiautomator dumps.

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
  /**
   * How many actions had begun on this phone (PhoneScreen.beginAction) when the read was sent and
   * when it came back: the tree shows at least the first `sent` of them and at most `read`.
   */
  actions: { sent: number; read: number };
}

/** An action about to be sent: the screen before it and its place among the phone's actions. */
export interface ActionTurn {
  /** The last screen read, if recent; undefined when none is. */
  before: ScreenReading | undefined;
  /** This action's number: the phone's first action is 1. */
  number: number;
}

/** One phone as the screen layer sees it: the Device every read goes through, and what it learned. */
export interface PhoneScreen {
  readonly device: Device;
  /** Actions begun on this phone so far, by every call and client of the server. */
  readonly actions: number;
  /**
   * Keeps a tree just read as the phone's last seen screen, for the next action's "before". A read
   * that did not ask for the focused window or keyboard leaves them unknown. `actionsSent` is
   * `actions` when the read was sent; a reader that does not say counts as sent now.
   */
  remember(
    read: {
      elements: UiElement[];
      at: number;
      focus?: string | undefined;
      keyboard?: boolean | undefined;
      actionsSent?: number;
    },
  ): ScreenReading;
  /**
   * An action is being sent to the phone now (call it right before the command, once nothing can
   * refuse it any more): counts it, and takes the last screen read as its "before" if it is at
   * most BEFORE_MAX_AGE_MS old at `now`. Taken, not copied: once the action runs, that screen is
   * no longer the phone's. A call refused before this point leaves the last screen in place.
   */
  beginAction(now: number): ActionTurn;
  /**
   * The action begun with `turn` sent nothing after all (phone_type found no ADB Keyboard): its
   * "before" is the phone's last screen again, when nothing else began or was read since.
   */
  sentNothing(turn: ActionTurn): void;
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
  let actions = 0;
  let dumpsToTty = true;
  return {
    device,
    get actions() {
      return actions;
    },
    remember({ elements, at, focus, keyboard, actionsSent = actions }) {
      last = { elements, focus, keyboard, at, actions: { sent: actionsSent, read: actions } };
      return last;
    },
    beginAction(now) {
      const before = last;
      last = undefined;
      actions += 1;
      return {
        before: before !== undefined && now - before.at <= BEFORE_MAX_AGE_MS ? before : undefined,
        number: actions,
      };
    },
    sentNothing({ before, number }) {
      // Only the untouched case: then that screen is still what the phone shows, as if read now.
      if (before === undefined || last !== undefined || number !== actions) return;
      if (before.actions.sent !== number - 1) return;
      last = { ...before, actions: { sent: actions, read: actions } };
    },
    get dumpsToTty() {
      return dumpsToTty;
    },
    refusedTty() {
      dumpsToTty = false;
    },
  };
}
