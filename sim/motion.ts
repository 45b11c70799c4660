// The simulated phone's motion: how long an app switch takes to draw, when Notes' "Saved"
// snackbar comes and goes, and the log of each of those events, which tests wait on.
//
// Phases (each a Duration: ms on the sim's timers, 0 = at once, "held" = until release()):
//   launch         the foreground app changed (am start, monkey, a launcher icon, home, back):
//                  until it ends, `uiautomator dump` answers `ERROR: could not get idle state.`
//                  on stderr, exit 0, no file written (launchTree "idle-error"), or dumps the old
//                  screen (launchTree "old-screen"); `screencap` shows a half-drawn frame (new
//                  screen on top, old below); `dumpsys window` has mFocusedApp on the new
//                  activity but mCurrentFocus still on the old window; the keyboard is down.
//   snackbarDelay  from a tap on Notes' Save until "Saved" appears at the bottom of Notes.
//   snackbar       how long "Saved" stays (Snackbar.LENGTH_SHORT is 1500 ms on a phone).
// INSTANT_MOTION is the default: every phase at once except the snackbar, which stays until the
// next save replaces it or a test releases it, so tests and `deno task sim` stay deterministic.
// REALISTIC_MOTION (`deno task sim --realistic`) is what a phone roughly shows.
//
// A test holds a phase with set({ launch: "held" }), acts, sees the phase, then release("launch")
// ends it (the next one is held again until set() changes it). until("launch-end") resolves once
// that many such events happened, past ones included; events are announced only after the state
// files show them, so a command run after until() resolves sees the new screen.
//
// A phase starts when the command that caused it finishes, since the sim applies a command's
// tool calls then: `am start …; uiautomator dump` in one shell command still dumps the old screen
// without any error, and the next command meets the phase. Taps during a switch act on the new
// screen (input dispatch during animations is not modelled).
//
// On a phone, every dump first waits for the screen to be quiet: DumpCommand calls
// waitForIdle(1000, 10000)
// (https://github.com/aosp-mirror/platform_frameworks_base/blob/4fecab570da64a1956352aedf1b3245d3ba26030/cmds/uiautomator/cmds/uiautomator/src/com/android/commands/uiautomator/DumpCommand.java),
// so a dump returns once 1 s has passed since max(its start, the last change on screen), and
// answers the idle-state error only after 10 s of continuous change (docs/android.md,
// uiautomator). dumpIdle models that wait: REALISTIC_MOTION has it, and so does any test that
// sets it; INSTANT_MOTION leaves it off, so the dump answers at once and, while a switch draws,
// with the idle-state error at once (a test's quick stand-in for a screen that never settles).

import { packageOf, SAVED_MESSAGE, type ScreenState } from "./screen.ts";

export type Duration = number | "held";
export type MotionPhase = "launch" | "snackbarDelay" | "snackbar";

export interface MotionSettings {
  launch: Duration;
  /** What `uiautomator dump` answers while an app switch draws. */
  launchTree: "idle-error" | "old-screen";
  snackbarDelay: Duration;
  snackbar: Duration;
  /**
   * How `uiautomator dump` waits for the screen to be quiet, as a phone's does; null: no wait.
   * A change is anything the dump would show differently, and every moment an app switch draws.
   */
  dumpIdle: DumpIdle | null;
}

/** uiautomator's own wait before it reads the tree, in ms (tools/uiautomator.sh). */
export interface DumpIdle {
  /** How long the screen must have been quiet: UiAutomation.waitForIdle's idle timeout. */
  quietMs: number;
  /** How long it may keep changing before the idle-state error: the global timeout. */
  maxMs: number;
  /** The dump's own work once quiet: walking the tree and writing the XML. */
  workMs: number;
}

/** What AOSP's DumpCommand waits (1 s quiet, 10 s at most), and a dump's own work on a phone. */
export const PHONE_DUMP_IDLE: Readonly<DumpIdle> = Object.freeze({
  quietMs: 1000,
  maxMs: 10_000,
  workMs: 150,
});

export const INSTANT_MOTION: Readonly<MotionSettings> = Object.freeze({
  launch: 0,
  launchTree: "idle-error",
  snackbarDelay: 0,
  snackbar: "held",
  dumpIdle: null,
});

export const REALISTIC_MOTION: Readonly<MotionSettings> = Object.freeze({
  launch: 400,
  launchTree: "idle-error",
  snackbarDelay: 300,
  snackbar: 1500,
  dumpIdle: PHONE_DUMP_IDLE,
});

export type MotionEventKind = "launch-start" | "launch-end" | "snackbar-shown" | "snackbar-gone";

export interface MotionEvent {
  /** 1, 2, 3… over all kinds, in the order they happened. */
  seq: number;
  kind: MotionEventKind;
  /** launch-*: "old.package -> new.package"; snackbar-*: its text. */
  detail: string;
}

export interface SimMotion {
  settings(): MotionSettings;
  /** Changes phase lengths for what starts from now on (a running phase keeps its own). */
  set(patch: Partial<MotionSettings>): void;
  /** The app switch drawing now ("old.package -> new.package"), or null. */
  launching(): string | null;
  /** The snackbar's phase now: waiting to show, shown, or none. */
  snackbarPhase(): "waiting" | "shown" | null;
  /** Ends the running phase now (held or timed); resolves once the screen shows it. False when
   * no such phase was running. */
  release(phase: MotionPhase): Promise<boolean>;
  /** Every event announced so far. */
  events(): MotionEvent[];
  /** Resolves with the count-th event of that kind (past ones count) once it is announced;
   * rejects when the phone closes first. */
  until(kind: MotionEventKind, count?: number): Promise<MotionEvent>;
}

type Timer = ReturnType<typeof setTimeout>;

export interface MotionHost {
  readonly state: ScreenState;
  /** A timer the phone cancels when it closes. */
  timer(ms: number, fire: () => void): Timer;
  cancel(timer: Timer): void;
  /** Rewrites the state files from the state, then calls motion.announce(). Tracked by the
   * phone so close() waits for it. */
  changed(): Promise<void>;
}

interface Waiter {
  kind: MotionEventKind;
  count: number;
  resolve: (e: MotionEvent) => void;
  reject: (e: Error) => void;
}

export class Motion implements SimMotion {
  readonly #host: MotionHost;
  #settings: MotionSettings;
  /** The screen still displayed while an app switch draws; null when none does. */
  from: ScreenState | null = null;
  #launchTimer: Timer | null = null;
  #snack: { phase: "waiting" | "shown"; timer: Timer | null } | null = null;
  readonly #events: MotionEvent[] = [];
  /** Logged but not yet announced (the files do not show them yet). */
  #unannounced: MotionEvent[] = [];
  #waiters: Waiter[] = [];
  #closed = false;

  constructor(host: MotionHost, settings: Partial<MotionSettings> = {}) {
    this.#host = host;
    this.#settings = { ...INSTANT_MOTION, ...settings };
  }

  settings(): MotionSettings {
    return { ...this.#settings };
  }

  set(patch: Partial<MotionSettings>): void {
    this.#settings = { ...this.#settings, ...patch };
  }

  launching(): string | null {
    return this.from === null ? null : this.#switchName();
  }

  snackbarPhase(): "waiting" | "shown" | null {
    return this.#snack?.phase ?? null;
  }

  async release(phase: MotionPhase): Promise<boolean> {
    switch (phase) {
      case "launch":
        if (this.from === null) return false;
        this.#endLaunch();
        break;
      case "snackbarDelay":
        if (this.#snack?.phase !== "waiting") return false;
        this.#showSnackbar();
        break;
      case "snackbar":
        if (this.#snack?.phase !== "shown") return false;
        this.#hideSnackbar();
        break;
    }
    await this.#host.changed();
    return true;
  }

  events(): MotionEvent[] {
    return this.#events.map((e) => ({ ...e }));
  }

  until(kind: MotionEventKind, count = 1): Promise<MotionEvent> {
    const hit = this.#events.filter((e) => e.kind === kind)[count - 1];
    if (hit) return Promise.resolve({ ...hit });
    if (this.#closed) return Promise.reject(new Error(`sim closed before ${kind} #${count}`));
    return new Promise((resolve, reject) => this.#waiters.push({ kind, count, resolve, reject }));
  }

  /**
   * Called by the phone right after a command's tool calls changed the state, with a copy of
   * the state from just before: starts the phases those changes begin. A phase of 0 ms runs
   * through at once; the phone then writes the files and calls announce().
   */
  afterCommand(before: ScreenState): void {
    const s = this.#host.state;
    if (s.app !== before.app) this.#startLaunch(before);
    if (s.saves !== before.saves) this.#startSnackbar();
  }

  /** Announces the events logged since last time: the files now show them. */
  announce(): void {
    const fresh = this.#unannounced;
    this.#unannounced = [];
    this.#events.push(...fresh);
    if (fresh.length === 0) return;
    this.#waiters = this.#waiters.filter((w) => {
      const hit = this.#events.filter((e) => e.kind === w.kind)[w.count - 1];
      if (hit) w.resolve({ ...hit });
      return !hit;
    });
  }

  /** The phone closed: its timers are gone, and nobody will see another event. */
  close(): void {
    this.#closed = true;
    for (const w of this.#waiters) {
      w.reject(new Error(`sim closed before ${w.kind} #${w.count}`));
    }
    this.#waiters = [];
  }

  #log(kind: MotionEventKind, detail: string): void {
    const seq = this.#events.length + this.#unannounced.length + 1;
    this.#unannounced.push({ seq, kind, detail });
  }

  #switchName(): string {
    return `${packageOf(this.from?.app ?? "home")} -> ${packageOf(this.#host.state.app)}`;
  }

  /** Runs `end` after `d`: now for 0, on a timer for ms, never for "held" (release() ends it). */
  #after(d: Duration, end: () => void): Timer | null {
    if (d === 0) {
      end();
      return null;
    }
    if (d === "held") return null;
    return this.#host.timer(d, () => {
      end();
      void this.#host.changed();
    });
  }

  #startLaunch(before: ScreenState): void {
    // A switch during a switch: the old screen is still the one on display.
    if (this.from === null) this.from = structuredClone(before);
    if (this.#launchTimer !== null) this.#host.cancel(this.#launchTimer);
    this.#log("launch-start", this.#switchName());
    this.#launchTimer = this.#after(this.#settings.launch, () => this.#endLaunch());
  }

  #endLaunch(): void {
    if (this.from === null) return;
    if (this.#launchTimer !== null) this.#host.cancel(this.#launchTimer);
    this.#launchTimer = null;
    this.#log("launch-end", this.#switchName());
    this.from = null;
  }

  #startSnackbar(): void {
    // A new save replaces the snackbar on screen, as Snackbar does.
    if (this.#snack?.timer) this.#host.cancel(this.#snack.timer);
    if (this.#snack?.phase === "shown") this.#hideSnackbar();
    this.#snack = { phase: "waiting", timer: null };
    const snack = this.#snack;
    snack.timer = this.#after(this.#settings.snackbarDelay, () => this.#showSnackbar());
  }

  #showSnackbar(): void {
    if (this.#snack?.phase !== "waiting") return;
    if (this.#snack.timer !== null) this.#host.cancel(this.#snack.timer);
    this.#host.state.snackbar = SAVED_MESSAGE;
    this.#log("snackbar-shown", SAVED_MESSAGE);
    const snack = { phase: "shown" as const, timer: null as Timer | null };
    this.#snack = snack;
    snack.timer = this.#after(this.#settings.snackbar, () => this.#hideSnackbar());
  }

  #hideSnackbar(): void {
    if (this.#snack?.phase !== "shown") return;
    if (this.#snack.timer !== null) this.#host.cancel(this.#snack.timer);
    const text = this.#host.state.snackbar ?? SAVED_MESSAGE;
    this.#host.state.snackbar = null;
    this.#snack = null;
    this.#log("snackbar-gone", text);
  }
}
