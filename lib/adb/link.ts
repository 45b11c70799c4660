// The links to the phones, one policy per server: host-wide adb calls (devices, get-state, connect,
// disconnect, version) within one bound; a listed address attached first; a Wi-Fi drop revived.

import type { PhoneSet } from "../config/config.ts";
import { parseAdbDevices } from "./attached.ts";
import { classifyAdbFailure, connectFailure, type DeviceOutput, deviceOutput } from "./classify.ts";
import { AdbError, type AttachedDevice, isNetworkSerial, restated } from "./errors.ts";
import { createLimiter } from "./queue.ts";
import type { AdbOutcome, AdbRunLimits, RunAdb } from "./runner.ts";

/**
 * Host-wide adb calls at once, whatever the phones: `adb devices`, `get-state`, `connect`,
 * `disconnect`, `wait-for-device`, `version`. Each is an adb process; without a bound, a thousand
 * calls naming serials adb does not list would start a thousand `adb devices` at once.
 */
export const HOST_SLOTS = 2;

/** How long `adb connect` gives the phone to finish its handshake (first use and reconnect). */
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

export interface LinkOptions {
  run: RunAdb;
  /** The adb timeout: each host-wide call's deadline, and the cap of the waits below it. */
  timeoutMs: number;
  /** For adb's install hint when it cannot be started (Deno.build.os). */
  os?: string;
  /** Host-wide adb calls at once (default HOST_SLOTS). */
  slots?: number;
}

/** What a call's adb check of the link found, after a capture came back empty or unreadable. */
export type LinkHealth =
  /** `adb get-state` answered "device" from the server that was running all along. */
  | { kind: "held" }
  /** adb had to start a new server ("daemon not running; starting now"): the old one had stopped. */
  | { kind: "server-restarted" }
  /** adb answered with another state ("offline", "unknown"…). */
  | { kind: "state"; state: string }
  /** The check itself failed. */
  | { kind: "check-failed"; error: AdbError };

/** What phone-eye may do to bring one phone's link up. */
export interface PhoneLinkOptions {
  /**
   * Whether phone-eye may run `adb connect` for this serial. False for a serial an agent named under
   * PHONE_EYE_DEVICES=* or with nothing set (lib/adb/phones.ts): an agent must never make
   * phone-eye connect to an address the user did not list.
   */
  connects: boolean;
  /** Attach before the first command: connect a listed host:port adb does not list. */
  attachFirst: boolean;
}

/** The link to one phone, held privately by its Device. */
export interface PhoneLink {
  /** True when a dropped link may be revived with `adb connect` (a host:port phone-eye may connect). */
  readonly revivable: boolean;
  /** True when `ready` must be awaited before the phone's commands (a listed host:port). */
  readonly attachesFirst: boolean;
  /** Attaches a listed address on its first use (once per server; a failed attach is tried again). */
  ready(): Promise<void>;
  /** How many revivals have ended: a call notes it before its attempt (see revive). */
  readonly generation: number;
  /**
   * Revives the link for a call whose attempt began at generation `startedAt`: joins the revival
   * under way; takes the latest one's answer if it ended after the attempt began; otherwise starts
   * one. Returns `adb connect`'s answer, or null when adb brought the link back itself.
   */
  revive(startedAt: number): Promise<AdbOutcome | null>;
  /** Asks adb whether the link held (`adb get-state`), as data. */
  health(): Promise<LinkHealth>;
}

/** What a server's device errors are told against (Link.within): its phones, and who listens. */
export interface LinkScope {
  /**
   * The phones the server may drive: a device error's advice names the setting in force, and with
   * PHONE_EYE_DEVICES it names no phone outside the list (errors.ts, restated).
   */
  set: PhoneSet;
  /**
   * Told of every device error saying adb has no usable device at `serial` (gone, offline), as it
   * is stated: phones.ts forgets the phone it took for adb's default then.
   */
  missing?: (serial: string | undefined) => void;
}

/** The server's links: one per server, shared by the phone registry and every Device. */
export interface Link {
  /** A host-wide adb call, within the bound, with the adb timeout unless a shorter one is given. */
  runHost(args: readonly string[], timeoutMs?: number): Promise<AdbOutcome>;
  /** runHost, classified: its output, or the AdbError stating why not. */
  host(args: readonly string[]): Promise<DeviceOutput>;
  /** What adb lists (one `adb devices`); null when that failed or said something else. */
  attached(): Promise<AttachedDevice[] | null>;
  /**
   * What adb lists, or the AdbError saying why `adb devices` could not be read (adb missing, its
   * server not answering); null when it answered with something that is not a list.
   */
  listing(): Promise<AttachedDevice[] | AdbError | null>;
  /**
   * Passes `call`'s result on; a device error (one carrying its DeviceTrouble) is stated again
   * naming what adb sees, in the words of the link's scope (within). When `adb devices` itself
   * fails, the first error goes on with only the scope's words.
   */
  namingAttached<T>(call: Promise<T>): Promise<T>;
  /**
   * Connects a host:port adb does not list: one `adb -s X get-state`, and `adb connect` only when
   * that says "not found". Calls at the same time share one attempt.
   */
  connectIfMissing(serial: string): Promise<void>;
  /** The link to one phone (undefined: adb's default device), for its Device. */
  phone(serial: string | undefined, options: PhoneLinkOptions): PhoneLink;
  /**
   * The same links told against `scope`: the host bound is shared (one per server whatever the
   * scope); the first-use attaches and the device errors' words are the scoped link's own.
   */
  within(scope: LinkScope): Link;
}

export function createLink(options: LinkOptions): Link {
  const { run, timeoutMs } = options;
  const os = options.os ?? "linux";
  const slots = createLimiter(options.slots ?? HOST_SLOTS);

  function runHost(args: readonly string[], deadlineMs = timeoutMs): Promise<AdbOutcome> {
    const limits: AdbRunLimits = { timeoutMs: deadlineMs, output: "text" };
    return slots.use(() => run(args, limits));
  }

  const classified = (outcome: AdbOutcome, args: readonly string[]) =>
    classifyAdbFailure(outcome, { serial: undefined, command: args.join(" "), acts: false }, os);

  async function host(args: readonly string[]): Promise<DeviceOutput> {
    const result = classified(await runHost(args), args);
    if (!result.ok) throw result.error;
    return deviceOutput(result);
  }

  async function listing(): Promise<AttachedDevice[] | AdbError | null> {
    const result = classified(await runHost(["devices"]), ["devices"]);
    return result.ok ? parseAdbDevices(decode(result.stdout)) : result.error;
  }

  return linkWithin({ runHost, host, listing, timeoutMs }, undefined);
}

/** The links over one server's bounded host calls, told against `scope` (Link.within). */
function linkWithin(calls: HostCalls, scope: LinkScope | undefined): Link {
  const attached = async () => {
    const list = await calls.listing();
    return list instanceof AdbError ? null : list;
  };

  async function namingAttached<T>(call: Promise<T>): Promise<T> {
    try {
      return await call;
    } catch (error) {
      if (!(error instanceof AdbError) || error.trouble === undefined) throw error;
      const list = await attached();
      if (list === null && scope === undefined) throw error;
      const { trouble } = error;
      if (trouble.missing) scope?.missing?.(trouble.serial);
      throw restated(error, { attached: list ?? undefined, set: scope?.set });
    }
  }

  const attaching = createAttaching({ ...calls, namingAttached });
  return {
    runHost: calls.runHost,
    host: calls.host,
    attached,
    listing: calls.listing,
    namingAttached,
    connectIfMissing: attaching.connectIfMissing,
    phone: (serial, options) =>
      createPhoneLink({ ...calls, attach: attaching.attach }, serial, options),
    within: (next) => linkWithin(calls, next),
  };
}

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** What the per-phone parts of a link use of the server's: its bounded host calls. */
interface HostCalls {
  runHost: Link["runHost"];
  host: Link["host"];
  listing: Link["listing"];
  timeoutMs: number;
}

/** Attaches a listed address before its first command, once per server (createAttaching). */
type Attach = (serial: string) => Promise<void>;

/**
 * The first-use connects of the server's listed addresses: calls at the same time share one
 * attempt per serial, and a serial attached once is not asked about again.
 */
function createAttaching(
  calls: HostCalls & { namingAttached: Link["namingAttached"] },
): { connectIfMissing: Link["connectIfMissing"]; attach: Attach } {
  const { runHost, timeoutMs, namingAttached } = calls;
  const inFlight = new Map<string, Promise<void>>();
  function connectIfMissing(serial: string): Promise<void> {
    const running = inFlight.get(serial);
    if (running) return running;
    const attempt = (async () => {
      const state = await runHost(["-s", serial, "get-state"]);
      // Listed in any state (device, offline, unauthorized): not ours to connect; the call says.
      if (state.kind !== "exited" || !/\bnot found\b/.test(state.stderr)) return;
      const answer = await runHost(["connect", serial]);
      const failure = connectFailure(answer, { serial });
      if (failure) throw failure;
      await runHost(["-s", serial, "wait-for-device"], Math.min(timeoutMs, READY_WAIT_MS));
    })().finally(() => inFlight.delete(serial));
    inFlight.set(serial, attempt);
    return attempt;
  }

  /**
   * The first use of a listed host:port phone: connected once; a later drop is the phone link's to
   * revive (with the Device's replay rules). A failed attach is forgotten, so the next call tries
   * again. A failed attach names what adb sees, as every device error does.
   */
  const attachedOnce = new Set<string>();
  function attach(serial: string): Promise<void> {
    return namingAttached((async () => {
      if (attachedOnce.has(serial)) return;
      await connectIfMissing(serial);
      attachedOnce.add(serial);
    })());
  }
  return { connectIfMissing, attach };
}

/**
 * Revives a Wi-Fi device. A device that blipped stays "offline", and `adb connect` then answers
 * "already connected" without reviving it (connect_device's EALREADY branch,
 * https://github.com/aosp-mirror/platform_system_core/blob/589da1a0e0220d9443dbdd03e9fb2a659bfd2f8c/adb/transport_local.cpp#L130-L131,
 * and docs/android.md), so the serial is disconnected first. Returns `adb connect`'s answer, which
 * each waiting call reads with connectFailure for its own command, or null when adb brought the
 * link back itself (before the call got here, or within REVIVAL_WAIT_MS of it).
 */
async function reconnect(calls: HostCalls, wifiSerial: string): Promise<AdbOutcome | null> {
  const { runHost, timeoutMs } = calls;
  // adb's server revives a dropped TCP device by itself about 250 ms after the drop when the
  // phone answers (measured with adb 29.0.6 and 34.0.5 against the simulated phone). A call that
  // got here later finds the link already back: cutting it again would only break the commands
  // now running on it.
  const state = await runHost(["-s", wifiSerial, "get-state"]);
  if (state.kind === "exited" && state.code === 0 && decode(state.stdout).trim() === "device") {
    return null;
  }
  // Offline is a device adb still holds and is retrying: its first retry is due within
  // REVIVAL_WAIT_MS, and `wait-for-device` returns the moment it succeeds (an event, not a poll).
  // A device adb no longer lists ("not found") is connected at once.
  if (state.kind === "exited" && /\bdevice offline\b/.test(state.stderr)) {
    const revived = await runHost(
      ["-s", wifiSerial, "wait-for-device"],
      Math.min(timeoutMs, REVIVAL_WAIT_MS),
    );
    if (revived.kind === "exited" && revived.code === 0) return null;
  }
  await runHost(["disconnect", wifiSerial]);
  const answer = await runHost(["connect", wifiSerial]);
  // "connected to" means the socket is open, not that the handshake is done: for a moment the
  // device is listed as offline and a replay sent then fails as "no device". Wait for the
  // state to become "device" (an event adb reports), bounded; if it never does, the replay
  // says why.
  if (connectFailure(answer, { serial: wifiSerial }) === null) {
    await runHost(["-s", wifiSerial, "wait-for-device"], Math.min(timeoutMs, READY_WAIT_MS));
  }
  return answer;
}

/** One phone's link: its first-use attach, its revivals and their generation, its health check. */
function createPhoneLink(
  calls: HostCalls & { attach: Attach },
  serial: string | undefined,
  options: PhoneLinkOptions,
): PhoneLink {
  // Only a host:port can be connected, and only when phone-eye may connect it.
  const wifiSerial = options.connects && isNetworkSerial(serial) ? serial : undefined;
  const attachesFirst = wifiSerial !== undefined && options.attachFirst;
  // The link's generation: how many reconnects have ended. A call whose attempt began before the
  // latest reconnect ended failed on the old link; reconnecting again for it would cut the
  // replays running on the new one (phone_look's two channels fail a moment apart on one drop).
  let generation = 0;
  // The reconnect under way, shared by every call that finds the link dropped meanwhile.
  let reconnecting: Promise<AdbOutcome | null> | undefined;
  // What the latest reconnect's `adb connect` answered, for calls that failed on the old link.
  let lastConnect: AdbOutcome | null | undefined;
  const target = serial === undefined ? [] : ["-s", serial];

  return {
    revivable: wifiSerial !== undefined,
    attachesFirst,
    get generation() {
      return generation;
    },
    ready: () =>
      attachesFirst && wifiSerial !== undefined ? calls.attach(wifiSerial) : Promise.resolve(),
    // The state changes in one synchronous step, so no caller sees a half-finished reconnect.
    revive(startedAt) {
      if (wifiSerial === undefined) throw new Error(`not a link phone-eye may revive: ${serial}`);
      if (reconnecting) return reconnecting;
      if (startedAt !== generation && lastConnect !== undefined) {
        return Promise.resolve(lastConnect);
      }
      reconnecting = reconnect(calls, wifiSerial).then((answer) => {
        lastConnect = answer;
        generation += 1;
        reconnecting = undefined;
        return answer;
      });
      return reconnecting;
    },
    async health() {
      let said: DeviceOutput;
      try {
        said = await calls.host([...target, "get-state"]);
      } catch (error) {
        if (!(error instanceof AdbError)) throw error;
        return { kind: "check-failed", error };
      }
      if (/daemon not running|daemon started/i.test(said.stderr)) {
        return { kind: "server-restarted" };
      }
      const state = decode(said.stdout).trim();
      return state === "device" ? { kind: "held" } : { kind: "state", state };
    },
  };
}
