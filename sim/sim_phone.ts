// The simulated phone: a TCP server on 127.0.0.1 that speaks adbd's wire protocol to the real
// adb client, runs each command through a real `sh -c` with fake Android tools, injects faults.
//
// Usage (tests):
//   const sim = await startSimPhone({ shellV2: true });
//   // adb connect sim.serial, then adb -s sim.serial shell/exec-out ...
//   // (tests/helpers/adb_harness.ts gives an isolated adb server for that)
//   sim.toolCalls("input")  -> [["tap", "10", "20"], ...] exact argv per call
//   sim.screen()            -> { name: "notes", text: "...", url, scroll, ... }
//   sim.faults.dropAfterNext("input"); sim.faults.idleStateErrors(2); ...
//   await sim.close();
//
// Services: `shell:CMD` (legacy), `shell,v2,...:CMD` (shell protocol), `exec:CMD` (exec-out).
// Anything else (sync: for push/pull, interactive shell, reboot...) is refused with CLSE, which
// adb reports as `error: closed` (docs/android.md, the adb client).
// Fake tools (sim/tools/*.sh): input, screencap, uiautomator, am, monkey, cmd, pm, wm,
// getprop, dumpsys, ime, settings, and cat/ls/rm/mkdir mapping /sdcard/... and /data/local/tmp/... into
// sim.root. Shell redirections (`> /sdcard/x`) are not mapped. Commands run in sim.root with
// PATH=<fake tools>:/usr/bin:/bin; everything else is the host's real tools, on purpose, so an
// injection payload really runs (see sim.marker).
// Screens: home (Notes, Settings, Browser, Camera, Gallery icons), Notes (focused text field,
// Clear, Save), Settings (scrolling list, each item opens its page), Browser (URL bar), Camera,
// Gallery (a noisy photo: the agent's screenshot becomes a JPEG); any of them may be a secure
// window (setScreen({ secureWindow: true })). State changes apply when a command finishes.
// Motion (motion.ts): an app switch draws for `launch` ms (uiautomator: idle-state error, screencap:
// half-drawn frame, dumpsys window: old focus, new mFocusedApp) and Notes' Save shows "Saved"
// after `snackbarDelay` for `snackbar` ms; default all instant (the snackbar stays). Tests hold and
// release each phase and await its events:
//   const sim = await startSimPhone({ motion: { launch: "held" } });
//   ... adb shell am start ...; sim.screen().launching -> "com.android.launcher3 -> ..."
//   await sim.motion.release("launch"); await sim.motion.until("launch-end");
// The keyboard: `dumpsys input_method` says mInputShown=true while a text field has focus.
// Android version (androidVersion, default 14): the tools answer as that release does, per the
// table in android.ts (input's errors, am's exit status, screenshots of secure windows).
// Input methods: the phone's keyboard, plus ADB Keyboard with `adbKeyboard: true`; `ime` and
// `settings` change them at once, and `am broadcast -a ADB_INPUT_B64` types only while ADB
// Keyboard is selected and a text field has focus.
// Output is collected until the command exits, then sent; latency applies before a command runs.
// The wire format is in wire.ts, each adb connection in transport.ts, every fault in faults.ts.

import { concatBytes, releaseBytes, releaseChunk } from "../lib/core/bytes.ts";
import { deviceBanner } from "./wire.ts";
import { androidTraits, type AndroidVersion, toolEnv } from "./android.ts";
import { effectiveSize, initialState, type ScreenState, type Size } from "./screen.ts";
import { applyToolCall, hasTextFocus } from "./screen_input.ts";
import { layout } from "./screen_layout.ts";
import {
  encodePng,
  halfDrawn,
  headerOnlyPng,
  rawScreencap,
  renderPixels,
  renderXml,
} from "./render.ts";
import { dumpsysTexts } from "./dumpsys.ts";
import { cachedFrame } from "./frame_cache.ts";
import { Motion, type MotionSettings, type SimMotion } from "./motion.ts";
import { CallLogParser, installTools, type ToolCall } from "./tools.ts";
import {
  type CommandOutcome,
  type CommandResult,
  EMPTY,
  type ExecuteHow,
  Transport,
  type TransportHost,
} from "./transport.ts";
import {
  delayFor,
  faultControls,
  type FaultState,
  hangFor,
  noFaults,
  type SimFaults,
  takeEarlyDrop,
  takeLateDrop,
  truncationFor,
} from "./faults.ts";

export interface SimPhoneOptions {
  /** TCP port on 127.0.0.1; 0 (default) picks a free one. Avoid 5555-5585: adb servers that
   * scan for emulators (all but the harness's, which sets ADB_EMU=0) attach those by themselves. */
  port?: number;
  /** Physical screen size; default 1080x2400. */
  width?: number;
  height?: number;
  /** Advertise `shell_v2` (exit codes, split stderr; Android 7+). Default true.
   * False = legacy shell: no exit status, stderr merged, Android 6 properties. */
  shellV2?: boolean;
  /** ro.product.model; default "SimPhone". */
  model?: string;
  /** Raw `screencap` header: 16 bytes (w, h, format, colour space) as on current Android, or the
   * older 12. Default 16 with shellV2, 12 without. */
  rawHeaderBytes?: 12 | 16;
  /** The Android release the tools behave as (android.ts); default 14. With shellV2 false the
   * phone reports Android 6 and its `am` prints errors on stdout, the rest follows this. */
  androidVersion?: AndroidVersion;
  /** ADB Keyboard (com.android.adbkeyboard/.AdbIME) is installed, not enabled, not selected, as
   * after `adb install`. Default false: a stock phone with only its own keyboard. */
  adbKeyboard?: boolean;
  /** How long app switches and Notes' "Saved" snackbar take (motion.ts). Default
   * INSTANT_MOTION: switches draw at once, the snackbar shows at once and stays. */
  motion?: Partial<MotionSettings>;
}

/** The input methods, as `ime list -a -s`, `ime list -s` and `settings get secure
 * default_input_method` report them. */
export interface SimIme {
  installed: string[];
  enabled: string[];
  /** null when no input method is selected. */
  selected: string | null;
}

/** The phone's own keyboard, installed, enabled and selected from the start. */
export const SIM_DEFAULT_IME =
  "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME";
export const ADB_KEYBOARD_IME = "com.android.adbkeyboard/.AdbIME";

export interface SimScreen {
  /** "home" | "notes" | "settings" | "browser" | "camera" */
  name: string;
  /** The Notes text field. */
  text: string;
  /** The page the browser shows. */
  url: string;
  /** What is being typed in the browser's URL bar, null when not editing. */
  urlDraft: string | null;
  /** Settings list scroll offset in pixels. */
  scroll: number;
  /** Shutter presses in Camera. */
  photos: number;
  /** Logical screen size (the `wm size` override when set). */
  width: number;
  height: number;
  /** A FLAG_SECURE window is in front. */
  secureWindow: boolean;
  /** What Notes' Save last saved, null before any save. */
  savedNote: string | null;
  /** The snackbar Notes shows ("Saved"), null when none. */
  snackbar: string | null;
  /** The app switch still drawing ("old.package -> new.package"), null when none. */
  launching: string | null;
}

export interface SimPhone {
  readonly port: number;
  /** "127.0.0.1:PORT", what `adb connect` and `adb -s` take. */
  readonly serial: string;
  /** Temp dir: device storage (sdcard/, data/local/tmp/), tools (bin/), state (.sim/). */
  readonly root: string;
  /** A file injection tests point payloads at; it exists only if a payload ran. */
  readonly marker: string;
  /** Every shell/exec command string received, in order. */
  commands(): string[];
  /**
   * The commands whose streams are open now: running, or hung until the adb server closes the
   * stream (its client gave up or was killed). Shows whether two commands ran at once.
   */
  openCommands(): string[];
  /** Every OPEN service string received, supported or not, in order. */
  services(): string[];
  /** Recorded argv of each fake-tool call (optionally of one tool), argument bytes intact. */
  toolCalls(tool?: string): string[][];
  screen(): SimScreen;
  /** The input methods now (ADB Keyboard's state included). */
  ime(): Promise<SimIme>;
  /** When each `input tap` ran, in ms on one monotonic-enough clock (the host's wall clock). */
  tapTimes(): Promise<number[]>;
  /** Puts the screen into a state directly (test setup without adb round trips). */
  setScreen(patch: Partial<ScreenState>): Promise<void>;
  /** Live adb transports (TCP connections that finished the CNXN handshake). */
  transports(): number;
  /** TCP connections accepted so far: each `adb connect`, and each reconnect, is one. */
  connections(): number;
  readonly faults: SimFaults;
  /** App switches and the "Saved" snackbar: their timing, holds, and the events log. */
  readonly motion: SimMotion;
  /** Stops the listener, drops connections, kills running commands, removes the temp dir. */
  close(): Promise<void>;
}

export type { ScreenState } from "./screen.ts";
export type { SimFaults } from "./faults.ts";
export type { MotionEvent, MotionEventKind, MotionSettings, SimMotion } from "./motion.ts";
export { INSTANT_MOTION, REALISTIC_MOTION } from "./motion.ts";

export function startSimPhone(opts: SimPhoneOptions = {}): Promise<SimPhone> {
  return Sim.start(opts);
}

type Timer = ReturnType<typeof setTimeout>;

class Sim implements SimPhone, TransportHost {
  readonly port: number;
  readonly serial: string;
  readonly root: string;
  readonly marker: string;
  readonly faults: SimFaults;

  readonly #opts: Required<Omit<SimPhoneOptions, "port" | "motion">>;
  readonly #motion: Motion;
  readonly #state: ScreenState = initialState();
  readonly #bin: string;
  readonly #dir: string;
  readonly #commands: string[] = [];
  readonly #services: string[] = [];
  readonly #calls: ToolCall[] = [];
  readonly #parser = new CallLogParser();
  #logOffset = 0;
  #nextCmdId = 1;
  #listener: Deno.Listener | null;
  readonly #transports = new Set<Transport>();
  #accepted = 0;
  readonly #children = new Set<Deno.ChildProcess>();
  /** Cancels our reads of running commands' pipes, which a left-behind grandchild may hold. */
  readonly #readCancels = new Set<() => void>();
  /** Pending timers, each with the callback that settles whoever waits on it. */
  readonly #timers = new Map<Timer, () => void>();
  #reopenTimer: Timer | null = null;
  readonly #pending = new Set<Promise<unknown>>();
  readonly #faults: FaultState = noFaults();
  #closed = false;
  #xmlKey = "";
  /** What the dump showed at the last rewrite, and when that last changed (epoch ms). */
  #shown = "";
  #shownChangedAt = Date.now();
  /** The frame's PNG, for the screen `#pngKey` names; screen.png holds it. */
  #png: Uint8Array = EMPTY;
  #pngKey = "";
  /** The size screen_header.png was written for, and the frame screen.raw holds. */
  #headerKey = "";
  #rawKey = "";
  /** Serializes state syncs so concurrent commands never write half-rendered files. */
  #sync: Promise<void> = Promise.resolve();
  /** Serializes reads of the call log: two at once would read the same bytes from one offset. */
  #reading: Promise<unknown> = Promise.resolve();

  private constructor(
    opts: Required<Omit<SimPhoneOptions, "port" | "motion">>,
    motion: Partial<MotionSettings>,
    root: string,
    listener: Deno.Listener,
  ) {
    this.#opts = opts;
    this.#motion = new Motion({
      state: this.#state,
      timer: (ms, fire) => this.#timer(ms, fire),
      cancel: (t) => this.#cancelTimer(t),
      changed: () => {
        const synced = this.#syncFiles().then(() => this.#motion.announce());
        this.track(synced);
        return synced;
      },
    }, motion);
    this.root = root;
    this.#bin = `${root}/bin`;
    this.#dir = `${root}/.sim`;
    this.marker = `${root}/INJECTED`;
    this.#listener = listener;
    this.port = (listener.addr as Deno.NetAddr).port;
    this.serial = `127.0.0.1:${this.port}`;
    this.faults = faultControls(this.#faults, {
      dropAll: () => {
        for (const t of this.#transports) t.drop();
      },
      refuse: (ms) => {
        this.#listener?.close();
        this.#listener = null;
        if (this.#reopenTimer !== null) this.#cancelTimer(this.#reopenTimer);
        this.#reopenTimer = this.#timer(ms, () => {
          this.#reopenTimer = null;
          this.#openListener();
        });
      },
      stopRefusing: () => {
        if (this.#reopenTimer === null) return;
        this.#cancelTimer(this.#reopenTimer);
        this.#reopenTimer = null;
        this.#openListener();
      },
      writeStateFile: (name, content) => this.#writeStateFile(name, content),
    });
  }

  static async start(o: SimPhoneOptions): Promise<Sim> {
    const shellV2 = o.shellV2 ?? true;
    const opts = {
      width: o.width ?? 1080,
      height: o.height ?? 2400,
      shellV2,
      model: o.model ?? "SimPhone",
      rawHeaderBytes: o.rawHeaderBytes ?? (shellV2 ? 16 : 12),
      androidVersion: o.androidVersion ?? 14,
      adbKeyboard: o.adbKeyboard ?? false,
    };
    const root = await Deno.makeTempDir({ prefix: "phone_eye_sim_" });
    let listener: Deno.Listener | null = null;
    try {
      for (const d of ["sdcard", "data/local/tmp", "bin", ".sim"]) {
        await Deno.mkdir(`${root}/${d}`, { recursive: true });
      }
      await installTools(`${root}/bin`);
      listener = Deno.listen({ hostname: "127.0.0.1", port: o.port ?? 0 });
      const sim = new Sim(opts, o.motion ?? {}, root, listener);
      await Deno.writeFile(`${root}/.sim/calls.log`, EMPTY);
      await Deno.writeTextFile(`${root}/.sim/props`, sim.#props());
      const installed = [SIM_DEFAULT_IME, ...(opts.adbKeyboard ? [ADB_KEYBOARD_IME] : [])];
      await Deno.writeTextFile(`${root}/.sim/ime_installed`, `${installed.join("\n")}\n`);
      await Deno.writeTextFile(`${root}/.sim/ime_enabled`, `${SIM_DEFAULT_IME}\n`);
      await Deno.writeTextFile(`${root}/.sim/ime_selected`, `${SIM_DEFAULT_IME}\n`);
      await sim.#syncFiles();
      sim.track(sim.#acceptLoop(listener));
      return sim;
    } catch (e) {
      listener?.close();
      await Deno.remove(root, { recursive: true }).catch(() => {});
      throw e;
    }
  }

  // ---- public API ----

  get motion(): SimMotion {
    return this.#motion;
  }

  commands(): string[] {
    return [...this.#commands];
  }

  openCommands(): string[] {
    return [...this.#transports].flatMap((t) => t.openCommands());
  }

  services(): string[] {
    return [...this.#services];
  }

  toolCalls(tool?: string): string[][] {
    return this.#calls
      .filter((c) => !c.tool.startsWith("@") && (tool === undefined || c.tool === tool))
      .map((c) => [...c.argv]);
  }

  screen(): SimScreen {
    const s = this.#state;
    const size = effectiveSize(s, this.#physical());
    return {
      name: s.app,
      text: s.notesText,
      url: s.url,
      urlDraft: s.urlDraft,
      scroll: s.scroll,
      photos: s.photos,
      width: size.width,
      height: size.height,
      secureWindow: s.secureWindow,
      savedNote: s.savedNote,
      snackbar: s.snackbar,
      launching: this.#motion.launching(),
    };
  }

  async ime(): Promise<SimIme> {
    const read = (name: string) => Deno.readTextFile(`${this.#dir}/${name}`);
    const lines = (text: string) => text.split("\n").filter((l) => l !== "");
    const selected = (await read("ime_selected")).trim();
    return {
      installed: lines(await read("ime_installed")),
      enabled: lines(await read("ime_enabled")),
      selected: selected === "null" || selected === "" ? null : selected,
    };
  }

  async tapTimes(): Promise<number[]> {
    const text = await Deno.readTextFile(`${this.#dir}/tap_times`).catch((e) => {
      if (e instanceof Deno.errors.NotFound) return "";
      throw e;
    });
    return text.split("\n").filter((l) => l !== "").map((ns) => Number(BigInt(ns) / 1000n) / 1000);
  }

  async setScreen(patch: Partial<ScreenState>): Promise<void> {
    Object.assign(this.#state, patch);
    await this.#syncFiles();
  }

  transports(): number {
    return [...this.#transports].filter((t) => t.online).length;
  }

  connections(): number {
    return this.#accepted;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#motion.close();
    for (const [id, settle] of this.#timers) {
      clearTimeout(id);
      settle();
    }
    this.#timers.clear();
    this.#listener?.close();
    this.#listener = null;
    for (const t of this.#transports) t.drop();
    await Promise.all([...this.#children].map((c) => killGroup(c)));
    for (const cancel of this.#readCancels) cancel();
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
    await Deno.remove(this.root, { recursive: true }).catch(() => {});
  }

  // ---- plumbing ----

  #physical(): Size {
    return { width: this.#opts.width, height: this.#opts.height };
  }

  /** Keeps a background task in view so close() can wait for it. */
  track<T>(p: Promise<T>): void {
    const guarded = p.catch(() => {});
    this.#pending.add(guarded);
    guarded.finally(() => this.#pending.delete(guarded));
  }

  /** setTimeout that close() cancels; `settle` runs either way, so nobody waits forever. */
  #timer(ms: number, fire: () => void, settle: () => void = () => {}): Timer {
    const id = setTimeout(() => {
      this.#timers.delete(id);
      fire();
      settle();
    }, ms);
    this.#timers.set(id, settle);
    return id;
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.#timer(ms, () => {}, resolve));
  }

  #cancelTimer(id: Timer): void {
    clearTimeout(id);
    this.#timers.delete(id);
  }

  #openListener(): void {
    if (this.#closed || this.#listener) return;
    try {
      const l = Deno.listen({ hostname: "127.0.0.1", port: this.port });
      this.#listener = l;
      this.track(this.#acceptLoop(l));
    } catch {
      // The old socket may linger for a moment; try again shortly.
      this.#reopenTimer = this.#timer(50, () => this.#openListener());
    }
  }

  async #acceptLoop(listener: Deno.Listener): Promise<void> {
    for (;;) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch {
        return; // listener closed
      }
      if (this.#closed) {
        conn.close();
        return;
      }
      // adbd turns Nagle off on every transport it accepts (server_socket_thread,
      // https://github.com/aosp-mirror/platform_system_core/blob/589da1a0e0220d9443dbdd03e9fb2a659bfd2f8c/adb/transport_local.cpp#L270).
      // With it on, each small WRTE after the first waits for the host's delayed ACK: ~40 ms on
      // every command, which no phone shows.
      (conn as Deno.TcpConn).setNoDelay(true);
      this.#accepted++;
      const t = new Transport(conn, this);
      this.#transports.add(t);
      this.track(t.run().finally(() => this.#transports.delete(t)));
    }
  }

  #props(): string {
    const modern = this.#opts.shellV2;
    const version = this.#opts.androidVersion;
    const { sdk, buildId } = androidTraits(version);
    const props: Record<string, string> = {
      "ro.product.model": this.#opts.model,
      "ro.product.name": "simphone",
      "ro.product.device": "sim",
      "ro.product.brand": "phoneeye",
      "ro.product.manufacturer": "PhoneEye",
      "ro.product.cpu.abi": "arm64-v8a",
      "ro.build.version.release": modern ? String(version) : "6.0.1",
      "ro.build.version.sdk": modern ? String(sdk) : "23",
      "ro.build.fingerprint": modern
        ? `phoneeye/simphone/sim:${version}/${buildId}/1:user/release-keys`
        : "phoneeye/simphone/sim:6.0.1/MOB31E/1:user/release-keys",
      "ro.serialno": `SIM${this.port}`,
      "ro.sf.lcd_density": "420",
      "sys.boot_completed": "1",
    };
    return Object.entries(props).map(([k, v]) => `${k}=${v}\n`).join("");
  }

  banner(): Uint8Array {
    return deviceBanner({
      name: "simphone",
      model: this.#opts.model,
      device: "sim",
      features: this.#opts.shellV2 ? ["shell_v2", "cmd", "stat_v2", "ls_v2"] : [],
    });
  }

  async #writeAtomic(name: string, data: Uint8Array | string): Promise<void> {
    const tmp = `${this.#dir}/.${name}.tmp`;
    if (typeof data === "string") await Deno.writeTextFile(tmp, data);
    else await Deno.writeFile(tmp, data);
    await Deno.rename(tmp, `${this.#dir}/${name}`);
  }

  /**
   * Writes the state files the fake tools read; the frame only in the forms `frame` asks for
   * (frameNeeds: a PNG for any screencap, the 10 MB raw one only when the command may print it).
   */
  #syncFiles(frame: FrameNeeds = NO_FRAME): Promise<void> {
    const run = this.#sync.then(() => this.#doSync(frame));
    this.#sync = run.catch(() => {});
    return run;
  }

  async #doSync(frame: FrameNeeds): Promise<void> {
    if (this.#closed) return;
    const state = this.#state;
    const size = effectiveSize(state, this.#physical());
    // While an app switch draws (motion.ts), the old screen is what the tree and focus show.
    const showing = { state, size, from: this.#motion.from };
    await this.#writeScreenVars(showing);
    if (frame.png) await this.#writeFrame(showing, frame);
  }

  /**
   * What the fake tools show of the screen, as shell variables they source (screen.sh): printing
   * one costs no process, where `cat` of a file costs a fork and an exec (milliseconds of CPU).
   * Rewritten only when what they show changed.
   */
  async #writeScreenVars({ state: s, size, from }: Showing): Promise<void> {
    const { launchTree, dumpIdle } = this.#motion.settings();
    const key = JSON.stringify([s, size, from, launchTree, dumpIdle]);
    if (key === this.#xmlKey) return;
    const keyboardShown = from === null && hasTextFocus(s);
    const root = layout(from ?? s, size);
    const phys = this.#physical();
    const texts = dumpsysTexts({ state: s, focus: from ?? s, keyboardShown, size, physical: phys });
    const xml = renderXml(root, { compressed: false });
    // When what a dump would show last changed: uiautomator.sh's idle wait counts from it.
    const shown = `${from !== null}|${xml}`;
    if (shown !== this.#shown) {
      this.#shown = shown;
      this.#shownChangedAt = Date.now();
    }
    const vars: Record<string, string> = {
      // tools/uiautomator.sh answers the idle-state error while this says 1 (no idle wait).
      launching: from !== null && launchTree === "idle-error" ? "1" : "0",
      // An app switch is drawing: with an idle wait, the screen counts as changing throughout.
      drawing: from !== null ? "1" : "0",
      changed_ms: String(this.#shownChangedAt),
      // "quiet max work" in ms (motion.ts dumpIdle), or empty for a dump that answers at once.
      dump_idle: dumpIdle === null
        ? ""
        : `${dumpIdle.quietMs} ${dumpIdle.maxMs} ${dumpIdle.workMs}`,
      // Whether a secure window is in front (tools/screencap.sh).
      secure_window: s.secureWindow ? "1" : "0",
      // A text field has focus: ADB Keyboard listens (tools/sim_lib.sh).
      text_focus: keyboardShown ? "1" : "0",
      xml,
      xml_compressed: renderXml(root, { compressed: true }),
      wm_size: `Physical size: ${phys.width}x${phys.height}\n` +
        (s.overrideSize ? `Override size: ${s.overrideSize.width}x${s.overrideSize.height}\n` : ""),
      wm_density: "Physical density: 420\n" +
        (s.overrideDensity ? `Override density: ${s.overrideDensity}\n` : ""),
      ...Object.fromEntries(
        Object.entries(texts).map(([name, text]) => [`dumpsys_${name}`, text]),
      ),
    };
    const lines = Object.entries(vars).map(([name, value]) => `sim_${name}=${shellQuote(value)}`);
    await this.#writeAtomic(
      "screen.sh",
      ["# The screen as the fake tools show it (sim/sim_phone.ts).", ...lines, ""].join("\n"),
    );
    this.#xmlKey = key;
  }

  /**
   * The frame as screencap reads it (screen.png, its header-only copy, and screen.raw when
   * `frame` asks for it), drawn again only when what decides its pixels changed.
   */
  async #writeFrame({ state: s, size, from }: Showing, frame: FrameNeeds): Promise<void> {
    const { secureCapture } = androidTraits(this.#opts.androidVersion);
    // A secure window on a release whose screencap refuses it: the tool reads no frame at all.
    if (s.secureWindow && secureCapture === "refuse") return;
    const black = this.#faults.black;
    const secureBlack = s.secureWindow && secureCapture === "black";
    // All that decides the pixels, so phones may share the frame (frame_cache.ts).
    const pixelKey = JSON.stringify([s, from, size, black, secureBlack]);
    if (pixelKey !== this.#pngKey) {
      this.#png = cachedFrame(pixelKey, () => {
        const draw = (state: ScreenState) =>
          renderPixels(layout(state, size), size, { black, secureBlack });
        const canvas = draw(s);
        if (from !== null) {
          const old = draw(from);
          halfDrawn(canvas, old);
          releaseBytes(old.data);
        }
        const png = encodePng(canvas);
        // 10 MB each: handed back now, the next frame reuses the pages (lib/core/bytes.ts).
        releaseBytes(canvas.data);
        return png;
      });
      await this.#writeAtomic("screen.png", this.#png);
      this.#pngKey = pixelKey;
      // What the header-only fault prints: signature, IHDR and IEND, which only the size sets.
      const sizeKey = `${size.width}x${size.height}`;
      if (sizeKey !== this.#headerKey) {
        await this.#writeAtomic("screen_header.png", headerOnlyPng(this.#png));
        this.#headerKey = sizeKey;
      }
    }
    if (frame.raw && pixelKey !== this.#rawKey) {
      await this.#writeAtomic("screen.raw", rawScreencap(this.#png, this.#opts.rawHeaderBytes));
      this.#rawKey = pixelKey;
    }
  }

  /** Writes or removes one file of the state folder; the fake tools read their faults there. */
  #writeStateFile(name: string, content: string | Uint8Array | null): void {
    const path = `${this.#dir}/${name}`;
    try {
      if (content === null) Deno.removeSync(path);
      else if (typeof content === "string") Deno.writeTextFileSync(path, content);
      else Deno.writeFileSync(path, content);
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
  }

  // ---- commands ----

  recordService(name: string): void {
    this.#services.push(name);
  }

  /**
   * Runs one shell/exec command for a stream. Returns what to send back, or a directive to
   * hang, drop the link, or cut the output (the armed faults decide, see faults.ts).
   */
  async execute(command: string, how: ExecuteHow): Promise<CommandOutcome> {
    this.#commands.push(command);
    const earlyDrop = takeEarlyDrop(this.#faults, command);
    // adbd acknowledges the OPEN before it starts the command.
    if (!earlyDrop) await how.ackOpen();
    const hang = hangFor(this.#faults, command);
    if (hang && !hang.execute) return { kind: "hang" };

    const delay = delayFor(this.#faults, command);
    if (delay > 0) await this.#sleep(delay);
    if (this.#closed) return { kind: "hang" };

    await this.#syncFiles(frameNeeds(command));
    const cmdId = this.#nextCmdId++;
    const result = await this.#run(command, { merged: how.merged, cmdId });
    const calls = await this.#readCalls();
    // No await between the copy and the calls: a concurrent command's changes are not counted
    // twice.
    const before = structuredClone(this.#state);
    for (const c of calls) applyToolCall(this.#state, this.#physical(), c.tool, c.argv);
    this.#motion.afterCommand(before);
    await this.#syncFiles();
    this.#motion.announce();
    // A concurrent command's read may have taken this command's calls: look them up in all.
    const mine = this.#calls.filter((c) => c.cmdId === cmdId);

    if (earlyDrop) return { kind: "drop" };
    if (hang) return { kind: "hang" };
    if (takeLateDrop(this.#faults, command, mine)) return { kind: "drop" };
    return { kind: "reply", result, truncate: truncationFor(this.#faults, mine) };
  }

  async #collect(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
    const reader = stream.getReader();
    const cancel = () => void reader.cancel().catch(() => {});
    this.#readCancels.add(cancel);
    const parts: Uint8Array[] = [];
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        parts.push(value);
      }
    } finally {
      this.#readCancels.delete(cancel);
      reader.releaseLock();
    }
    const all = concatBytes(parts);
    // Each read has a 64 KiB buffer of its own: handed back now, not at a collection (lib/core/bytes.ts).
    for (const p of parts) releaseChunk(p);
    return all;
  }

  #readCalls(): Promise<ToolCall[]> {
    const run = this.#reading.then(() => this.#readNewCalls());
    this.#reading = run.catch(() => {});
    return run;
  }

  async #readNewCalls(): Promise<ToolCall[]> {
    const file = await Deno.open(`${this.#dir}/calls.log`, { read: true });
    try {
      await file.seek(this.#logOffset, Deno.SeekMode.Start);
      const parts: Uint8Array[] = [];
      const buf = new Uint8Array(64 * 1024);
      for (;;) {
        const n = await file.read(buf);
        if (n === null) break;
        parts.push(buf.slice(0, n));
      }
      const bytes = concatBytes(parts);
      this.#logOffset += bytes.length;
      const calls = this.#parser.push(bytes);
      this.#calls.push(...calls);
      return calls;
    } finally {
      file.close();
    }
  }

  async #run(command: string, how: { merged: boolean; cmdId: number }): Promise<CommandResult> {
    const { merged, cmdId } = how;
    // The command line runs through a real `sh -c`, so an injection payload really runs. Legacy
    // shell and exec: one stream for both outputs, as adbd's subprocess without the shell
    // protocol has (stderr is dup2'd onto stdout: https://android.googlesource.com/platform/packages/modules/adb/+/9f298fb1f3317371b49439efb20a598b3a881bf3/daemon/shell_service.cpp#345),
    // so their interleaving is kept: a first sh points its stderr at its stdout and becomes the
    // command's sh. setsid (util-linux) starts it all in a session of its own, a process group
    // close() can kill whole. Deno's own `detached` would do the setsid, but by a fork of the
    // whole test process, which costs more CPU than the exec of setsid.
    const redirect = merged ? " 2>&1" : "";
    const sh = merged ? ["-c", 'exec sh -c "$1" 2>&1', "sh", command] : ["-c", command];
    let child: Deno.ChildProcess;
    if (setsidAllowed()) {
      try {
        // One process fewer than a shell asking for setsid first: milliseconds a command.
        child = this.#spawn("setsid", ["-w", "sh", ...sh], cmdId);
      } catch (e) {
        if (!(e instanceof Deno.errors.NotFound)) throw e;
        child = this.#spawn("sh", sh, cmdId); // no setsid: close() kills the command alone
      }
    } else {
      // The sim task may run sh only (deno.json, permissions "sim"): sh looks for setsid.
      const wrapper =
        `if command -v setsid >/dev/null 2>&1; then exec setsid -w sh -c "$1"${redirect}; ` +
        `else exec sh -c "$1"${redirect}; fi`;
      child = this.#spawn("sh", ["-c", wrapper, "sh", command], cmdId);
    }
    this.#children.add(child);
    try {
      const [stdout, stderr, status] = await Promise.all([
        this.#collect(child.stdout),
        this.#collect(child.stderr),
        child.status,
      ]);
      // A command killed by a signal reports 128+signal, as adbd's shell_v2 exit packet does
      // (0x80 | WTERMSIG: https://android.googlesource.com/platform/packages/modules/adb/+/9f298fb1f3317371b49439efb20a598b3a881bf3/daemon/shell_service.cpp#770).
      const code = status.signal ? 128 + signalNumber(status.signal) : status.code;
      return { stdout, stderr, code };
    } finally {
      this.#children.delete(child);
    }
  }

  #spawn(program: string, args: string[], cmdId: number): Deno.ChildProcess {
    return new Deno.Command(program, {
      args,
      cwd: this.root,
      clearEnv: true,
      env: {
        PATH: `${this.#bin}:/usr/bin:/bin`,
        HOME: this.root,
        TMPDIR: `${this.root}/data/local/tmp`,
        SIM_ROOT: this.root,
        SIM_BIN: this.#bin,
        SIM_STATE: this.#dir,
        SIM_CMD_ID: String(cmdId),
        SIM_MODERN: this.#opts.shellV2 ? "1" : "0",
        ...toolEnv(this.#opts.androidVersion),
      },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  }
}

/** What the screen shows now: the state, its logical size, and the screen an app switch leaves. */
interface Showing {
  state: ScreenState;
  size: Size;
  /** While an app switch draws (motion.ts), the screen it left; null otherwise. */
  from: ScreenState | null;
}

/** `value` as one word for sh, byte for byte (single quotes; each ' as '\''). */
function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}

/** Which forms of the frame a command's screencap may read (tools/screencap.sh). */
export interface FrameNeeds {
  /** screen.png (and the fault's header-only PNG). */
  png: boolean;
  /** screen.raw: 10 MB at 1080x2400, so written only for a command that may print it. */
  raw: boolean;
}

const NO_FRAME: FrameNeeds = { png: false, raw: false };

/**
 * What `command` may read of the frame, from its text: nothing without the word "screencap"; only
 * the PNG when every screencap in it is a plain `screencap -p [FILE]` (no -d, whose argument
 * could be "-p", no quoting or expansion); both otherwise, to be safe.
 */
export function frameNeeds(command: string): FrameNeeds {
  if (!command.includes("screencap")) return NO_FRAME;
  const parts = command.split("screencap");
  const pngOnly = parts.slice(1).every((rest, i) => {
    const before = parts[i]!;
    const wordStart = (i === 0 && before === "") || /[ \t\n;&|(]$/.test(before);
    if (!wordStart || !/^([ \t\n;&|)]|$)/.test(rest)) return false;
    const args = rest.split(/[;&|)\n]/, 1)[0]!.split(/[ \t]+/).filter((a) => a !== "");
    return args.includes("-p") && args.every((a) => a !== "-d" && /^[\w./@%+=:,-]+$/.test(a));
  });
  return { png: true, raw: !pngOnly };
}

/** Kills a command and whatever it started (its process group, see #run). */
async function killGroup(child: Deno.ChildProcess): Promise<void> {
  try {
    await new Deno.Command("sh", {
      args: ["-c", `kill -9 -${child.pid} 2>/dev/null`],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
  } catch { /* sh itself failed to start: fall through to killing the child alone */ }
  try {
    child.kill("SIGKILL");
  } catch { /* already gone */ }
}

/** Whether this process may spawn setsid itself (the test permission set runs anything). */
function setsidAllowed(): boolean {
  return Deno.permissions.querySync({ name: "run", command: "setsid" }).state === "granted";
}

function signalNumber(signal: Deno.Signal): number {
  const table: Partial<Record<Deno.Signal, number>> = {
    SIGHUP: 1,
    SIGINT: 2,
    SIGQUIT: 3,
    SIGABRT: 6,
    SIGKILL: 9,
    SIGSEGV: 11,
    SIGPIPE: 13,
    SIGALRM: 14,
    SIGTERM: 15,
  };
  return table[signal] ?? 0;
}
