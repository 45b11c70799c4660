// phone_tap: a tap, a double or triple tap (count), or a long press (hold_ms), at device-pixel
// coordinates or on an element named (element). The point is checked against the screen first.

import { z } from "zod";
import { longPressCommand, multiTapCommand, tapCommand } from "../adb/input_commands.ts";
import { runInput } from "../adb/input.ts";
import {
  actionResult,
  beginAction,
  elementField,
  loadFacts,
  locate,
  SETTLE_SENTENCE,
  settleField,
} from "./acting.ts";
import { checkOnScreen, coordinate } from "./coordinates.ts";
import { ToolInputError } from "../core/errors.ts";
import { ACTS_ON_PHONE, defineTool, deviceArg } from "./tool.ts";

/** What the call does, in the agent's words: a long press, a double or triple tap, or a tap. */
function tapAction(
  { count = 1, hold_ms }: { count?: number | undefined; hold_ms?: number | undefined },
): string {
  return hold_ms !== undefined
    ? "long-press"
    : count === 3
    ? "triple-tap"
    : count === 2
    ? "double-tap"
    : "tap";
}

export const phoneTap = defineTool({
  name: "phone_tap",
  title: "Tap the screen",
  description:
    'Tap (click, press, double-tap or long-press) the Android phone\'s screen at (x, y) in device pixels, or the element named by element ("Sign in"), at its centre. count 2 or 3 double- or triple-taps in one command (Android 11 and older may see single taps); hold_ms long-presses (e.g. 800). ' +
    SETTLE_SENTENCE,
  inputSchema: z.strictObject({
    device: deviceArg(),
    x: coordinate("x").optional(),
    y: coordinate("y").optional(),
    element: elementField("the element to tap, instead of x and y"),
    count: z.number().int().min(1).max(3).optional().describe("2: double tap, 3: triple tap"),
    hold_ms: z.number().int().min(1).max(10_000).optional().describe("long press, in ms"),
    settle: settleField,
  }),
  annotations: ACTS_ON_PHONE,
  action: tapAction,
  async handler(deps, { x: givenX, y: givenY, element, count = 1, hold_ms, settle }, call) {
    const { device } = deps;
    if (hold_ms !== undefined && count > 1) {
      // Neither a long press nor a double tap: the refusal names the plain verb.
      throw new ToolInputError(
        "Cannot tap: give count (a double or triple tap) or hold_ms (a long press), not both",
      );
    }
    if ((element === undefined) === (givenX === undefined || givenY === undefined)) {
      throw new ToolInputError({
        what:
          "give either x and y (device pixels) or element (a name on screen), not both and not neither",
      });
    }
    const found = element === undefined
      ? undefined
      : await locate(deps, { name: element, signal: call.signal });
    if (element !== undefined && found !== undefined) {
      call.record.target = (await loadFacts()).targetOf(element, found);
    }
    const { x, y } = found?.element.center ?? { x: givenX ?? 0, y: givenY ?? 0 };
    const named = found === undefined ? "" : ` ${found.described}:`;
    await checkOnScreen(device, [["the point", x, y]]);
    const command = hold_ms !== undefined
      ? longPressCommand(x, y, hold_ms)
      : count > 1
      ? multiTapCommand(x, y, count)
      : tapCommand(x, y);
    const acting = beginAction(deps, { settle, found });
    await runInput(device, command, call.signal);
    const reply = hold_ms !== undefined
      ? `Long-pressed${named} (${x}, ${y}) for ${hold_ms} ms.`
      : count === 2
      ? `Double-tapped${named} (${x}, ${y}).`
      : count === 3
      ? `Triple-tapped${named} (${x}, ${y}).`
      : `Tapped${named} (${x}, ${y}).`;
    return await actionResult(deps, call, acting, reply);
  },
});
