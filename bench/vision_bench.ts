// What phone-eye itself adds to a vision call, against local servers that answer at once:
// data-URL encoding of a phone-sized screenshot, the direct route, and the MCP route with and without session reuse.
import { encode as encodePng } from "fast-png";
import type { VisionConfig } from "../lib/config/config.ts";
import { imageDataUrl, type VisionImage } from "../lib/vision/route.ts";
import { createVision } from "../lib/vision/vision.ts";
import { startMcpVisionServer } from "../tests/fixtures/mcp_vision_server.ts";
import { startOpenAiServer } from "../tests/fixtures/openai_server.ts";

/** A 1080×2400 screen: flat UI bands plus a noisy "photo" third, so the PNG is about screenshot-sized. */
function screenshot(): VisionImage {
  const width = 1080, height = 2400;
  const data = new Uint8Array(width * height * 3);
  let seed = 7;
  for (let y = 0; y < height; y++) {
    const band = Math.floor(y / 120) % 2 === 0 ? 250 : 235;
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const photo = y > 1200 && y < 2000;
      seed = (seed * 1103515245 + 12345) >>> 0;
      const v = photo ? (x + y + (seed >>> 27)) & 0xff : band;
      data[i] = v;
      data[i + 1] = photo ? (v * 3) & 0xff : band;
      data[i + 2] = photo ? (y >> 2) & 0xff : band;
    }
  }
  return {
    bytes: encodePng({ width, height, data, channels: 3 }),
    mimeType: "image/png",
    width,
    height,
  };
}

const shot = screenshot();
const small: VisionImage = {
  bytes: encodePng({ width: 8, height: 8, data: new Uint8Array(8 * 8 * 3), channels: 3 }),
  mimeType: "image/png",
  width: 8,
  height: 8,
};
const kb = Math.round(shot.bytes.length / 1024);

const openai = startOpenAiServer();
const mcpServer = startMcpVisionServer();
const modernServer = startMcpVisionServer({ protocol: "modern" });
const direct = createVision(
  { route: "direct", baseUrl: openai.url, apiKey: undefined, model: "m", timeoutMs: 30_000 },
  { fetch },
);
const mcpConfig: VisionConfig = {
  route: "mcp",
  url: mcpServer.url,
  tool: "describe_image",
  timeoutMs: 30_000,
};
const reused = createVision(mcpConfig, { fetch });
const modern = createVision({ ...mcpConfig, url: modernServer.url }, { fetch });

Deno.bench(`imageDataUrl of a 1080×2400 PNG (${kb} KB)`, () => {
  imageDataUrl(shot);
});

Deno.bench(
  `direct describe, ${kb} KB screenshot, local server`,
  { group: "screenshot" },
  async () => {
    await direct.describe(shot, "Where is Send?");
  },
);

Deno.bench(
  `mcp describe, ${kb} KB screenshot, reused session`,
  { group: "screenshot" },
  async () => {
    await reused.describe(shot, "Where is Send?");
  },
);

Deno.bench(
  "mcp describe, tiny image, reused session",
  { group: "session", baseline: true },
  async () => {
    await reused.describe(small, "q");
  },
);

Deno.bench("mcp describe, tiny image, new session per call", { group: "session" }, async () => {
  const fresh = createVision(mcpConfig, { fetch });
  await fresh.describe(small, "q");
  await fresh.close();
});

Deno.bench(
  "mcp describe, tiny image, 2026-07-28 server (no session)",
  { group: "session" },
  async () => {
    await modern.describe(small, "q");
  },
);

Deno.bench("direct describe, tiny image", { group: "session" }, async () => {
  await direct.describe(small, "q");
});

// deno bench has no afterAll; close everything once the event loop is otherwise idle.
globalThis.addEventListener("beforeunload", () => {
  void Promise.all([reused.close(), modern.close()])
    .then(() => Promise.all([mcpServer.close(), modernServer.close(), openai.close()]));
});
