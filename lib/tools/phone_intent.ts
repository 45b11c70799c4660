// phone_intent: starts an activity with `am start` (or launches an app by package alone).
// Every argument is whitelisted at the door and quoted as well; am's failures come back as errors.

import { z } from "zod";
import { intentCommand, intentFailure, refuseIntentArgs } from "../adb/commands.ts";
import { AdbError } from "../adb/errors.ts";
import { ACTS_ON_PHONE, defineTool, textResult, ToolInputError } from "./tool.ts";

const field = (what: string) => z.string().min(1).max(2000).optional().describe(what);

export const phoneIntent = defineTool({
  name: "phone_intent",
  title: "Start an app or intent",
  description:
    'Open an app or a deep link with an Android intent (am start). Give at least one of: package alone to launch an app ("com.android.settings"); data with action android.intent.action.VIEW to open a URL or deep link; component ("pkg/.Activity") for an exact screen. Shell metacharacters are refused.',
  inputSchema: z.object({
    action: field('intent action, e.g. "android.intent.action.VIEW"'),
    data: field('data URI, e.g. "https://example.com" or "tel:123"'),
    component: field('exact activity, e.g. "com.android.settings/.Settings"'),
    package: field('package name, e.g. "com.android.chrome"; alone, it launches that app'),
  }),
  annotations: ACTS_ON_PHONE,
  async handler({ device }, args) {
    const refusal = refuseIntentArgs(args);
    if (refusal) throw new ToolInputError(`Cannot start the intent: ${refusal}`);
    const out = await device.run(intentCommand(args), { action: "start the intent" });
    const failure = intentFailure(out.text);
    if (failure) {
      throw new AdbError("COMMAND_FAILED", `Cannot start the intent: the phone said: ${failure}`);
    }
    const started = out.text.split(/\r?\n/).find((l) => /^(Starting|Warning):/.test(l.trim()));
    return textResult(started ? `Started. ${started.trim()}` : "Started.");
  },
});
