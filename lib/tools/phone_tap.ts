// phone_tap: a tap, or a long press when hold_ms is given, at device-pixel coordinates.
// The point is checked against the screen size before anything reaches the phone.

import { z } from "zod";
import { longPressCommand, tapCommand } from "../adb/commands.ts";
import { runInput } from "../adb/input.ts";
import { checkOnScreen, coordinate } from "./coordinates.ts";
import { ACTS_ON_PHONE, defineTool, textResult } from "./tool.ts";

export const phoneTap = defineTool({
  name: "phone_tap",
  title: "Tap the screen",
  description:
    "Tap the phone's screen at (x, y) in device pixels. Take the point from phone_look: the center of an element's [ui-tree] bounds is the most reliable target. Give hold_ms for a long press (e.g. 800). Look again afterwards to see what the tap did.",
  inputSchema: z.object({
    x: coordinate("x"),
    y: coordinate("y"),
    hold_ms: z.number().int().min(1).max(10_000).optional().describe(
      "hold for this many milliseconds (a long press); omit for a normal tap",
    ),
  }),
  annotations: ACTS_ON_PHONE,
  async handler({ device }, { x, y, hold_ms }) {
    const action = hold_ms === undefined ? "tap" : "long-press";
    await checkOnScreen(device, action, [["the point", x, y]]);
    const command = hold_ms === undefined ? tapCommand(x, y) : longPressCommand(x, y, hold_ms);
    await runInput(device, command, action);
    return textResult(
      hold_ms === undefined
        ? `Tapped (${x}, ${y}).`
        : `Long-pressed (${x}, ${y}) for ${hold_ms} ms.`,
    );
  },
});
