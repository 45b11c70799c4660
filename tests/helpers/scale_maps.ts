import assert from "node:assert/strict";
import type { AgentImage } from "../../lib/image/sizing.ts";

/** An image's scale maps its far edges back to the device's, within one image pixel. */
export function assertScaleMaps(
  name: string,
  a: Pick<AgentImage, "width" | "height" | "scale" | "sourceWidth" | "sourceHeight">,
): void {
  assert.ok(Math.abs(a.width * a.scale - a.sourceWidth) <= a.scale / 2 + 1e-9, `${name} width`);
  assert.ok(Math.abs(a.height * a.scale - a.sourceHeight) <= a.scale / 2 + 1e-9, `${name} height`);
}
