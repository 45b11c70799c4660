// phone_key: presses one key by name (a whitelist) or by numeric Android keycode.
// Unknown names are refused with the list of names, so a typo never becomes a keycode.

import { z } from "zod";
import { keyeventCommand } from "../adb/commands.ts";
import { characterName, scanCharacters } from "../characters.ts";
import { runInput } from "../adb/input.ts";
import { MAX_KEYCODE, NAMED_KEYS, resolveKey } from "../keys.ts";
import { ACTS_ON_PHONE, defineTool, deviceArg, textResult, ToolInputError } from "./tool.ts";

export const phoneKey = defineTool({
  name: "phone_key",
  title: "Press a key",
  description: `Press one key. Names: ${
    Object.keys(NAMED_KEYS).join(", ")
  }. Or an Android keycode, as a number or a string (66 or "66" for enter; 1 to ${MAX_KEYCODE}). "wake" turns the screen on; "back" and "home" navigate.`,
  inputSchema: z.strictObject({
    device: deviceArg(),
    // A number too: agents send {"key": 66} as often as {"key": "66"}. Range and integer checks
    // live in resolveKey, so both forms get the same message.
    key: z.union([z.string().min(1).max(40), z.number()]).describe(
      'a key name such as "home", "back", "enter", or a keycode (66 or "66")',
    ),
  }),
  annotations: ACTS_ON_PHONE,
  async handler({ device }, { key }) {
    const control = typeof key === "string" ? scanCharacters(key).control : undefined;
    if (control !== undefined) {
      throw new ToolInputError(
        `Cannot press a key: the key contains a control character (${
          characterName(control)
        }); give one key name such as "enter", or a numeric keycode`,
      );
    }
    const resolved = resolveKey(key);
    if ("error" in resolved) throw new ToolInputError(resolved.error);
    await runInput(device, keyeventCommand(resolved.code), "press a key");
    return textResult(
      `Pressed ${typeof key === "number" ? key : key.trim()} (keycode ${resolved.code}).`,
    );
  },
});
