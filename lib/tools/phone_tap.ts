// phone_tap: a tap, a double or triple tap (count), or a long press (hold_ms), at device-pixel
// coordinates. The point is checked against the screen size before anything reaches the phone.

import { z } from "zod";
import { longPressCommand, multiTapCommand, tapCommand } from "../adb/commands.ts";
import { runInput } from "../adb/input.ts";
import { checkOnScreen, coordinate } from "./coordinates.ts";
import { ACTS_ON_PHONE, defineTool, deviceArg, textResult, ToolInputError } from "./tool.ts";

export const phoneTap = defineTool({
  name: "phone_tap",
  title: "Tap the screen",
  description:
    "Tap the phone's screen at (x, y) in device pixels. Take the point from phone_look: the center of an element's [ui-tree] bounds is the most reliable target. Give count 2 for a double tap (3 for a triple tap): the taps go to the phone in one command, 50 ms apart plus the start-up of the phone's `input` tool for each (53 to 61 ms median on the simulated phone), and Android counts taps 40 to 300 ms apart as a double tap. Android 12 and later start `input` quickly; Android 11 and older start a Java VM for each tap, often 300 ms or more, so there the app may see two single taps. Give hold_ms for a long press (e.g. 800). Look again afterwards to see what the tap did.",
  inputSchema: z.strictObject({
    device: deviceArg(),
    x: coordinate("x"),
    y: coordinate("y"),
    count: z.number().int().min(1).max(3).optional().describe(
      "taps on the same point: 2 for a double tap, 3 for a triple tap; omit for one",
    ),
    hold_ms: z.number().int().min(1).max(10_000).optional().describe(
      "hold for this many milliseconds (a long press); omit for a normal tap",
    ),
  }),
  annotations: ACTS_ON_PHONE,
  async handler({ device }, { x, y, count = 1, hold_ms }) {
    if (hold_ms !== undefined && count > 1) {
      throw new ToolInputError(
        "Cannot tap: give count (a double or triple tap) or hold_ms (a long press), not both",
      );
    }
    const action = hold_ms !== undefined
      ? "long-press"
      : count === 3
      ? "triple-tap"
      : count === 2
      ? "double-tap"
      : "tap";
    await checkOnScreen(device, action, [["the point", x, y]]);
    const command = hold_ms !== undefined
      ? longPressCommand(x, y, hold_ms)
      : count > 1
      ? multiTapCommand(x, y, count)
      : tapCommand(x, y);
    await runInput(device, command, action);
    return textResult(
      hold_ms !== undefined
        ? `Long-pressed (${x}, ${y}) for ${hold_ms} ms.`
        : count === 2
        ? `Double-tapped (${x}, ${y}).`
        : count === 3
        ? `Triple-tapped (${x}, ${y}).`
        : `Tapped (${x}, ${y}).`,
    );
  },
});
