// phone_key: presses one key by name (a whitelist) or by numeric Android keycode.
// Unknown names are refused with the list of names, so a typo never becomes a keycode.

import { z } from "zod";
import { controlCharacter, keyeventCommand } from "../adb/commands.ts";
import { runInput } from "../adb/input.ts";
import { NAMED_KEYS, resolveKey } from "../keys.ts";
import { ACTS_ON_PHONE, defineTool, textResult, ToolInputError } from "./tool.ts";

export const phoneKey = defineTool({
  name: "phone_key",
  title: "Press a key",
  description: `Press one key. Names: ${
    Object.keys(NAMED_KEYS).join(", ")
  }. Or a numeric Android keycode (e.g. "66" for enter). "wake" turns the screen on; "back" and "home" navigate.`,
  inputSchema: z.object({
    key: z.string().min(1).max(40).describe(
      'a key name such as "home", "back", "enter", or a keycode',
    ),
  }),
  annotations: ACTS_ON_PHONE,
  async handler({ device }, { key }) {
    const control = controlCharacter(key);
    if (control !== null) {
      throw new ToolInputError(
        `Cannot press a key: the key contains a control character (${control}); give one key name such as "enter", or a numeric keycode`,
      );
    }
    const resolved = resolveKey(key);
    if ("error" in resolved) throw new ToolInputError(resolved.error);
    await runInput(device, keyeventCommand(resolved.code), "press a key");
    return textResult(`Pressed ${key.trim()} (keycode ${resolved.code}).`);
  },
});
