// The doctor's checks of the vision route: a constant test card sent to the configured model, and
// where the key goes when PHONE_EYE_VISION_ALLOW_HTTP lets it travel unencrypted.

import { type Config, keyInClear } from "../config/config.ts";
import { excerpt } from "../core/text.ts";
import type { Vision, VisionImage } from "../vision/route.ts";
import { type Check, failureReason } from "./doctor_check.ts";
import { visionHost, visionPort } from "./sandbox.ts";

/**
 * A small grey-and-white test card for the vision check: enough for a model to answer, nothing
 * private. 64×64, four 32 px squares, light (230) top-right and bottom-left, dark (90) elsewhere,
 * as an RGB PNG; a constant, so the doctor never loads the image codecs to make one.
 * tests/app/doctor_test.ts decodes it with the production decoder and checks every pixel.
 */
export const TEST_CARD_PNG = Uint8Array.fromBase64(
  "iVBORw0KGgoAAAANSUhEUgAAAEAAAABACAIAAAAlC+aJAAAAb0lEQVR4nO3SAQmAAAxFQVlMcxjDnOYwhIxDeJfgj7c5lz3L" +
    "5vi5DtAqoFVAq4BWAa0CWgW0CmgV0CqgVUCrgFYBrQJaBbS5l13LeiGtAloFtApoFdAqoFVAq4BWAa0CWgW0CmgV0Cqg" +
    "VUAbPeCrF7MC2IGEZ/dXAAAAAElFTkSuQmCC",
);

export async function checkVision(vision: Vision, config: Config): Promise<Check> {
  if (vision.unavailable !== undefined) {
    // Unset is a choice (phone_look still returns the UI tree); settings given but invalid are not.
    const invalid = config.vision.route === "none" && config.vision.problem !== undefined;
    return {
      ok: !invalid,
      title: invalid ? "vision settings invalid" : "vision not configured (optional)",
      detail: [
        `${vision.unavailable.setup} The hand verbs work without it, and phone_look still returns the UI tree.`,
      ],
    };
  }
  const image: VisionImage = { bytes: TEST_CARD_PNG, mimeType: "image/png", width: 64, height: 64 };
  try {
    const answer = await vision.describe(
      image,
      "phone-eye --doctor connectivity check: reply with the single word OK.",
    );
    return {
      ok: true,
      title: `vision answers (${vision.route} route, ${vision.endpoint})`,
      detail: [`answer: ${excerpt(answer, 80)}`],
    };
  } catch (error) {
    return {
      ok: false,
      title: `vision does not answer (${vision.route} route, ${vision.endpoint})`,
      detail: [failureReason(error)],
    };
  }
}

/**
 * Shown whenever PHONE_EYE_VISION_ALLOW_HTTP=1 is set: the user opted in to an unencrypted key,
 * and the doctor says where it goes (or that nothing needs the opt-in). Information: the choice
 * was made on purpose, so it fails nothing.
 */
export function keyTransport(config: Config): Check | null {
  if (!config.visionAllowHttp) return null;
  const inClear = keyInClear(config.vision);
  if (inClear === undefined) {
    return {
      ok: true,
      info: true,
      title: "PHONE_EYE_VISION_ALLOW_HTTP=1 is set but unused",
      detail: [
        "no vision credential goes over plain http:// to another host; unset it so a later http:// URL is refused again",
      ],
    };
  }
  const where = `${visionHost(config.vision)}:${visionPort(config.vision)}`;
  return {
    ok: true,
    info: true,
    title: `vision credentials sent unencrypted to ${where} (PHONE_EYE_VISION_ALLOW_HTTP=1)`,
    detail: [
      "anyone on that network can read them; use https:// when the server offers it, and unset PHONE_EYE_VISION_ALLOW_HTTP",
    ],
  };
}
