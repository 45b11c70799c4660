// phone_shot: the screenshot itself, as MCP image content sized for any client, with its scale.
// The text part states the device size and the image-to-device factor, so taps land right.

import { z } from "zod";
import { encodePng, prepareForAgent, scaleNote, toBase64 } from "../image.ts";
import { captureScreen } from "../screen.ts";
import { defineTool, LOOKS_ONLY } from "./tool.ts";

export const phoneShot = defineTool({
  name: "phone_shot",
  title: "Screenshot",
  description:
    "Return the phone's current screen as an image (long edge at most 1280 px). The text beside it gives the screen size in device pixels and the factor from image pixels to device pixels: multiply before tapping. Prefer phone_look, which adds exact element bounds.",
  inputSchema: z.object({}),
  annotations: LOOKS_ONLY,
  async handler({ device, saveShot }) {
    const shot = await captureScreen(device, "take a screenshot");
    const image = prepareForAgent(shot.image);
    const lines = [scaleNote(image)];
    if (shot.note) lines.push(`Note: ${shot.note}.`);
    if (saveShot) lines.push(await saveShot(shot.png ?? encodePng(shot.image)));
    return {
      content: [
        { type: "image", data: toBase64(image.bytes), mimeType: image.mimeType },
        { type: "text", text: lines.join("\n") },
      ],
      structuredContent: {
        screen: { width: image.sourceWidth, height: image.sourceHeight },
        image: { width: image.width, height: image.height, mimeType: image.mimeType },
        scale: image.scale,
      },
    };
  },
});
