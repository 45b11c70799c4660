// The phones one server may drive: the rule that picks a call's phone from its `device` argument
// (checked against the PhoneSet before any adb call), and one Device per phone, made on first use.

import type { PhoneSet } from "../config/config.ts";
import type { Device, DeviceOutput } from "./device.ts";
import { adbCannotRun, AdbError, type AttachedDevice, isNetworkSerial } from "./errors.ts";
import type { Link } from "./link.ts";
import { type ClientShares, createClientShares } from "./queue.ts";
import { AgentError } from "../core/errors.ts";

export type { AttachedDevice };

/**
 * What the phones' rule refuses: a phone outside the set, or no phone named where several may be.
 * Worded here, whole: the refusal is about which phone, not about the verb, so it reads the same
 * from every verb.
 */
export class PhoneChoiceError extends AgentError<"UNKNOWN_PHONE" | "WHICH_PHONE"> {
  override name = "PhoneChoiceError";
}

/** The registry the tools share, one per server. */
export interface Phones {
  readonly set: PhoneSet;
  /**
   * The phone a call drives. `device` undefined: the only phone the set allows, or a refusal listing
   * the choices. A `device` outside the set is refused naming the set, before any adb call (with
   * PHONE_EYE_DEVICES=* and with nothing set, after one `adb devices`, never an `adb connect`).
   */
  resolve(device: string | undefined): Promise<Device>;
  /**
   * resolve, with the call counted in its client's share of that phone until `release` (queue.ts,
   * ClientShares): one client cannot hold every call a phone takes. Refused at once with BUSY past
   * the share. `client` undefined: the server's only client (stdio, the doctor), which may use the
   * whole phone.
   */
  admit(device: string | undefined, client: string | undefined): Promise<PhoneTurn>;
  /**
   * The phones this server may drive, each with adb's state for it ("not attached" when adb does
   * not list it): the listed ones (host:port ones connected first), or every phone adb lists.
   */
  roster(): Promise<AttachedDevice[]>;
  /** Runs a host-side adb command (version, devices) within the host bound (link.ts): no phone. */
  host(args: readonly string[]): Promise<DeviceOutput>;
}

/** A call's phone, held in its client's share until `release` (called once the call has ended). */
export interface PhoneTurn {
  device: Device;
  release(): void;
}

export interface PhonesOptions {
  set: PhoneSet;
  /**
   * The server's links (link.ts): every adb call this registry makes goes through them, told
   * against the set (Link.within).
   */
  link: Link;
  /** Makes the Device for one phone, on the registry's link (main.ts: createDevice). */
  makeDevice: (phone: PhoneToMake) => Device;
}

/** What the registry asks of a phone's Device (lib/adb/device.ts's DeviceOptions). */
export interface PhoneToMake {
  /** The serial, or undefined for adb's default device. */
  serial: string | undefined;
  /** Whether it may run `adb connect` for this serial: false for a serial an agent named. */
  connects: boolean;
  /** Whether a host:port adb does not list is connected before its first command (listed ones). */
  attachFirst: boolean;
  /** The registry's links, which the Device shares. */
  link: Link;
}

/** The state phone_devices shows for a listed phone adb does not list. */
export const NOT_ATTACHED = "not attached";

/** How many serials a refusal names before it says how many more there are. */
const NAMED_MAX = 12;

function naming(serials: readonly string[]): string {
  const named = serials.slice(0, NAMED_MAX);
  const more = serials.length - named.length;
  return `${named.join(", ")}${more > 0 ? ` and ${more} more` : ""}`;
}

export function createPhones(options: PhonesOptions): Phones {
  return new PhoneRegistry(options);
}

/** What a Device is made with, beyond its serial: whether phone-eye may connect it. */
type MayConnect = { connects: boolean; attachFirst: boolean };

/**
 * One Device per phone, keyed by its real serial, for the server's life: each owns its phone's
 * state (screen size, link, and the queue that runs one action at a time on that phone), so every
 * name that reaches one phone (no device, or its serial) reaches one queue.
 */
class PhoneRegistry implements Phones {
  readonly set: PhoneSet;
  readonly #link: Link;
  readonly #makeDevice: PhonesOptions["makeDevice"];
  readonly #devices = new Map<string, Device>();
  /** The share of each phone's calls its clients hold (queue.ts), beside the phone's Device. */
  readonly #shares = new WeakMap<Device, ClientShares>();
  /**
   * The phone taken for adb's default device where nothing is configured: adb's only phone, until
   * a device error says it went away (LinkScope.missing), when the next call looks again.
   */
  #defaultSerial: string | undefined;
  /** adb's default device itself, for when adb lists no phone or several: adb then says why. */
  #fallback: Device | undefined;

  constructor(options: PhonesOptions) {
    this.set = options.set;
    this.#makeDevice = options.makeDevice;
    this.#link = options.link.within({
      set: options.set,
      missing: (serial) => {
        if (serial !== undefined && serial === this.#defaultSerial) this.#defaultSerial = undefined;
      },
    });
  }

  readonly host = (args: readonly string[]): Promise<DeviceOutput> => this.#link.host(args);

  roster(): Promise<AttachedDevice[]> {
    return rosterOf(this.set, this.#link);
  }

  async resolve(device: string | undefined): Promise<Device> {
    const set = this.set;
    switch (set.kind) {
      case "default":
        if (device === undefined) return await this.#defaultPhone();
        return await this.#attachedDevice(
          device,
          "no phone is configured (ANDROID_SERIAL and PHONE_EYE_DEVICES are unset), so a device must be one adb lists",
        );
      case "any": {
        if (device !== undefined) {
          return await this.#attachedDevice(
            device,
            "this server may drive any phone adb lists (PHONE_EYE_DEVICES=*)",
          );
        }
        const attached = await listed(this.#link);
        const usable = attached?.filter((d) => d.state === "device") ?? [];
        const only = usable.length === 1 ? usable[0] : undefined;
        if (only) return this.#deviceOf(only.serial, NAMED);
        throw new PhoneChoiceError("WHICH_PHONE", whichOfAny(attached, usable));
      }
      case "listed": {
        const { serials, from } = set;
        if (device === undefined) {
          if (serials.length === 1) return this.#listedDevice(serials[0]);
          throw new PhoneChoiceError("WHICH_PHONE", whichOfListed(serials, from));
        }
        if (!serials.includes(device)) {
          throw new PhoneChoiceError("UNKNOWN_PHONE", notListed(device, serials, from));
        }
        return this.#listedDevice(device);
      }
    }
  }

  async admit(device: string | undefined, client: string | undefined): Promise<PhoneTurn> {
    const phone = await this.resolve(device);
    if (client === undefined) return { device: phone, release: () => {} };
    let share = this.#shares.get(phone);
    if (share === undefined) this.#shares.set(phone, share = createClientShares());
    return { device: phone, release: share.take(client) };
  }

  #make(serial: string | undefined, may: MayConnect): Device {
    return this.#makeDevice({ serial, ...may, link: this.#link });
  }

  /** The Device of `serial`, made on first use with what phone-eye may do for it. */
  #deviceOf(serial: string, may: MayConnect): Device {
    const known = this.#devices.get(serial);
    if (known) return known;
    const device = this.#make(serial, may);
    this.#devices.set(serial, device);
    return device;
  }

  /**
   * A listed phone's Device; a host:port one is attached before its first command and revived
   * when it drops (link.ts).
   */
  #listedDevice(serial: string): Device {
    return this.#deviceOf(serial, { connects: true, attachFirst: true });
  }

  /** A phone adb lists, named by an agent where the set is "any" or "default": never connected. */
  async #attachedDevice(serial: string, setName: string): Promise<Device> {
    const known = this.#devices.get(serial);
    if (known) return known;
    const attached = await listed(this.#link);
    if (attached !== null && !attached.some((d) => d.serial === serial)) {
      throw new PhoneChoiceError(
        "UNKNOWN_PHONE",
        `Cannot use device "${serial}": ${setName}, and adb lists ${
          attached.length ? naming(attached.map((d) => `${d.serial} (${d.state})`)) : "no phone"
        }; phone-eye connects no address an agent names, so give one of those serials (phone_devices lists them)`,
      );
    }
    // Two calls may have raced here: deviceOf keeps the first Device made.
    return this.#deviceOf(serial, NAMED);
  }

  /**
   * adb's default device where nothing is configured, as the phone it is: when adb lists exactly
   * one phone, ready, adb's default is that phone, so a call without device and one naming its
   * serial share its Device and queue. Otherwise (none, several, not ready, no list) adb's default
   * device itself, which then says what is wrong in adb's words (with several: pass device).
   */
  async #defaultPhone(): Promise<Device> {
    if (this.#defaultSerial !== undefined) return this.#deviceOf(this.#defaultSerial, NAMED);
    // A list that cannot be had (a runner that refuses, in tests) leaves the choice to adb.
    const attached = await listed(this.#link).catch(() => null);
    // Only a ready phone: one offline or unauthorized is left to adb, whose words say so.
    const only = attached?.length === 1 && attached[0]?.state === "device"
      ? attached[0]
      : undefined;
    if (only === undefined) {
      return this.#fallback ??= this.#make(undefined, { connects: true, attachFirst: false });
    }
    this.#defaultSerial = only.serial;
    return this.#deviceOf(only.serial, NAMED);
  }
}

/** What phone-eye may do for a phone an agent named, or adb's only phone: never connect it. */
const NAMED = { connects: false, attachFirst: false } as const;

/**
 * What adb lists, or null when `adb devices` failed or answered something else. When adb itself
 * cannot run, that error, worded as every verb words it ("adb was not found on PATH").
 */
async function listed(link: Link): Promise<AttachedDevice[] | null> {
  const list = await link.listing();
  if (!(list instanceof AdbError)) return list;
  if (adbCannotRun(list)) throw list;
  return null;
}

/** Why a call must name one of the listed phones. */
function whichOfListed(serials: readonly string[], from: string): string {
  return `Which phone? This server drives ${serials.length} (${from}): ${
    naming(serials)
  }; give device with one of them (phone_devices lists their models)`;
}

/** Why a phone outside the listed ones is refused, before any adb call. */
function notListed(device: string, serials: readonly string[], from: string): string {
  return `Cannot use device "${device}": this server may drive only ${
    naming(serials)
  } (${from}); give one of those, or ask whoever runs phone-eye to add it to ${
    from === "PHONE_EYE_DEVICES" ? from : "PHONE_EYE_DEVICES"
  }`;
}

/** Why a call under PHONE_EYE_DEVICES=* must name its phone: adb's answer, and what is ready. */
function whichOfAny(attached: AttachedDevice[] | null, usable: AttachedDevice[]): string {
  return attached === null
    ? 'Which phone? This server may drive any phone adb lists (PHONE_EYE_DEVICES=*), and "adb devices" did not answer; give device (a serial), or run phone-eye --doctor'
    : usable.length === 0
    ? `Which phone? This server may drive any phone adb lists (PHONE_EYE_DEVICES=*), and adb lists ${
      attached.length
        ? `none ready: ${naming(attached.map((d) => `${d.serial} (${d.state})`))}`
        : "none"
    }; attach or authorize a phone, then call again`
    : `Which phone? This server may drive any phone adb lists (PHONE_EYE_DEVICES=*), and ${usable.length} are ready: ${
      naming(usable.map((d) => d.serial))
    }; give device with one of them (phone_devices lists their models)`;
}

/** The phones `set` allows, each with adb's state for it (Phones.roster). */
async function rosterOf(set: PhoneSet, link: Link): Promise<AttachedDevice[]> {
  if (set.kind === "listed") {
    // Listed addresses are attached first (in parallel), so their state is what adb sees now.
    await Promise.all(
      set.serials.filter(isNetworkSerial).map((s) =>
        link.connectIfMissing(s).catch(() => undefined)
      ),
    );
  }
  const attached = await listed(link);
  if (attached === null) {
    throw new PhoneChoiceError(
      "WHICH_PHONE",
      'Cannot list the phones: "adb devices" failed or did not answer; run phone-eye --doctor to see why',
    );
  }
  if (set.kind !== "listed") return attached;
  return set.serials.map((s) =>
    attached.find((d) => d.serial === s) ?? { serial: s, state: NOT_ATTACHED }
  );
}
