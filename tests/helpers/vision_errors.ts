// Assertions shared by the vision tests: a VisionError with the right code, the right words,
// and never the API key (nor a recognisable part of it) in any text it can be printed as.

import { deepEqual, fail, match, ok } from "node:assert/strict";
import { MAX_RESPONSE_BYTES } from "../../lib/vision/capped_body.ts";
import { VisionError, type VisionErrorCode } from "../../lib/vision/errors.ts";
import type { Flood } from "../fixtures/openai_server.ts";

/**
 * The fake key every vision test uses: distinctive so a leak is unmistakable, and shaped like no
 * generic credential pattern (no `sk-`, no `token=`), so only the exact-key scrub can hide it.
 */
export const KEY = "pe-test-QUx7b9Zt-not-a-pattern";
/** A part of KEY that must not leak either (a server quoting the key half-masked still leaks it). */
export const KEY_PART = "QUx7b9Zt";

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
    ok(!text.includes(KEY_PART), `part of the API key leaked into: ${text}`);
  }
  return err;
}

/**
 * What a flooding server may get out before phone-eye's hang-up reaches it: the cap, plus what the
 * two sockets' buffers and the HTTP stacks hold (about 4 MiB on Linux loopback, measured).
 */
export const FLOOD_SLACK = 8 * 1024 * 1024;

/**
 * Waits until the flood ends and checks that it ended because the client hung up (not because the
 * server sent it all), having sent at most `maxBytes`. A client that never cancels fails here once the
 * fixture reaches its own limit, rather than hanging the test.
 */
export async function assertHungUp(
  flood: Flood | undefined,
  maxBytes = MAX_RESPONSE_BYTES + FLOOD_SLACK,
): Promise<void> {
  ok(flood, "the server never started flooding");
  const how = await flood.ended;
  deepEqual(how, "cancelled", `the client read the flood to its end (${flood.sent} bytes)`);
  ok(
    flood.sent <= maxBytes,
    `the server got ${flood.sent} bytes out (at most ${maxBytes} expected)`,
  );
}
