// The image pipeline at production sizes: the cases tests/image/image_test.ts samples at a fraction of a
// phone's pixels (same classes, same assertions), run here on 1080×2400 and 1440×3200 screens with
// the production sizings and budgets. `deno task test:long` runs this file.

import assert from "node:assert/strict";
import { decode as jpegDecode } from "jpeg-js";
import {
  base64Length,
  encodeFrame,
  encodeJpeg,
  encodePng,
  jpegMinBytes,
  toBase64,
} from "../../lib/image/encode.ts";
import { ImageError } from "../../lib/image/frame.ts";
import { readPngStream } from "../../lib/image/png_decode.ts";
import { frameOf } from "../../lib/image/row_reducer.ts";
import {
  agentSizing,
  DEFAULT_MAX_BASE64_BYTES,
  fitFor,
  visionSizing,
} from "../../lib/image/sizing.ts";
import { decodePng, prepareForAgent, prepareForVision } from "../fixtures/images/pipeline.ts";
import {
  noiseScreen,
  syntheticScreen,
  uniformScreen,
} from "../fixtures/images/synthetic_screen.ts";
import { assertScaleMaps } from "../helpers/scale_maps.ts";

function pure(name: string, fn: () => void | Promise<void>): void {
  Deno.test({ name, permissions: "none", fn });
}

pure(
  "prepareForAgent sends JPEG for a 1080×2400 screen with a photo and PNG for flat UI",
  async () => {
    const photo = prepareForAgent(syntheticScreen(1080, 2400));
    assert.equal(photo.mimeType, "image/jpeg");
    const decoded = jpegDecode(photo.bytes, { useTArray: true });
    assert.deepEqual([decoded.width, decoded.height], [photo.width, photo.height]);
    const flat = prepareForAgent(syntheticScreen(1080, 2400, { photo: false }));
    assert.equal(flat.mimeType, "image/png");
    const back = await decodePng(flat.bytes);
    assert.deepEqual([back.width, back.height], [540, 1200]);
  },
);

pure("prepareForAgent keeps a noisy 1440×3200 worst case within the base64 budget", () => {
  const noise = noiseScreen(1440, 3200);
  for (const budget of [DEFAULT_MAX_BASE64_BYTES, 300_000, 60_000]) {
    const a = prepareForAgent(noise, { maxBase64Bytes: budget });
    const b64 = toBase64(a.bytes);
    assert.equal(b64.length, base64Length(a.bytes.length));
    assert.ok(b64.length <= budget, `${b64.length} > ${budget}`);
    assertScaleMaps(`budget ${budget}`, a);
  }
  const v = prepareForVision(noise);
  assert.ok(base64Length(v.bytes.length) <= DEFAULT_MAX_BASE64_BYTES);
});

pure(
  "prepareForAgent throws TOO_LARGE for a noisy 1080×2400 screen and an impossible budget",
  () => {
    assert.throws(
      () => prepareForAgent(noiseScreen(1080, 2400), { maxBase64Bytes: 2_000 }),
      (error: unknown) =>
        error instanceof ImageError && error.code === "TOO_LARGE" &&
        /raise the byte budget/.test(error.message),
    );
  },
);

pure(
  "encodeFrame gives the same image from a 1080×2400 frame reduced while decoding as from the full one",
  async () => {
    for (
      const screen of [syntheticScreen(1080, 2400), syntheticScreen(1080, 2400, { photo: false })]
    ) {
      const png = encodePng(screen);
      for (const sizing of [agentSizing(), visionSizing()]) {
        const direct = encodeFrame(await readPngStream(png, fitFor(sizing)), sizing);
        const viaFull = encodeFrame(frameOf(screen), sizing);
        assert.deepEqual(
          [direct.mimeType, direct.width, direct.height, direct.scale, direct.sourceWidth],
          [viaFull.mimeType, viaFull.width, viaFull.height, viaFull.scale, viaFull.sourceWidth],
        );
        assert.deepEqual(direct.bytes, viaFull.bytes);
      }
    }
  },
);

pure("jpegMinBytes is a floor under every JPEG encodeJpeg writes of a 540×1200 screen", () => {
  const img = uniformScreen(540, 1200, [255, 255, 255]);
  for (const q of [50, 80, 95]) {
    assert.ok(encodeJpeg(img, q).length >= jpegMinBytes(img.width, img.height), `q${q}`);
  }
});
