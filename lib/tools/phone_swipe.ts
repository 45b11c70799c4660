// phone_swipe: a straight swipe between two device-pixel points over a duration.
// Both ends are checked against the screen before anything reaches the phone.

import { z } from "zod";
import { swipeCommand } from "../adb/input_commands.ts";
import { runInput } from "../adb/input.ts";
import { checkOnScreen, coordinate } from "./coordinates.ts";
import { actionResult, beginAction, SETTLE_SENTENCE, settleField } from "./acting.ts";
import { ACTS_ON_PHONE, defineTool, deviceArg } from "./tool.ts";

export const phoneSwipe = defineTool({
  name: "phone_swipe",
  title: "Swipe on the screen",
  description:
    "Swipe or scroll on the Android phone's screen: drag from (x1, y1) to (x2, y2) in device pixels over duration_ms. To scroll a list down, swipe up (y2 < y1) inside it; 1000 ms or more drags instead of flinging. " +
    SETTLE_SENTENCE,
  inputSchema: z.strictObject({
    device: deviceArg(),
    x1: coordinate("start x"),
    y1: coordinate("start y"),
    x2: coordinate("end x"),
    y2: coordinate("end y"),
    duration_ms: z.number().int().min(1).max(10_000).default(300).describe("in ms"),
    settle: settleField,
  }),
  annotations: ACTS_ON_PHONE,
  action: "swipe",
  async handler(deps, { x1, y1, x2, y2, duration_ms, settle }, call) {
    const { device } = deps;
    await checkOnScreen(device, [["the start", x1, y1], ["the end", x2, y2]]);
    const acting = beginAction(deps, { settle });
    await runInput(device, swipeCommand(x1, y1, x2, y2, duration_ms), call.signal);
    const reply = `Swiped (${x1}, ${y1}) → (${x2}, ${y2}) over ${duration_ms} ms.`;
    return await actionResult(deps, call, acting, reply);
  },
});
