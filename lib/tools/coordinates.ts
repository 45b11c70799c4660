// Checks device-pixel coordinates against the screen before anything is sent to the phone.
// Shared by the verbs that take coordinates (tap, swipe).

import { z } from "zod";
import type { Device } from "../adb/device.ts";
import { ToolInputError } from "../core/errors.ts";

/** A coordinate argument: device pixels, the space of the UI tree's bounds. */
export function coordinate(axis: string): z.ZodNumber {
  return z.number().int().min(0).max(20_000).describe(`${axis}, device pixels`);
}

/**
 * Refuses points off the screen. `wm size` reports the natural (portrait) size, while input takes
 * coordinates in the current rotation, so a point fits if it fits either orientation.
 */
export async function checkOnScreen(
  device: Device,
  points: ReadonlyArray<readonly [string, number, number]>,
): Promise<void> {
  const { width, height } = await device.screenSize();
  for (const [label, x, y] of points) {
    const fits = (x < width && y < height) || (x < height && y < width);
    if (!fits) {
      throw new ToolInputError({
        what:
          `${label} (${x}, ${y}) is off the screen, which is ${width}×${height} device pixels (x 0–${
            width - 1
          }, y 0–${
            height - 1
          }). Coordinates are device pixels, as in phone_look's [ui-tree] bounds`,
        fix: "if you measured on a screenshot, multiply by the scale factor phone_shot reports",
      });
    }
  }
}
