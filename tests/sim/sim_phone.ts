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
// adb reports as `error: closed`.
// Fake tools (tests/sim/tools/*.sh): input, screencap, uiautomator, am, monkey, cmd, pm, wm,
// getprop, dumpsys, and cat/ls/rm/mkdir mapping /sdcard/... and /data/local/tmp/... into
// sim.root. Shell redirections (`> /sdcard/x`) are not mapped. Commands run in sim.root with
// PATH=<fake tools>:/usr/bin:/bin; everything else is the host's real tools, on purpose, so an
// injection payload really runs (see sim.marker).
// Screens: home (Notes, Settings, Browser, Camera icons), Notes (focused text field), Settings
// (scrolling list), Browser (URL bar), Camera. State changes apply when a command finishes.
// Output is collected until the command exits, then sent; latency applies before a command runs.

import {
  A_CLSE,
  A_CNXN,
  A_OKAY,
  A_OPEN,
  A_VERSION,
  A_WRTE,
  type AdbMessage,
  DEVICE_MAX_PAYLOAD,
  deviceBanner,
  encodeMessage,
  MessageReader,
  parseService,
  SHELL_EXIT,
  SHELL_STDERR,
  SHELL_STDOUT,
  shellPacket,
} from "./wire.ts";
import {
  activityOf,
  applyToolCall,
  effectiveSize,
  initialState,
  layout,
  packageOf,
  type ScreenState,
  type Size,
} from "./screen.ts";
import { encodePng, headerOnlyPng, rawScreencap, renderPixels, renderXml } from "./render.ts";
import { CallLogParser, installTools, type ToolCall } from "./tools.ts";

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
}

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
}

export interface SimFaults {
  /** Closes every adb transport socket now (adb then shows the device offline). */
  dropNow(): void;
  /** Lets the next command that runs `tool` (or whose text matches the RegExp) execute, then
   * closes the transport before sending its output or exit status (adb 29 then exits 0 with
   * no output). With beforeOpenAck the stream is not even acknowledged first (adb then says
   * `error: closed`); a tool name is then matched as a word of the command text. One-shot. */
  dropAfterNext(match: string | RegExp, opts?: { beforeOpenAck?: boolean }): void;
  /** Closes the listener for `ms` (new connections get "Connection refused"), then reopens it. */
  refuseConnections(ms: number): void;
  /** Commands matching `pattern` never answer (until adb gives up or the sim closes). They are
   * recorded but not run, unless `execute` (then they run and their output is withheld). */
  hang(pattern: RegExp, opts?: { execute?: boolean }): void;
  /** Delays every command (or those mentioning `tool` as a word) by `ms` before it runs. */
  latency(ms: number, tool?: string): void;
  /** `screencap -p` yields an empty PNG (0 bytes, or with headerOnly signature+IHDR+IEND and no
   * pixel data); raw `screencap` still works. */
  emptyPng(on: boolean, opts?: { headerOnly?: boolean }): void;
  /** Every frame is black (a secure window); the UI tree is unaffected. */
  blackScreen(on: boolean): void;
  /** The next `n` dumps print `ERROR: could not get idle state.` (or `message`), exit 0 and
   * leave any earlier dump file alone. `--compressed` dumps pass unless evenCompressed. */
  idleStateErrors(n: number, opts?: { evenCompressed?: boolean; message?: string }): void;
  /** Output of `screencap -p` to stdout is cut at half: by closing the transport (default, as
   * a dying Wi-Fi link does) or, with dropLink false, by closing just that stream. */
  truncatePng(on: boolean, opts?: { dropLink?: boolean }): void;
  /** Removes every fault. */
  clear(): void;
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
  /** Every OPEN service string received, supported or not, in order. */
  services(): string[];
  /** Recorded argv of each fake-tool call (optionally of one tool), argument bytes intact. */
  toolCalls(tool?: string): string[][];
  screen(): SimScreen;
  /** Puts the screen into a state directly (test setup without adb round trips). */
  setScreen(patch: Partial<ScreenState>): Promise<void>;
  /** Live adb transports (TCP connections that finished the CNXN handshake). */
  transports(): number;
  readonly faults: SimFaults;
  /** Stops the listener, drops connections, kills running commands, removes the temp dir. */
  close(): Promise<void>;
}

export type { ScreenState } from "./screen.ts";

export function startSimPhone(opts: SimPhoneOptions = {}): Promise<SimPhone> {
  return Sim.start(opts);
}

interface FaultState {
  dropAfter: { match: string | RegExp; beforeOpenAck: boolean }[];
  hangs: { pattern: RegExp; execute: boolean }[];
  latency: Map<string | null, number>;
  emptyPng: "zero" | "header" | null;
  black: boolean;
  truncatePng: { dropLink: boolean } | null;
}

function noFaults(): FaultState {
  return {
    dropAfter: [],
    hangs: [],
    latency: new Map(),
    emptyPng: null,
    black: false,
    truncatePng: null,
  };
}

interface CommandResult {
  stdout: Uint8Array;
  stderr: Uint8Array;
  code: number;
}

const EMPTY = new Uint8Array(0);

type Timer = ReturnType<typeof setTimeout>;

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

class Sim implements SimPhone {
  readonly port: number;
  readonly serial: string;
  readonly root: string;
  readonly marker: string;
  readonly faults: SimFaults;

  readonly #opts: Required<Omit<SimPhoneOptions, "port">>;
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
  readonly #children = new Set<Deno.ChildProcess>();
  /** Cancels our reads of running commands' pipes, which a left-behind grandchild may hold. */
  readonly #readCancels = new Set<() => void>();
  /** Pending timers, each with the callback that settles whoever waits on it. */
  readonly #timers = new Map<Timer, () => void>();
  #reopenTimer: Timer | null = null;
  readonly #pending = new Set<Promise<unknown>>();
  #faults: FaultState = noFaults();
  #closed = false;
  #xmlKey = "";
  #pixelKey = "";
  /** Serializes state syncs so concurrent commands never write half-rendered files. */
  #sync: Promise<void> = Promise.resolve();
  /** Serializes reads of the call log: two at once would read the same bytes from one offset. */
  #reading: Promise<unknown> = Promise.resolve();

  private constructor(
    opts: Required<Omit<SimPhoneOptions, "port">>,
    root: string,
    listener: Deno.Listener,
  ) {
    this.#opts = opts;
    this.root = root;
    this.#bin = `${root}/bin`;
    this.#dir = `${root}/.sim`;
    this.marker = `${root}/INJECTED`;
    this.#listener = listener;
    this.port = (listener.addr as Deno.NetAddr).port;
    this.serial = `127.0.0.1:${this.port}`;
    this.faults = this.#makeFaults();
  }

  static async start(o: SimPhoneOptions): Promise<Sim> {
    const shellV2 = o.shellV2 ?? true;
    const opts = {
      width: o.width ?? 1080,
      height: o.height ?? 2400,
      shellV2,
      model: o.model ?? "SimPhone",
      rawHeaderBytes: o.rawHeaderBytes ?? (shellV2 ? 16 : 12),
    };
    const root = await Deno.makeTempDir({ prefix: "phone_eye_sim_" });
    let listener: Deno.Listener | null = null;
    try {
      for (const d of ["sdcard", "data/local/tmp", "bin", ".sim"]) {
        await Deno.mkdir(`${root}/${d}`, { recursive: true });
      }
      await installTools(`${root}/bin`);
      listener = Deno.listen({ hostname: "127.0.0.1", port: o.port ?? 0 });
      const sim = new Sim(opts, root, listener);
      await Deno.writeFile(`${root}/.sim/calls.log`, EMPTY);
      await Deno.writeTextFile(`${root}/.sim/props`, sim.#props());
      await sim.#syncFiles(false);
      sim.track(sim.#acceptLoop(listener));
      return sim;
    } catch (e) {
      listener?.close();
      await Deno.remove(root, { recursive: true }).catch(() => {});
      throw e;
    }
  }

  // ---- public API ----

  commands(): string[] {
    return [...this.#commands];
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
    };
  }

  async setScreen(patch: Partial<ScreenState>): Promise<void> {
    Object.assign(this.#state, patch);
    await this.#syncFiles(false);
  }

  transports(): number {
    return [...this.#transports].filter((t) => t.online).length;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
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
      const t = new Transport(conn, this);
      this.#transports.add(t);
      this.track(t.run().finally(() => this.#transports.delete(t)));
    }
  }

  #props(): string {
    const modern = this.#opts.shellV2;
    const props: Record<string, string> = {
      "ro.product.model": this.#opts.model,
      "ro.product.name": "simphone",
      "ro.product.device": "sim",
      "ro.product.brand": "phoneeye",
      "ro.product.manufacturer": "PhoneEye",
      "ro.product.cpu.abi": "arm64-v8a",
      "ro.build.version.release": modern ? "14" : "6.0.1",
      "ro.build.version.sdk": modern ? "34" : "23",
      "ro.build.fingerprint": modern
        ? "phoneeye/simphone/sim:14/UP1A.231005.007/1:user/release-keys"
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

  /** Writes the state files the fake tools read; pixels only when a command may need them. */
  #syncFiles(pixels: boolean): Promise<void> {
    const run = this.#sync.then(() => this.#doSync(pixels));
    this.#sync = run.catch(() => {});
    return run;
  }

  async #doSync(pixels: boolean): Promise<void> {
    if (this.#closed) return;
    const s = this.#state;
    const size = effectiveSize(s, this.#physical());
    const key = JSON.stringify([s, size]);
    if (key !== this.#xmlKey) {
      const root = layout(s, size);
      await this.#writeAtomic("screen.xml", renderXml(root, false));
      await this.#writeAtomic("screen_compressed.xml", renderXml(root, true));
      for (const [name, text] of Object.entries(this.#dumpsys(size))) {
        await this.#writeAtomic(`dumpsys_${name}`, text);
      }
      const phys = this.#physical();
      await this.#writeAtomic(
        "wm_size",
        `Physical size: ${phys.width}x${phys.height}\n` +
          (s.overrideSize
            ? `Override size: ${s.overrideSize.width}x${s.overrideSize.height}\n`
            : ""),
      );
      await this.#writeAtomic(
        "wm_density",
        "Physical density: 420\n" +
          (s.overrideDensity ? `Override density: ${s.overrideDensity}\n` : ""),
      );
      this.#xmlKey = key;
    }
    const pixelKey = JSON.stringify([key, this.#faults.black]);
    if (pixels && pixelKey !== this.#pixelKey) {
      const canvas = renderPixels(layout(s, size), size, this.#faults.black);
      const png = encodePng(canvas);
      await this.#writeAtomic("screen.png", png);
      await this.#writeAtomic("screen_header.png", headerOnlyPng(png));
      await this.#writeAtomic("screen_zero.png", EMPTY);
      await this.#writeAtomic("screen.raw", rawScreencap(canvas, this.#opts.rawHeaderBytes));
      this.#pixelKey = pixelKey;
    }
  }

  #dumpsys(size: Size): Record<string, string> {
    const s = this.#state;
    const pkg = packageOf(s.app);
    const cls = activityOf(s.app);
    const short = cls.startsWith(`${pkg}.`) ? `.${cls.slice(pkg.length + 1)}` : cls;
    const record = `ActivityRecord{7b3c1d u0 ${pkg}/${short} t12}`;
    const win = `Window{4c1f2a u0 ${pkg}/${cls}}`;
    const { width: w, height: h } = size;
    return {
      window: [
        "WINDOW MANAGER WINDOWS (dumpsys window windows)",
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
        `    init=${this.#opts.width}x${this.#opts.height} 420dpi cur=${w}x${h} app=${w}x${
          h - Math.round(h * 0.08)
        } rng=${w}x${w}-${h}x${h}`,
        "",
      ].join("\n"),
      activity: [
        "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)",
        "Display #0 (activities from top to bottom):",
        `  * Task{5e6f7a #12 type=standard A=10123:${pkg} U=0 visible=true mode=fullscreen translucent=false sz=1}`,
        `    * Hist  #0: ${record}`,
        "",
        `  mResumedActivity: ${record}`,
        `  topResumedActivity=${record}`,
        "",
      ].join("\n"),
      display: [
        "DISPLAY MANAGER (dumpsys display)",
        `  mDefaultViewport=DisplayViewport{type=INTERNAL, valid=true, isActive=true, displayId=0, orientation=0, logicalFrame=Rect(0, 0 - ${w}, ${h}), deviceWidth=${w}, deviceHeight=${h}}`,
        `  mBaseDisplayInfo=DisplayInfo{"Built-in Screen", displayId 0, real ${this.#opts.width} x ${this.#opts.height}, density 420}`,
        "",
      ].join("\n"),
      input: "INPUT MANAGER (dumpsys input)\n  SurfaceOrientation: 0\n  SurfaceRotation: 0\n",
      power: "POWER MANAGER (dumpsys power)\n  mWakefulness=Awake\nDisplay Power: state=ON\n",
    };
  }

  // ---- faults ----

  #faultFile(name: string, content: string | null): void {
    const path = `${this.#dir}/${name}`;
    try {
      if (content === null) Deno.removeSync(path);
      else Deno.writeTextFileSync(path, content);
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
  }

  #makeFaults(): SimFaults {
    return {
      dropNow: () => {
        for (const t of this.#transports) t.drop();
      },
      dropAfterNext: (match, opts) => {
        this.#faults.dropAfter.push({ match, beforeOpenAck: opts?.beforeOpenAck ?? false });
      },
      refuseConnections: (ms) => {
        this.#listener?.close();
        this.#listener = null;
        if (this.#reopenTimer !== null) this.#cancelTimer(this.#reopenTimer);
        this.#reopenTimer = this.#timer(ms, () => {
          this.#reopenTimer = null;
          this.#openListener();
        });
      },
      hang: (pattern, opts) => {
        this.#faults.hangs.push({ pattern, execute: opts?.execute ?? false });
      },
      latency: (ms, tool) => {
        this.#faults.latency.set(tool ?? null, ms);
      },
      emptyPng: (on, opts) => {
        this.#faults.emptyPng = on ? (opts?.headerOnly ? "header" : "zero") : null;
        this.#faultFile("fault_empty_png", this.#faults.emptyPng);
      },
      blackScreen: (on) => {
        this.#faults.black = on;
      },
      idleStateErrors: (n, opts) => {
        this.#faultFile("fault_idle_errors", String(Math.max(0, Math.floor(n))));
        this.#faultFile("fault_idle_even_compressed", opts?.evenCompressed ? "1" : null);
        this.#faultFile(
          "fault_idle_message",
          `${opts?.message ?? "ERROR: could not get idle state."}\n`,
        );
      },
      truncatePng: (on, opts) => {
        this.#faults.truncatePng = on ? { dropLink: opts?.dropLink ?? true } : null;
      },
      clear: () => {
        this.#faults = noFaults();
        this.#faultFile("fault_empty_png", null);
        this.#faultFile("fault_idle_errors", null);
        this.#faultFile("fault_idle_even_compressed", null);
        if (this.#reopenTimer !== null) {
          this.#cancelTimer(this.#reopenTimer);
          this.#reopenTimer = null;
          this.#openListener();
        }
      },
    };
  }

  // ---- commands ----

  recordService(name: string): void {
    this.#services.push(name);
  }

  /**
   * Runs one shell/exec command for a stream. Returns what to send back, or a directive to
   * hang, drop the link, or cut the output.
   */
  async execute(
    command: string,
    merged: boolean,
    ackOpen: () => Promise<void>,
  ): Promise<
    | { kind: "reply"; result: CommandResult; truncate: { dropLink: boolean } | null }
    | { kind: "hang" }
    | { kind: "drop" }
  > {
    this.#commands.push(command);
    const early = this.#faults.dropAfter.findIndex((d) =>
      d.beforeOpenAck &&
      (typeof d.match === "string" ? mentions(command, d.match) : d.match.test(command))
    );
    const earlyDrop = early >= 0 ? this.#faults.dropAfter.splice(early, 1)[0] : undefined;
    // adbd acknowledges the OPEN before it starts the command.
    if (!earlyDrop) await ackOpen();
    const hang = this.#faults.hangs.find((h) => h.pattern.test(command));
    if (hang && !hang.execute) return { kind: "hang" };

    let delay = this.#faults.latency.get(null) ?? 0;
    for (const [tool, ms] of this.#faults.latency) {
      if (tool !== null && mentions(command, tool)) delay = Math.max(delay, ms);
    }
    if (delay > 0) await this.#sleep(delay);
    if (this.#closed) return { kind: "hang" };

    await this.#syncFiles(command.includes("screencap"));
    const cmdId = this.#nextCmdId++;
    const result = await this.#run(command, merged, cmdId);
    const calls = await this.#readCalls();
    for (const c of calls) applyToolCall(this.#state, this.#physical(), c.tool, c.argv);
    await this.#syncFiles(false);
    // A concurrent command's read may have taken this command's calls: look them up in all.
    const mine = this.#calls.filter((c) => c.cmdId === cmdId);

    if (earlyDrop) return { kind: "drop" };
    if (hang) return { kind: "hang" };
    const dropIndex = this.#faults.dropAfter.findIndex(({ match }) =>
      typeof match === "string" ? mine.some((c) => c.tool === match) : match.test(command)
    );
    if (dropIndex >= 0) {
      this.#faults.dropAfter.splice(dropIndex, 1);
      return { kind: "drop" };
    }
    const pngToStdout = mine.some((c) =>
      c.tool === "screencap" && c.argv.includes("-p") &&
      !c.argv.some((a) => !a.startsWith("-") && !/^\d+$/.test(a))
    );
    return {
      kind: "reply",
      result,
      truncate: pngToStdout ? this.#faults.truncatePng : null,
    };
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
    return concat(parts);
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
      const bytes = concat(parts);
      this.#logOffset += bytes.length;
      const calls = this.#parser.push(bytes);
      this.#calls.push(...calls);
      return calls;
    } finally {
      file.close();
    }
  }

  async #run(command: string, merged: boolean, cmdId: number): Promise<CommandResult> {
    // Legacy shell and exec: one stream for both outputs, as adbd's raw subprocess has, so their
    // interleaving is kept. setsid makes the command a process group close() can kill whole.
    const redirect = merged ? " 2>&1" : "";
    const wrapper =
      `if command -v setsid >/dev/null 2>&1; then exec setsid -w sh -c "$1"${redirect}; ` +
      `else exec sh -c "$1"${redirect}; fi`;
    const args = ["-c", wrapper, "sh", command];
    const child = new Deno.Command("sh", {
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
      },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#children.add(child);
    try {
      const [stdout, stderr, status] = await Promise.all([
        this.#collect(child.stdout),
        this.#collect(child.stderr),
        child.status,
      ]);
      // A command killed by a signal reports 128+signal, like adbd does for shell_v2.
      const code = status.signal ? 128 + signalNumber(status.signal) : status.code;
      return { stdout, stderr, code };
    } finally {
      this.#children.delete(child);
    }
  }
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

/** Whether `tool` appears in the command as a word (not inside a path or another name). */
function mentions(command: string, tool: string): boolean {
  const escaped = tool.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(^|[^\\w./-])${escaped}($|[^\\w./-])`).test(command);
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

/** One adb transport: a TCP connection from the adb server, carrying many streams. */
class Transport {
  readonly #conn: Deno.Conn;
  readonly #sim: Sim;
  readonly #streams = new Map<number, Stream>();
  #nextLocalId = 1;
  #maxPayload = 4096;
  #writing: Promise<void> = Promise.resolve();
  #dropped = false;
  online = false;

  constructor(conn: Deno.Conn, sim: Sim) {
    this.#conn = conn;
    this.#sim = sim;
  }

  get maxPayload(): number {
    return this.#maxPayload;
  }

  get dropped(): boolean {
    return this.#dropped;
  }

  drop(): void {
    if (this.#dropped) return;
    this.#dropped = true;
    this.online = false;
    try {
      this.#conn.close();
    } catch { /* already closed */ }
    for (const s of this.#streams.values()) s.abort();
    this.#streams.clear();
  }

  send(msg: AdbMessage): Promise<void> {
    const bytes = encodeMessage(msg);
    const next = this.#writing.then(async () => {
      if (this.#dropped) return;
      let at = 0;
      while (at < bytes.length) at += await this.#conn.write(bytes.subarray(at));
    });
    this.#writing = next.catch(() => this.drop());
    return this.#writing;
  }

  forget(localId: number): void {
    this.#streams.delete(localId);
  }

  async run(): Promise<void> {
    const reader = new MessageReader();
    const buf = new Uint8Array(64 * 1024);
    try {
      for (;;) {
        const n = await this.#conn.read(buf);
        if (n === null) break;
        for (const msg of reader.push(buf.subarray(0, n))) await this.#handle(msg);
      }
    } catch {
      // A reset, a bad header or our own drop(): the transport is gone either way.
    } finally {
      this.drop();
      await this.#writing;
    }
  }

  async #handle(msg: AdbMessage): Promise<void> {
    switch (msg.command) {
      case A_CNXN:
        // The host's arg1 is the largest payload it accepts; we never send more than that.
        this.#maxPayload = Math.max(256, Math.min(msg.arg1, DEVICE_MAX_PAYLOAD));
        await this.send({
          command: A_CNXN,
          arg0: A_VERSION,
          arg1: DEVICE_MAX_PAYLOAD,
          data: this.#sim.banner(),
        });
        this.online = true;
        return;
      case A_OPEN: {
        const name = new TextDecoder().decode(msg.data).replace(/\0.*$/s, "");
        this.#sim.recordService(name);
        const service = parseService(msg.data);
        const remoteId = msg.arg0;
        if (service.kind === "other" || (service.kind === "shell" && service.command === "")) {
          // Not a service this phone offers (sync:, reboot:, interactive shells...): refuse.
          await this.send({ command: A_CLSE, arg0: 0, arg1: remoteId, data: EMPTY });
          return;
        }
        const localId = this.#nextLocalId++;
        const v2 = service.kind === "shell" && service.v2;
        const stream = new Stream(this, this.#sim, localId, remoteId, v2);
        this.#streams.set(localId, stream);
        stream.start(service.command);
        return;
      }
      case A_OKAY:
        this.#streams.get(msg.arg1)?.acked();
        return;
      case A_WRTE: {
        // stdin (and shell_v2's close-stdin packet): acknowledged and ignored, stdin is closed.
        const stream = this.#streams.get(msg.arg1);
        if (stream) {
          await this.send({ command: A_OKAY, arg0: msg.arg1, arg1: msg.arg0, data: EMPTY });
        }
        return;
      }
      case A_CLSE: {
        const stream = this.#streams.get(msg.arg1);
        if (stream) {
          this.#streams.delete(msg.arg1);
          stream.abort();
        }
        return;
      }
    }
  }
}

/** One OPENed service on a transport: runs its command and sends the output with flow control. */
class Stream {
  readonly #t: Transport;
  readonly #sim: Sim;
  readonly #localId: number;
  readonly #remoteId: number;
  readonly #v2: boolean;
  #ack: (() => void) | null = null;
  #aborted = false;

  constructor(t: Transport, sim: Sim, localId: number, remoteId: number, v2: boolean) {
    this.#t = t;
    this.#sim = sim;
    this.#localId = localId;
    this.#remoteId = remoteId;
    this.#v2 = v2;
  }

  acked(): void {
    const resolve = this.#ack;
    this.#ack = null;
    resolve?.();
  }

  abort(): void {
    this.#aborted = true;
    this.acked();
  }

  start(command: string): void {
    // The transport's read loop must keep going while this runs (OKAYs arrive there).
    this.#sim.track(this.#serve(command).catch(() => this.#t.drop()));
  }

  async #serve(command: string): Promise<void> {
    const outcome = await this.#sim.execute(
      command,
      !this.#v2,
      () =>
        this.#t.send({ command: A_OKAY, arg0: this.#localId, arg1: this.#remoteId, data: EMPTY }),
    );
    if (this.#aborted || this.#t.dropped) return;
    if (outcome.kind === "hang") return;
    if (outcome.kind === "drop") {
      this.#t.drop();
      return;
    }
    const { result, truncate } = outcome;
    let payload: Uint8Array;
    if (truncate) {
      const half = result.stdout.subarray(0, Math.floor(result.stdout.length / 2));
      payload = this.#v2 ? shellPacket(SHELL_STDOUT, half) : half;
      await this.#write(payload);
      if (truncate.dropLink) this.#t.drop();
      else await this.#close();
      return;
    }
    if (this.#v2) {
      const parts: Uint8Array[] = [];
      if (result.stdout.length) parts.push(shellPacket(SHELL_STDOUT, result.stdout));
      if (result.stderr.length) parts.push(shellPacket(SHELL_STDERR, result.stderr));
      parts.push(shellPacket(SHELL_EXIT, new Uint8Array([result.code & 0xff])));
      payload = concat(parts);
    } else {
      payload = result.stdout;
    }
    await this.#write(payload);
    await this.#close();
  }

  /** WRTE in chunks the host accepts, waiting for its OKAY after each (adb's flow control). */
  async #write(data: Uint8Array): Promise<void> {
    const max = this.#t.maxPayload;
    for (let at = 0; at < data.length; at += max) {
      if (this.#aborted || this.#t.dropped) return;
      const acked = new Promise<void>((resolve) => (this.#ack = resolve));
      await this.#t.send({
        command: A_WRTE,
        arg0: this.#localId,
        arg1: this.#remoteId,
        data: data.subarray(at, at + max),
      });
      await acked;
    }
  }

  async #close(): Promise<void> {
    if (this.#aborted || this.#t.dropped) return;
    this.#t.forget(this.#localId);
    await this.#t.send({ command: A_CLSE, arg0: this.#localId, arg1: this.#remoteId, data: EMPTY });
  }
}
