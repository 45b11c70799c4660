// phone_devices: the phones this server may drive, each with adb's state and, when it answers, its
// model, Android version, screen size and ADB Keyboard, read in one round trip per phone, in parallel.

import { z } from "zod";
import { describeFacts, parsePhoneFacts, phoneFactsCommand } from "../adb/phone_facts.ts";
import type { Phones } from "../adb/phones.ts";
import { excerpt } from "../core/text.ts";
import { AgentError, failureWords } from "../core/errors.ts";
import { textResult } from "./call.ts";
import { defineServerTool, LOOKS_ONLY } from "./tool.ts";

/** Where the set of phones comes from, for the headline. */
function setName(phones: Phones): string {
  const { set } = phones;
  return set.kind === "listed"
    ? set.from
    : set.kind === "any"
    ? "PHONE_EYE_DEVICES=*: any phone adb lists"
    : "nothing configured: adb's default device, or any phone adb lists by its serial";
}

/**
 * One phone's line: its state, then what it says about itself when it is ready. Its facts are read
 * within the client's share of that phone, as any call on it is.
 */
async function describePhone(
  phones: Phones,
  phone: { serial: string; state: string },
  client: string | undefined,
): Promise<string> {
  const { serial, state } = phone;
  if (state !== "device") return `- ${serial}: ${state}`;
  try {
    const turn = await phones.admit(serial, client);
    let out;
    try {
      out = await turn.device.run(phoneFactsCommand());
    } finally {
      turn.release();
    }
    const facts = parsePhoneFacts(out.text);
    return facts === null
      ? `- ${serial}: device; its facts were unreadable (${excerpt(out.text, 120)})`
      : `- ${serial}: device; ${describeFacts(facts)}`;
  } catch (error) {
    // The step is named here: the list itself did not fail, one phone's facts did.
    const message = error instanceof AgentError
      ? failureWords("read the phone's facts", error)
      : error instanceof Error
      ? error.message
      : String(error);
    return `- ${serial}: device, but reading its facts failed: ${message}`;
  }
}

export const phoneDevices = defineServerTool({
  name: "phone_devices",
  title: "List the phones",
  description:
    "List the Android phones this server may drive: each one's serial, adb state (device = ready; unauthorized = accept the prompt on the phone), model, Android version, screen size and whether ADB Keyboard is installed (phone_type's non-ASCII text needs it).",
  inputSchema: z.strictObject({}),
  annotations: LOOKS_ONLY,
  action: "list the phones",
  async handler({ phones }, _args, call) {
    // When adb cannot run, the roster says so in the words every verb uses ("adb was not found").
    const roster = await phones.roster();
    const lines = await Promise.all(roster.map((d) => describePhone(phones, d, call.client)));
    const head = roster.length === 0
      ? `No phone to drive (${setName(phones)}): "adb devices" lists none.`
      : `${roster.length} phone${roster.length === 1 ? "" : "s"} this server may drive (${
        setName(phones)
      }); give the serial as device:`;
    return textResult([head, ...lines].join("\n"));
  },
});
