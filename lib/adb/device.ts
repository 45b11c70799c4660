// The phone as phone-eye sees it: every device call goes through run(), which takes its turn in the
// phone's queue, classifies failures, revives a dropped Wi-Fi link once, and replays only reads.

import { type DeviceCommand, deviceShellLine, wmSizeCommand } from "./commands.ts";
import { parseWmSize } from "./output.ts";
import { excerpt } from "../core/text.ts";
import type { Size } from "../core/geometry.ts";
import type { UiElement } from "../screen/ui_tree.ts";
import {
  type AdbCallContext,
  AdbError,
  type AdbResult,
  isNetworkSerial,
  mayHaveHappened,
} from "./errors.ts";
import { classifyAdbFailure, classifyExitStatus, connectFailure } from "./classify.ts";
import { namingAttached } from "./attached.ts";
import { readExitMarker, withExitMarker } from "./exit_marker.ts";
import {
  createLimiter,
  createPhoneQueue,
  HOST_SLOTS,
  type Limiter,
  type PhoneQueue,
} from "./queue.ts";
import type { AdbOutcome, RunAdb } from "./runner.ts";

export interface DeviceOutput {
  stdout: Uint8Array;
  stderr: string;
  /** stdout decoded as UTF-8, followed by stderr: what a text-reading verb inspects. */
  text: string;
  /** The device command's exit status (text commands); 0 for exec-out, which has none. */
  status: number;
}

export interface RunOptions {
  /** What the tool is doing, for messages: "tap", "take a screenshot". */
  action: string;
  /**
   * Checks output that adb reported as a success. Returning false marks the run as a transport
   * failure (e.g. a PNG cut short when the link died mid-transfer, which adb still exits 0 for).
   */
  complete?: (stdout: Uint8Array) => boolean;
  /**
   * The verb reads the command's exit status itself (DeviceOutput.status), because the status
   * alone does not tell what happened (`am start` exits 0 or 1 for the same error, monkey 252).
   * adb's own failures are still errors.
   */
  ownStatus?: boolean;
  /**
   * The call's cancel: a call still waiting for its turn leaves the queue; a read is stopped (adb
   * killed) once every call sharing it has cancelled; an action already started is let finish.
   * Either way the promise rejects with CANCELLED at once.
   */
  signal?: AbortSignal | undefined;
}

export interface Device {
  readonly serial: string | undefined;
  run(command: DeviceCommand, options: RunOptions): Promise<DeviceOutput>;
  /** The screen size input coordinates live in (`wm size`, override first); cached per server. */
  screenSize(action: string): Promise<Size>;
  /** Runs a host-side adb command (version, devices): no device, no reconnect, no queue. */
  host(args: readonly string[], action: string): Promise<DeviceOutput>;
  /**
   * What this phone has shown it does its own way, learned once per server so later calls skip
   * the attempt: `ttyDumpRefused` once `uiautomator dump /dev/tty` printed no XML (screen.ts).
   */
  readonly quirks: DeviceQuirks;
  /** The last screen phone-eye read on this phone, so an action can say what it changed (settle.ts). */
  readonly seen: SeenScreen;
}

export interface DeviceQuirks {
  ttyDumpRefused: boolean;
}

/** A UI tree phone-eye read, with the focused window and keyboard when that read asked for them. */
export interface ScreenReading {
  elements: UiElement[];
  /** mCurrentFocus's `package/activity`, or undefined when the read did not ask (a look's tree). */
  focus: string | undefined;
  keyboard: boolean | undefined;
  /** When it was read, on the server's clock. */
  at: number;
}

export interface SeenScreen {
  last: ScreenReading | undefined;
}

export interface DeviceOptions {
  run: RunAdb;
  serial: string | undefined;
  timeoutMs: number;
  os?: string;
  /**
   * The bound on host-wide adb calls (devices, connect, get-state) at once: one limiter of
   * HOST_SLOTS shared by every Device of a server. A Device made alone gets its own.
   */
  hostSlots?: Limiter;
  /**
   * Whether phone-eye may run `adb connect` for this serial to revive a dropped Wi-Fi link (default
   * true). False for a serial an agent named under PHONE_EYE_DEVICES=* (lib/adb/phones.ts): an agent
   * must never make phone-eye connect to an address the user did not list.
   */
  connects?: boolean;
}

/** How long a reconnect waits for the revived device to finish its handshake. */
const READY_WAIT_MS = 5_000;

/**
 * How long a reconnect gives adb's own server to revive an offline Wi-Fi device before cutting
 * it: adb retries a dropped TCP device by itself about 250 ms after the drop when the phone
 * answers (adb 29.0.6 and 34.0.5 against the simulated phone), and not again for seconds (adb 34:
 * every 3 s; adb 29: not within 9.5 s). Waiting past that first retry means phone-eye's own
 * disconnect never cuts a link adb has just brought back; a phone that is really gone is told so
 * this much later.
 */
const REVIVAL_WAIT_MS = 1_500;

export function createDevice(options: DeviceOptions): Device {
  const { run, serial, timeoutMs } = options;
  const os = options.os ?? "linux";
  // This phone's turn-taking (queue.ts): each Device owns its own, so phones never wait on each other.
  const queue: PhoneQueue = createPhoneQueue();
  const hostSlots = options.hostSlots ?? createLimiter(HOST_SLOTS);
  /** A host-wide adb call, within the server's HOST_SLOTS. */
  const hostRun: RunAdb = (args, limits) => hostSlots.use(() => run(args, limits));
  const target = serial === undefined ? [] : ["-s", serial];
  const revivable = (options.connects ?? true) && isNetworkSerial(serial);
  let size: Size | undefined;
  // The link's generation: how many reconnects have ended. A call whose attempt began before the
  // latest reconnect ended failed on the old link; reconnecting again for it would cut the replays
  // running on the new one (phone_look's two channels fail a moment apart on the same drop).
  let generation = 0;
  // The reconnect under way, shared by every call that finds the link dropped meanwhile.
  let reconnecting: Promise<AdbOutcome | null> | undefined;
  // What the latest reconnect's `adb connect` answered, for calls that failed on the old link.
  let lastConnect: AdbOutcome | null | undefined;

  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  const output = (o: { stdout: Uint8Array; stderr: string; status?: number }): DeviceOutput => ({
    stdout: o.stdout,
    stderr: o.stderr,
    text: o.stderr ? `${decode(o.stdout)}${o.stderr}` : decode(o.stdout),
    status: o.status ?? 0,
  });

  /** One run of a device command: adb's verdict, then for text commands the command's own. */
  async function attempt(
    command: DeviceCommand,
    opts: RunOptions,
  ): Promise<AdbResult & { status?: number }> {
    const outcome = await run([...target, command.service, withExitMarker(command)], {
      timeoutMs,
      output: command.output,
      // Only a read may be stopped halfway; an action sent to the phone is let finish.
      signal: command.replayable ? opts.signal : undefined,
    });
    const ctx: AdbCallContext = {
      action: opts.action,
      serial,
      command: `${command.service} ${deviceShellLine(command)}`,
      acts: !command.replayable,
    };
    const ran = classifyAdbFailure(outcome, ctx, os);
    if (!ran.ok) return ran;
    const result = command.service === "shell" ? commandStatus(ran, ctx, opts) : ran;
    if (result.ok && opts.complete?.(result.stdout) === false) return cutShort(ctx);
    return result;
  }

  /**
   * A text command's own verdict, read from the exit marker that ends its reply; with ownStatus
   * the status is handed back instead of judged.
   */
  function commandStatus(
    ran: { stdout: Uint8Array; stderr: string },
    ctx: AdbCallContext,
    opts: RunOptions,
  ): AdbResult & { status?: number } {
    const marked = readExitMarker(ran.stdout);
    if (marked === null) return cutShort(ctx);
    const own = { stdout: marked.stdout, stderr: ran.stderr };
    if (!opts.ownStatus) return classifyExitStatus(marked.status, own, ctx);
    const result = classifyExitStatus(0, own, ctx);
    return result.ok ? { ...result, status: marked.status } : result;
  }

  /**
   * A reply without its end. A Wi-Fi link is revived and the command replayed or not (runOnce), so
   * this message is the last word only on USB, on the default device, or for a replay.
   */
  function cutShort(ctx: AdbCallContext): AdbResult {
    const what = `the phone's answer was cut short (the link to ${
      serial ?? "the phone"
    } dropped mid-command)`;
    return {
      ok: false,
      error: new AdbError(
        "TRANSPORT",
        ctx.acts
          ? mayHaveHappened(ctx.action, what, "check the cable or Wi-Fi link")
          : `Cannot ${ctx.action}: ${what}${
            revivable ? " even after reconnecting once" : ""
          }; check the cable or Wi-Fi link, then call the tool again`,
      ),
    };
  }

  const hostLimits = { timeoutMs, output: "text" } as const;

  /**
   * Revives a Wi-Fi device. A device that blipped stays "offline", and `adb connect` then answers
   * "already connected" without reviving it (connect_device's EALREADY branch,
   * https://github.com/aosp-mirror/platform_system_core/blob/589da1a0e0220d9443dbdd03e9fb2a659bfd2f8c/adb/transport_local.cpp#L130-L131,
   * and ANDROID.md), so the serial is disconnected first. Returns `adb connect`'s answer, which
   * each waiting call reads with connectFailure in its own words, or null when adb brought the
   * link back itself (before the call got here, or within REVIVAL_WAIT_MS of it).
   */
  async function reconnect(wifiSerial: string): Promise<AdbOutcome | null> {
    // adb's server revives a dropped TCP device by itself about 250 ms after the drop when the
    // phone answers (measured with adb 29.0.6 and 34.0.5 against the simulated phone). A call that
    // got here later finds the link already back: cutting it again would only break the commands
    // now running on it.
    const state = await hostRun(["-s", wifiSerial, "get-state"], hostLimits);
    if (state.kind === "exited" && state.code === 0 && decode(state.stdout).trim() === "device") {
      return null;
    }
    // Offline is a device adb still holds and is retrying: its first retry is due within
    // REVIVAL_WAIT_MS, and `wait-for-device` returns the moment it succeeds (an event, not a poll).
    // A device adb no longer lists ("not found") is connected at once.
    if (state.kind === "exited" && /\bdevice offline\b/.test(state.stderr)) {
      const revived = await hostRun(["-s", wifiSerial, "wait-for-device"], {
        ...hostLimits,
        timeoutMs: Math.min(timeoutMs, REVIVAL_WAIT_MS),
      });
      if (revived.kind === "exited" && revived.code === 0) return null;
    }
    await hostRun(["disconnect", wifiSerial], hostLimits);
    const answer = await hostRun(["connect", wifiSerial], hostLimits);
    // "connected to" means the socket is open, not that the handshake is done: for a moment the
    // device is listed as offline and a replay sent then fails as "no device". Wait for the
    // state to become "device" (an event adb reports), bounded; if it never does, the replay
    // says why.
    if (connectFailure(answer, "reconnect", wifiSerial) === null) {
      await hostRun(["-s", wifiSerial, "wait-for-device"], {
        ...hostLimits,
        timeoutMs: Math.min(timeoutMs, READY_WAIT_MS),
      });
    }
    return answer;
  }

  /**
   * Revives the link for a call whose attempt began at generation `startedAt`: joins the reconnect
   * under way; takes the latest one's answer if it ended after the attempt began; otherwise starts
   * one. The state changes in one synchronous step, so no caller sees a half-finished reconnect.
   */
  function revive(wifiSerial: string, startedAt: number): Promise<AdbOutcome | null> {
    if (reconnecting) return reconnecting;
    if (startedAt !== generation && lastConnect !== undefined) return Promise.resolve(lastConnect);
    reconnecting = reconnect(wifiSerial).then((answer) => {
      lastConnect = answer;
      generation += 1;
      reconnecting = undefined;
      return answer;
    });
    return reconnecting;
  }

  async function runOnce(command: DeviceCommand, opts: RunOptions): Promise<DeviceOutput> {
    const startedAt = generation;
    const first = await attempt(command, opts);
    if (first.ok) return output(first);
    const error = first.error;
    // Cancelled: nobody reads the answer, so no reconnect and no replay.
    if (error.code === "CANCELLED" || opts.signal?.aborted) throw error;
    if ((error.code === "NO_DEVICE" || error.code === "TRANSPORT") && revivable && serial) {
      const acts = !command.replayable;
      // TRANSPORT: the command may have reached the phone. NO_DEVICE: adb refused before sending.
      const uncertain = acts && error.code === "TRANSPORT";
      const answer = await revive(serial, startedAt);
      const failure = answer && connectFailure(answer, opts.action, serial, uncertain);
      if (failure) throw failure;
      if (acts) {
        throw new AdbError(
          "RECONNECTED",
          mayHaveHappened(
            opts.action,
            `the link to ${serial} had dropped; phone-eye reconnected but did not repeat the command, because the phone may already have received it (repeating a tap could tap twice)`,
            "the link is back, so the tool can be called again once the screen shows it is still needed",
          ),
          { cause: error },
        );
      }
      const second = await attempt(command, opts);
      if (second.ok) return output(second);
      throw second.error;
    }
    throw error;
  }

  /** runOnce, with a device error's message naming what adb sees (attached.ts). */
  const runNaming = (command: DeviceCommand, opts: RunOptions) =>
    namingAttached(runOnce(command, opts), hostRun, timeoutMs);

  /**
   * runNaming in the phone's queue. Reads share by their command value and the caller's words
   * (action, ownStatus): two calls sharing a run also share its error message, which names the
   * action. A run's own signal aborts only once every sharer has cancelled.
   */
  const runQueued = (command: DeviceCommand, opts: RunOptions): Promise<DeviceOutput> =>
    queue.run({
      action: opts.action,
      acts: !command.replayable,
      share: command.replayable
        ? JSON.stringify([command, opts.action, opts.ownStatus === true])
        : undefined,
      work: (signal) => runNaming(command, { ...opts, signal }),
    }, opts.signal);

  return {
    serial,
    quirks: { ttyDumpRefused: false },
    seen: { last: undefined },
    run: runQueued,
    async screenSize(action) {
      if (size) return size;
      const out = await runQueued(wmSizeCommand(), { action });
      const parsed = parseWmSize(out.text);
      if (!parsed) {
        throw new AdbError(
          "COMMAND_FAILED",
          `Cannot ${action}: could not read the screen size from "wm size" (${excerpt(out.text)})`,
        );
      }
      size = parsed;
      return size;
    },
    async host(args, action) {
      const outcome = await hostRun(args, hostLimits);
      const result = classifyAdbFailure(
        outcome,
        { action, serial: undefined, command: args.join(" "), acts: false },
        os,
      );
      if (!result.ok) throw result.error;
      return output(result);
    },
  };
}

/** A fresh device path for one UI dump, so a failed dump can never be read as the current one. */
export function freshDumpPath(): string {
  return `/data/local/tmp/phone-eye-${crypto.randomUUID()}.xml`;
}
