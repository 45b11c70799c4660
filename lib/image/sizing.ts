// How big an image each audience gets: the agent's and a vision model's long edge, quality and
// base64 budget, the fit a capture decodes straight to, and the sentence that states the scale.
import type { Fit } from "./frame.ts";

/**
 * Default base64 budget for an image handed to the agent. The budget counts base64 characters,
 * not image bytes: MCP carries image content as a base64 string inside JSON-RPC, clients and model
 * APIs check that string's length (Anthropic's 5 MB per-image limit is on the base64 data), and
 * vision requests embed the same string in a data URL. 1,000,000 characters ≈ 750 kB of JPEG.
 */
export const DEFAULT_MAX_BASE64_BYTES = 1_000_000;

/**
 * Default long edge for `phone_shot` (the agent's own context). 1280 is below Claude's 1568 px
 * no-resize bound, so the client never resamples it again, and fits OpenAI high-detail in 6 tiles of
 * 512 px instead of 8; an image costs ~1k tokens of the agent's context on every look. On a
 * 1080×2400 phone it is 540×1200 (scale exactly 2): 12 sp text is still ~16 px tall, readable.
 */
export const AGENT_MAX_EDGE = 1280;

/** Hard ceiling on the long edge: some MCP clients reject larger images outright. */
export const ABSOLUTE_MAX_EDGE = 2000;

/**
 * Vision routes get more pixels: the model's job is to read small text and locate controls, it
 * sees one image per call, and 1568 px is the largest long edge Claude takes without resampling
 * (and fits OpenAI's 2048 px high-detail box unchanged). Quality 85 keeps text edges free of the
 * ringing that makes thin glyphs ambiguous at 75 and below.
 */
export const VISION_MAX_EDGE = 1568;
const VISION_QUALITY = 85;

/** Quality 80 keeps UI text clean at scale 2 and is ~30% smaller than 90 (bench/image_bench.ts). */
const AGENT_QUALITY = 80;

/** Below this long edge a phone screen stops being readable; we throw rather than go smaller. */
export const MIN_EDGE = 320;

/** What `phone_shot` and the vision routes send. */
export interface AgentImage {
  bytes: Uint8Array;
  mimeType: "image/jpeg" | "image/png";
  width: number;
  height: number;
  /** Multiply image px by this to get device px (the UI tree's space). */
  scale: number;
  /** The screenshot's own size: the device's pixels in its current orientation. */
  sourceWidth: number;
  sourceHeight: number;
}

export interface PrepareOptions {
  /** Longest edge of the result in px; never upscales; capped at ABSOLUTE_MAX_EDGE. */
  maxEdge?: number;
  /** Budget on the base64 text of the result (what travels); see DEFAULT_MAX_BASE64_BYTES. */
  maxBase64Bytes?: number;
  /** Starting JPEG quality; lowered step by step when over budget. */
  quality?: number;
}

/**
 * The image size for a `width`×`height` screen fitted to `maxEdge`, and its image-to-device
 * factor. With `snap`, the factor is rounded up to a quarter step so the agent multiplies by 2 or
 * 2.5 rather than 1.875 (fewer arithmetic slips when it taps from the image). Common phones land
 * on the step anyway (2400→1200 ×2, 3200→1280 ×2.5, 1600→1280 ×1.25); the worst case, a long
 * edge just over `maxEdge`, gives up a fifth of the edge. Never enlarges.
 */
export function fitToEdge(
  screen: { width: number; height: number },
  fit: { maxEdge: number; snap: boolean },
): { width: number; height: number; scale: number } {
  const { width, height } = screen;
  const { maxEdge, snap } = fit;
  const exact = Math.max(1, Math.max(width, height) / maxEdge);
  const scale = snap ? Math.ceil(exact * 4 - 1e-9) / 4 : exact;
  return {
    width: Math.max(1, Math.round(width / scale)),
    height: Math.max(1, Math.round(height / scale)),
    scale,
  };
}

/** How an image is sized and encoded for one audience: the agent, or a vision model. */
export interface Sizing {
  maxEdge: number;
  maxBase64Bytes: number;
  quality: number;
  /** Round the image-to-device factor up to a quarter step (fitToEdge). */
  snap: boolean;
}

/**
 * The agent's sizing (`phone_shot`): long edge at most `maxEdge` (default AGENT_MAX_EDGE, scale
 * rounded up to a quarter step, never upscaled), JPEG q80.
 */
export function agentSizing(opts: PrepareOptions = {}): Sizing {
  return {
    maxEdge: opts.maxEdge ?? AGENT_MAX_EDGE,
    maxBase64Bytes: opts.maxBase64Bytes ?? DEFAULT_MAX_BASE64_BYTES,
    quality: opts.quality ?? AGENT_QUALITY,
    snap: true,
  };
}

/**
 * A vision model's sizing: long edge VISION_MAX_EDGE with the exact scale (the vision prompt
 * states the real screen size, so no round factor is needed), JPEG q85.
 */
export function visionSizing(opts: PrepareOptions = {}): Sizing {
  return {
    maxEdge: opts.maxEdge ?? VISION_MAX_EDGE,
    maxBase64Bytes: opts.maxBase64Bytes ?? DEFAULT_MAX_BASE64_BYTES,
    quality: opts.quality ?? VISION_QUALITY,
    snap: false,
  };
}

export function firstEdge(sizing: Sizing, width: number, height: number): number {
  return Math.min(Math.floor(sizing.maxEdge), ABSOLUTE_MAX_EDGE, Math.max(width, height));
}

/** The size `sizing` first asks for: what a capture decodes straight to (readPngStream's `fit`). */
export function fitFor(sizing: Sizing): Fit {
  return (width, height) => {
    const maxEdge = firstEdge(sizing, width, height);
    const fitted = fitToEdge({ width, height }, { maxEdge, snap: sizing.snap });
    return { width: fitted.width, height: fitted.height };
  };
}

/**
 * The sentence that travels next to the image so the agent taps in device pixels, e.g.
 * "Screenshot 540×1200 of a 1080×2400 screen: multiply image x,y by 2 to get tap coordinates."
 */
export function scaleNote(img: AgentImage): string {
  const factor = Number(img.scale.toFixed(4));
  const size =
    `Screenshot ${img.width}×${img.height} of a ${img.sourceWidth}×${img.sourceHeight} screen`;
  return factor === 1
    ? `${size}: image x,y are device pixels; tap them as they are.`
    : `${size}: multiply image x,y by ${factor} to get device pixels for taps and swipes.`;
}
