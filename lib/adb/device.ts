// The phone as phone-eye sees it: every device call goes through run(), which takes its turn in the
// phone's queue, classifies failures, revives a dropped Wi-Fi link once (link.ts), replays reads.

import { type DeviceCommand, deviceShellLine, wmSizeCommand } from "./commands.ts";
import { parseWmSize } from "./output.ts";
import { excerpt } from "../core/text.ts";
import type { Size } from "../core/geometry.ts";
import { type AdbCallContext, AdbError, type AdbResult } from "./errors.ts";
import {
  classifyAdbFailure,
  classifyExitStatus,
  connectFailure,
  type DeviceOutput,
  deviceOutput,
} from "./classify.ts";
import { readExitMarker, withExitMarker } from "./exit_marker.ts";
import { createLink, type Link, type LinkHealth, type PhoneLink } from "./link.ts";
import { createPhoneQueue, type PhoneQueue } from "./queue.ts";
import type { RunAdb } from "./runner.ts";

export type { DeviceOutput };

export interface RunOptions {
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
  run(command: DeviceCommand, options?: RunOptions): Promise<DeviceOutput>;
  /**
   * The screen size input coordinates live in (`wm size`, override first); cached per server.
   * `signal` (a caller's cancel or budget) stops the read while it is not yet cached.
   */
  screenSize(signal?: AbortSignal): Promise<Size>;
  /** Asks adb whether the link to this phone held (`adb get-state`, within the host bound). */
  linkHealth(): Promise<LinkHealth>;
}

export interface DeviceOptions {
  run: RunAdb;
  serial: string | undefined;
  timeoutMs: number;
  os?: string;
  /**
   * The server's links (link.ts): the host-wide bound, first-use attach and revival every Device of
   * a server shares. A Device made alone gets its own.
   */
  link?: Link;
  /**
   * Whether phone-eye may run `adb connect` for this serial, to revive a dropped Wi-Fi link or to
   * attach it (default true). False for a serial an agent named under PHONE_EYE_DEVICES=*
   * (lib/adb/phones.ts): an agent must never make phone-eye connect to an address the user did
   * not list.
   */
  connects?: boolean;
  /** Connect a host:port adb does not list before its first command (a listed one; default false). */
  attachFirst?: boolean;
}

export function createDevice(options: DeviceOptions): Device {
  const { run, serial, timeoutMs } = options;
  const os = options.os ?? "linux";
  // This phone's turn-taking (queue.ts): each Device owns its own, so phones never wait on each other.
  const queue: PhoneQueue = createPhoneQueue();
  const links = options.link ?? createLink({ run, timeoutMs, os });
  const link: PhoneLink = links.phone(serial, {
    connects: options.connects ?? true,
    attachFirst: options.attachFirst ?? false,
  });
  const phone = { run, serial, timeoutMs, os, revivable: link.revivable, link };
  let size: Size | undefined;

  /**
   * runOnce in the phone's queue, with a device error naming what adb sees. Reads share by what
   * they read: the command value, and whether the caller judges its status itself (ownStatus),
   * which changes what the run returns. A shared run's error is facts, which each caller's verb
   * words in its own terms. A run's own signal aborts only once every sharer has cancelled.
   */
  const runQueued = (command: DeviceCommand, opts: RunOptions = {}): Promise<DeviceOutput> =>
    queue.run({
      acts: !command.replayable,
      share: command.replayable ? JSON.stringify([command, opts.ownStatus === true]) : undefined,
      work: (signal) => links.namingAttached(runOnce(phone, command, { ...opts, signal })),
    }, opts.signal);

  /** runQueued, after the first-use attach of a listed address (link.ts) when this phone has one. */
  const runReady = link.attachesFirst
    ? async (command: DeviceCommand, opts?: RunOptions) => {
      await link.ready();
      return await runQueued(command, opts);
    }
    : runQueued;

  async function screenSize(signal?: AbortSignal): Promise<Size> {
    if (link.attachesFirst) await link.ready();
    if (size) return size;
    const out = await runQueued(wmSizeCommand(), { signal });
    const parsed = parseWmSize(out.text);
    if (!parsed) {
      throw new AdbError("COMMAND_FAILED", {
        what: `could not read the screen size from "wm size" (${excerpt(out.text)})`,
      });
    }
    size = parsed;
    return size;
  }

  return {
    serial,
    run: runReady,
    screenSize,
    linkHealth: () => link.health(),
  };
}

/**
 * One device command with the link's rules: a Wi-Fi link that dropped is revived once (link.ts),
 * then a read is replayed and an action is reported as possibly done, never repeated.
 */
async function runOnce(
  phone: PhoneRun & { link: PhoneLink },
  command: DeviceCommand,
  opts: RunOptions,
): Promise<DeviceOutput> {
  const { link, serial } = phone;
  const startedAt = link.generation;
  const first = await attempt(phone, command, opts);
  if (first.ok) return deviceOutput(first);
  const error = first.error;
  // Cancelled: nobody reads the answer, so no reconnect and no replay.
  if (error.code === "CANCELLED" || opts.signal?.aborted) throw error;
  if ((error.code === "NO_DEVICE" || error.code === "TRANSPORT") && link.revivable && serial) {
    const acts = !command.replayable;
    // TRANSPORT: the command may have reached the phone. NO_DEVICE: adb refused before sending.
    const uncertain = acts && error.code === "TRANSPORT";
    const answer = await link.revive(startedAt);
    const failure = answer && connectFailure(answer, { serial, uncertain });
    if (failure) throw failure;
    if (acts) {
      throw new AdbError("RECONNECTED", {
        what:
          `the link to ${serial} had dropped; phone-eye reconnected but did not repeat the command, because the phone may already have received it (repeating a tap could tap twice)`,
        fix:
          "the link is back, so the tool can be called again once the screen shows it is still needed",
        uncertain: true,
      }, { cause: error });
    }
    const second = await attempt(phone, command, opts);
    if (second.ok) return deviceOutput(second);
    throw second.error;
  }
  throw error;
}

/** What one attempt at a device command needs to know of its phone. */
interface PhoneRun {
  run: RunAdb;
  serial: string | undefined;
  timeoutMs: number;
  os: string;
  /** Whether a dropped link is revived (link.ts), which a cut-short message mentions. */
  revivable: boolean;
}

/** One run of a device command: adb's verdict, then for text commands the command's own. */
async function attempt(
  phone: PhoneRun,
  command: DeviceCommand,
  opts: RunOptions,
): Promise<AdbResult & { status?: number }> {
  const { run, serial, timeoutMs, os } = phone;
  const target = serial === undefined ? [] : ["-s", serial];
  const outcome = await run([...target, command.service, withExitMarker(command)], {
    timeoutMs,
    output: command.output,
    // Only a read may be stopped halfway; an action sent to the phone is let finish.
    signal: command.replayable ? opts.signal : undefined,
  });
  const ctx: AdbCallContext = {
    serial,
    command: `${command.service} ${deviceShellLine(command)}`,
    acts: !command.replayable,
  };
  const ran = classifyAdbFailure(outcome, ctx, os);
  if (!ran.ok) return ran;
  const result = command.service === "shell" ? commandStatus(phone, ran, ctx, opts) : ran;
  if (result.ok && opts.complete?.(result.stdout) === false) return cutShort(phone, ctx);
  return result;
}

/**
 * A text command's own verdict, read from the exit marker that ends its reply; with ownStatus
 * the status is handed back instead of judged.
 */
function commandStatus(
  phone: PhoneRun,
  ran: { stdout: Uint8Array; stderr: string },
  ctx: AdbCallContext,
  opts: RunOptions,
): AdbResult & { status?: number } {
  const marked = readExitMarker(ran.stdout);
  if (marked === null) return cutShort(phone, ctx);
  const own = { stdout: marked.stdout, stderr: ran.stderr };
  if (!opts.ownStatus) return classifyExitStatus(marked.status, own, ctx);
  const result = classifyExitStatus(0, own, ctx);
  return result.ok ? { ...result, status: marked.status } : result;
}

/**
 * A reply without its end. A Wi-Fi link is revived and the command replayed or not (runOnce), so
 * this message is the last word only on USB, on the default device, or for a replay.
 */
function cutShort(phone: PhoneRun, ctx: AdbCallContext): AdbResult {
  const what = `the phone's answer was cut short (the link to ${
    phone.serial ?? "the phone"
  } dropped mid-command)`;
  return {
    ok: false,
    error: new AdbError(
      "TRANSPORT",
      ctx.acts ? { what, fix: "check the cable or Wi-Fi link", uncertain: true } : {
        what: `${what}${phone.revivable ? " even after reconnecting once" : ""}`,
        fix: "check the cable or Wi-Fi link, then call the tool again",
      },
    ),
  };
}
