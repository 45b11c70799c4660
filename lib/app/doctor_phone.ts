// The doctor's checks of adb and the phones: adb's version, each phone's model, release and screen
// size (or the situation adb reported), and whether ADB Keyboard is installed.

import { ADB_KEYBOARD_RELEASES, imeStateCommand, parseImeState } from "../adb/adb_keyboard.ts";
import { getpropCommand } from "../adb/commands.ts";
import type { Device } from "../adb/device.ts";
import { AdbError } from "../adb/errors.ts";
import type { Phones } from "../adb/phones.ts";
import { excerpt } from "../core/text.ts";
import { type Check, failureReason } from "./doctor_check.ts";

/**
 * adb's version, or why adb cannot run in the words every verb uses. `notOnPath`: adb is missing,
 * so the permission check does not blame its grant (Deno grants --allow-run=adb only to an adb it
 * finds on PATH at start-up, and reports the grant refused when there is none).
 */
export async function checkAdb(phones: Phones): Promise<Check & { notOnPath: boolean }> {
  try {
    const out = await phones.host(["version"]);
    const [first = "", second = ""] = out.text.split(/\r?\n/);
    return {
      ok: true,
      title: "adb found",
      detail: [`${first.trim()} ${second.trim()}`.trim()],
      notOnPath: false,
    };
  } catch (error) {
    return {
      ok: false,
      title: "adb not usable",
      detail: [failureReason(error, "run adb")],
      notOnPath: error instanceof AdbError && error.code === "ADB_NOT_FOUND",
    };
  }
}

async function checkPhone(device: Device): Promise<Check> {
  const where = device.serial ?? "adb's default device";
  // What the check is doing, for the words of its failure.
  let step = "reach the phone";
  try {
    const model = (await device.run(getpropCommand("ro.product.model"))).text.trim();
    const release = (await device.run(getpropCommand("ro.build.version.release"))).text.trim();
    step = "read the screen size";
    const size = await device.screenSize();
    return {
      ok: true,
      title: `phone reachable (${where})`,
      detail: [
        `${model || "unknown model"}, Android ${
          release || "?"
        }, screen ${size.width}×${size.height}`,
      ],
    };
  } catch (error) {
    const detail = [failureReason(error, step)];
    // The agent is told to pass device; whoever runs the doctor chooses with the settings.
    if (error instanceof AdbError && error.code === "MULTIPLE_DEVICES" && !device.serial) {
      detail.push(
        "to drive one of them, set ANDROID_SERIAL (or start phone-eye with --serial) to its serial, or PHONE_EYE_DEVICES to drive several, each call naming its device",
      );
    }
    return { ok: false, title: phoneTrouble(error, where), detail };
  }
}

/** The phone check's headline when it fails: the situation adb reported, in a few words. */
function phoneTrouble(error: unknown, where: string): string {
  if (!(error instanceof AdbError)) return `phone not reachable (${where})`;
  const listed = error.attached?.map((d) => `${d.serial} (${d.state})`).join(", ");
  switch (error.code) {
    case "MULTIPLE_DEVICES":
      return error.trouble?.serial === undefined
        ? `more than one phone attached${listed ? `: ${listed}` : ""}`
        : `more than one phone answers to ${where}`;
    case "UNAUTHORIZED":
      return `phone not authorized (${where})`;
    default:
      return `phone not reachable (${where})`;
  }
}

/**
 * Whether ADB Keyboard is installed: without it phone_type types printable ASCII only
 * (adb_keyboard.ts). Information, never a failure.
 */
async function checkKeyboard(device: Device): Promise<Check> {
  const install =
    `install it once: download the APK from ${ADB_KEYBOARD_RELEASES} and run "adb install ADBKeyboard.apk" (nothing to enable: phone_type selects it for each such call and puts the current keyboard back)`;
  try {
    const out = await device.run(imeStateCommand());
    const state = parseImeState(out.text);
    if (state === null) {
      return {
        ok: true,
        info: true,
        title: "ADB Keyboard unknown: the input method list was unreadable",
        detail: [`"ime list" answered: ${excerpt(out.text, 120)}`],
      };
    }
    return state.installed
      ? {
        ok: true,
        info: true,
        title: "ADB Keyboard installed: phone_type types any text",
        detail: [
          "phone-eye selects it for each non-ASCII phone_type and puts the current one back",
        ],
      }
      : {
        ok: true,
        info: true,
        title: "ADB Keyboard not installed: typing is ASCII only",
        detail: [`phone_type refuses other characters; to type any language, ${install}`],
      };
  } catch (error) {
    return {
      ok: true,
      info: true,
      title: "ADB Keyboard not checked",
      detail: [failureReason(error, "read the input methods")],
    };
  }
}

/** The phone, then, once it answers, its keyboard. */
async function checkPhoneAndKeyboard(device: Device): Promise<[Check, Check | null]> {
  const phone = await checkPhone(device);
  return [phone, phone.ok ? await checkKeyboard(device) : null];
}

/**
 * The phones PHONE_EYE_DEVICES allows, as an information line (none for one phone, as before), and
 * the Devices to check: the configured phone or adb's default, each listed one, or with `*` each
 * phone adb lists. Several phones are checked at once.
 */
export async function checkPhones(phones: Phones): Promise<Check[]> {
  const { set } = phones;
  if (set.kind === "default" || (set.kind === "listed" && set.serials.length === 1)) {
    const [phone, keyboard] = await checkPhoneAndKeyboard(await phones.resolve(undefined));
    return keyboard === null ? [phone] : [phone, keyboard];
  }
  let roster;
  try {
    roster = await phones.roster();
  } catch (error) {
    return [{
      ok: false,
      title: "phones not listed",
      detail: [failureReason(error, "list the phones")],
    }];
  }
  const allowed: Check = {
    ok: true,
    info: true,
    title: set.kind === "any"
      ? `PHONE_EYE_DEVICES=*: any phone adb lists (${roster.length} now); agents pick one with device`
      : `PHONE_EYE_DEVICES: ${set.serials.length} phones; agents pick one with device`,
    detail: roster.map((d) => `${d.serial} (${d.state})`),
  };
  if (roster.length === 0) {
    return [allowed, {
      ok: false,
      title: "no phone attached",
      detail: ['"adb devices" lists none'],
    }];
  }
  const checked = await Promise.all(
    roster.map(async (d) => await checkPhoneAndKeyboard(await phones.resolve(d.serial))),
  );
  return [
    allowed,
    ...checked.flatMap(([phone, keyboard]) => keyboard ? [phone, keyboard] : [phone]),
  ];
}
