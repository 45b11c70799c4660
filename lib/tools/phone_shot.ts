// phone_shot: the screenshot as MCP image content sized for any client, and text with its scale so
// taps land right. No structuredContent: Claude Code would show the model that instead of both.

import { z } from "zod";
import { defineTool, deviceArg, LOOKS_ONLY } from "./tool.ts";

/**
 * The capture and the codecs: not loaded at start-up, so tools/list never waits for them; the
 * server preloads them once tools/list has been answered.
 */
const loadCapture = () =>
  Promise.all([
    import("../screen/screen.ts"),
    import("../image/encode.ts"),
    import("../image/sizing.ts"),
  ]);

export const phoneShot = defineTool({
  name: "phone_shot",
  title: "Screenshot",
  description:
    "Take a screenshot of the Android phone's screen, returned as an image (long edge at most 1280 px), with the factor from image pixels to device pixels: multiply before tapping. Prefer phone_look, which adds exact element bounds.",
  inputSchema: z.strictObject({ device: deviceArg() }),
  annotations: LOOKS_ONLY,
  action: "take a screenshot",
  preload: loadCapture,
  async handler({ device, saveShot, memory }, _args, { signal }) {
    const [{ captureScreen }, { encodeFrame, toBase64 }, { agentSizing, fitFor, scaleNote }] =
      await loadCapture();
    const sizing = agentSizing();
    using shot = await captureScreen(device, fitFor(sizing), signal);
    const image = encodeFrame(shot.frame, sizing);
    memory.collectAfterAnswer(); // the decode's and encoder's buffers, once the answer is out
    const lines = [scaleNote(image)];
    if (shot.note) lines.push(`Note: ${shot.note}.`);
    if (saveShot) lines.push(await saveShot(shot.png()));
    return {
      content: [
        { type: "image", data: toBase64(image.bytes), mimeType: image.mimeType },
        { type: "text", text: lines.join("\n") },
      ],
    };
  },
});
