// Assertions shared by the vision tests: a VisionError with the right code, the right words,
// and never the API key (nor a recognisable part of it) in any text it can be printed as.

import { deepEqual, fail, match, ok } from "node:assert/strict";
import { VisionError, type VisionErrorCode } from "../../lib/vision/errors.ts";

/** The fake key every vision test uses; distinctive so a leak is unmistakable. */
export const KEY = "sk-test-SECRET-1234567890";

/** Awaits a rejection and checks it is a VisionError with `code` whose text names `mentions` and never the key. */
export async function rejectsWith(
  p: Promise<unknown>,
  code: VisionErrorCode,
  mentions: (string | RegExp)[],
): Promise<VisionError> {
  let err: unknown;
  try {
    await p;
  } catch (e) {
    err = e;
  }
  if (!(err instanceof VisionError)) fail(`expected a VisionError(${code}), got ${String(err)}`);
  deepEqual(err.code, code, err.message);
  for (const m of mentions) {
    if (typeof m === "string") ok(err.message.includes(m), `"${m}" missing from: ${err.message}`);
    else match(err.message, m);
  }
  for (const text of [err.message, String(err), err.stack ?? "", JSON.stringify(err)]) {
    ok(!text.includes(KEY), `the API key leaked into: ${text}`);
    ok(!text.includes("SECRET-1234"), `part of the API key leaked into: ${text}`);
  }
  return err;
}
