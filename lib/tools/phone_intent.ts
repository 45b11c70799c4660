// phone_intent: starts an activity with `am start` (or launches an app by package alone).
// Every argument is whitelisted at the door and quoted as well; am's failures come back explained.

import { z } from "zod";
import {
  type IntentArgs,
  intentArgsProblem,
  intentCommand,
  listPackagesCommand,
  resolveActivityCommand,
  VIEW_ACTION,
} from "../adb/intent_commands.ts";
import { parsePackageList, parseResolvedActivity, readIntentOutcome } from "../adb/output.ts";
import { closestPackages } from "../core/near_names.ts";
import type { Device } from "../adb/device.ts";
import { AdbError } from "../adb/errors.ts";
import { actionResult, beginAction, SETTLE_SENTENCE, settleField } from "./acting.ts";
import { type FailureFacts, ToolInputError } from "../core/errors.ts";
import { ACTS_ON_PHONE, defineTool, deviceArg } from "./tool.ts";

const field = (what: string) => z.string().min(1).max(2000).optional().describe(what);

export const phoneIntent = defineTool({
  name: "phone_intent",
  title: "Start an app or intent",
  description:
    'Open an app, a URL or a deep link on the Android phone: launch an app by its package name, or start an Android intent (am start). Give package alone to launch an app, data for a URL or deep link (action defaults to VIEW), or component ("pkg/.Activity") for an exact screen. ' +
    SETTLE_SENTENCE,
  inputSchema: z.strictObject({
    device: deviceArg(),
    action: field('"android.intent.action.VIEW"'),
    data: field('"https://example.com", "tel:123"'),
    component: field('"com.android.settings/.Settings"'),
    package: field('"com.android.chrome"'),
    settle: settleField,
  }),
  annotations: ACTS_ON_PHONE,
  action: "start the intent",
  // device picked the phone (server.ts); the rest are the intent's own fields.
  async handler(deps, { settle, device: _phone, ...args }, call) {
    const { device } = deps;
    const refusal = intentArgsProblem(args);
    if (refusal) throw new ToolInputError({ what: refusal });
    const acting = beginAction(deps, { settle });
    const out = await device.run(intentCommand(args), { ownStatus: true, signal: call.signal });
    const outcome = readIntentOutcome(out.text, out.status);
    if (outcome.kind === "started") {
      const reply = `Started ${startedWhat(args)}.${
        outcome.warning ? ` (am: ${outcome.warning})` : ""
      }`;
      return await actionResult(deps, call, acting, reply);
    }
    throw new AdbError("COMMAND_FAILED", await explainFailure(device, args, outcome));
  },
});

/**
 * What was started, from the arguments the agent sent, in one shape whichever way it was started
 * (monkey for a package alone prints no intent; am echoes one).
 */
function startedWhat(args: IntentArgs): string {
  const { action, data, component, package: pkg } = args;
  if (pkg !== undefined && action === undefined && data === undefined && component === undefined) {
    return `${pkg} (its launcher activity)`;
  }
  const shownAction = action ?? (data !== undefined ? VIEW_ACTION : undefined);
  const fields = [
    component !== undefined && `component ${component}`,
    shownAction !== undefined && `action ${shownAction}`,
    data !== undefined && `data ${data}`,
    pkg !== undefined && `package ${pkg}`,
  ].filter((f): f is string => typeof f === "string");
  return `the intent: ${fields.join(", ")}`;
}

type Failure = Exclude<ReturnType<typeof readIntentOutcome>, { kind: "started" }>;

/** What went wrong and what to do, with what the phone has instead: the facts the verb words. */
async function explainFailure(
  device: Device,
  args: IntentArgs,
  failure: Failure,
): Promise<FailureFacts> {
  switch (failure.kind) {
    case "no-launcher-activity": {
      // Only monkey says this, and phone-eye runs monkey for a package given alone.
      const pkg = args.package ?? "";
      const packages = await installedPackages(device);
      if (packages === null) {
        return {
          what:
            `the phone has no app "${pkg}" to launch: it is not installed, or has no launcher activity. Check the package name, or give a component ("${pkg}/.SomeActivity")`,
        };
      }
      if (!packages.includes(pkg)) {
        return { what: `${notInstalled(pkg, packages)}. Check the package name` };
      }
      return {
        what:
          `"${pkg}" is installed but has no launcher activity, so there is no app screen to open from its package alone`,
        fix: `give a component ("${pkg}/.SomeActivity") or an action and data it handles`,
      };
    }
    case "no-such-activity": {
      const pkg = failure.component.split("/", 1)[0] ?? "";
      const what = `the activity class {${failure.component}} does not exist`;
      const packages = await installedPackages(device);
      if (packages !== null && !packages.includes(pkg)) {
        return { what: `${what}: ${notInstalled(pkg, packages)}` };
      }
      const launcher = await launcherActivity(device, pkg);
      return {
        what,
        fix: launcher === null
          ? "check the class name (phone_look shows what is on screen)"
          : `"${pkg}" opens at ${launcher}: give that as component, or the package alone`,
      };
    }
    case "unresolved": {
      const what = `am is unable to resolve ${failure.intent}: no app on the phone handles it`;
      const pkg = args.package;
      if (pkg !== undefined) {
        const packages = await installedPackages(device);
        if (packages !== null && !packages.includes(pkg)) {
          return { what: `${what}: ${notInstalled(pkg, packages)}` };
        }
      }
      return {
        what:
          `${what}. Check the action and data (a web link needs an http(s) URI, viewed with android.intent.action.VIEW)`,
        fix: "to open an app, give its package alone",
      };
    }
    case "failed":
      return { what: `the phone said: ${failure.detail}` };
  }
}

/** "no package X is installed…", naming the installed packages closest to it. */
function notInstalled(pkg: string, packages: readonly string[]): string {
  const close = closestPackages(pkg, packages);
  return `no package "${pkg}" is installed on the phone${
    close.length > 0 ? `; the closest installed packages are ${close.join(", ")}` : ""
  }`;
}

/**
 * The installed packages (`pm list packages`, read-only), or null when the phone could not say:
 * the suggestion is a bonus, so its failure never hides the original error.
 */
async function installedPackages(device: Device): Promise<string[] | null> {
  try {
    const out = await device.run(listPackagesCommand());
    const packages = parsePackageList(out.text);
    return packages.length > 0 ? packages : null;
  } catch (error) {
    if (error instanceof AdbError) return null;
    throw error;
  }
}

/** The package's launcher activity ("pkg/.Main"), or null when it has none or the phone failed. */
async function launcherActivity(device: Device, pkg: string): Promise<string | null> {
  try {
    const out = await device.run(resolveActivityCommand(pkg));
    return parseResolvedActivity(out.text, pkg);
  } catch (error) {
    if (error instanceof AdbError) return null;
    throw error;
  }
}
