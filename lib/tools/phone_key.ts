// phone_key: presses one key by name (a whitelist) or by numeric Android keycode.
// Unknown names are refused with the list of names, so a typo never becomes a keycode.

import { z } from "zod";
import { keyeventCommand } from "../adb/input_commands.ts";
import { characterName, scanCharacters } from "../core/characters.ts";
import { runInput } from "../adb/input.ts";
import { keyName, MAX_KEYCODE, resolveKey } from "../adb/keys.ts";
import { actionResult, beginAction, SETTLE_SENTENCE, settleField } from "./acting.ts";
import { ToolInputError } from "../core/errors.ts";
import { ACTS_ON_PHONE, defineTool, deviceArg } from "./tool.ts";

export const phoneKey = defineTool({
  name: "phone_key",
  title: "Press a key",
  description:
    `Press a key or button on the Android phone: home, back, enter, delete, volume, power, wake, or any Android keycode. Other names: tab, space, escape, search, menu, recents, sleep, dpad_up (down, left, right, center), volume_up (down, mute), page_up, page_down, copy, paste and more (an unknown name is refused with the list); or a keycode from 1 to ${MAX_KEYCODE} (66 or "66" is enter). ${SETTLE_SENTENCE}`,
  inputSchema: z.strictObject({
    device: deviceArg(),
    // A number too: agents send {"key": 66} as often as {"key": "66"}. Range and integer checks
    // live in resolveKey, so both forms get the same message.
    key: z.union([z.string().min(1).max(40), z.number()]).describe(
      'a name or a keycode ("home", 66)',
    ),
    settle: settleField,
  }),
  annotations: ACTS_ON_PHONE,
  action: "press a key",
  async handler(deps, { key, settle }, call) {
    const { device } = deps;
    const control = typeof key === "string" ? scanCharacters(key).control : undefined;
    if (control !== undefined) {
      throw new ToolInputError({
        what: `the key contains a control character (${characterName(control)})`,
        fix: 'give one key name such as "enter", or a numeric keycode',
      });
    }
    const resolved = resolveKey(key);
    if ("error" in resolved) throw new ToolInputError({ what: resolved.error });
    const acting = beginAction(deps, { settle });
    await runInput(device, keyeventCommand(resolved.code), call.signal);
    // The same words however the key was given: "enter", "66" and 66 all press enter.
    const name = keyName(resolved.code);
    const reply = name === undefined
      ? `Pressed keycode ${resolved.code}.`
      : `Pressed ${name} (keycode ${resolved.code}).`;
    return await actionResult(deps, call, acting, reply);
  },
});
