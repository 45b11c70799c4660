// The commands that start apps and read what is installed: `am start` or monkey for an intent whose
// every argument is checked at the door, `pm list packages`, and the launcher activity lookup.
//
// Android's shell tools are cited at the frameworks/base and development commits linked.

import { characterName, scanCharacters } from "../core/characters.ts";
import { type Arg, type DeviceCommand, quoted, shellCommand } from "./commands.ts";

export interface IntentArgs {
  action?: string | undefined;
  data?: string | undefined;
  component?: string | undefined;
  package?: string | undefined;
}

/** Characters the phone's shell gives meaning to; refused in every intent argument. */
const SHELL_META = /[\s;&|`$<>\\'"(){}\[\]*?!~#^]/u;
/** In a URI, '&', '?', '#', '~' and '!' are ordinary (RFC 3986); quoting keeps them inert. */
const URI_SHELL_META = /[\s;|`$<>\\'"(){}\[\]*^]/u;

const JAVA_NAME = String.raw`[A-Za-z_][A-Za-z0-9_]*`;
const ACTION_NAME = new RegExp(`^${JAVA_NAME}(\\.${JAVA_NAME})*$`);
/** A package name: two or more dotted Java names. */
export const PACKAGE_NAME = new RegExp(`^${JAVA_NAME}(\\.${JAVA_NAME})+$`);
/** A component: package/activity, the activity absolute or relative (".Main"). */
export const COMPONENT_NAME = new RegExp(
  `^${JAVA_NAME}(\\.${JAVA_NAME})+/\\.?${JAVA_NAME}(\\.${JAVA_NAME})*$`,
);
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/;

/**
 * Checks intent arguments at the door: control characters first (a NUL would reach the spawn of
 * adb, which refuses it), then shell metacharacters (a typo'd action with ';' should fail loudly,
 * not launch a strange intent), then each argument's own shape. Returns the reason to refuse them,
 * or null when they may be quoted and sent.
 */
export function intentArgsProblem(args: IntentArgs): string | null {
  const given = Object.entries(args).filter(([, v]) => v !== undefined) as [string, string][];
  if (given.length === 0) {
    return "Nothing to start: give at least one of action, data, component or package";
  }
  for (const [name, value] of given) {
    const control = scanCharacters(value).control;
    if (control !== undefined) {
      return `Refused ${name}: it contains a control character (${
        characterName(control)
      }), which phone_intent does not pass; remove it`;
    }
    const meta = (name === "data" ? URI_SHELL_META : SHELL_META).exec(value);
    if (meta) {
      const shown = /\s/.test(meta[0]) ? "whitespace" : `"${meta[0]}"`;
      return `Refused ${name}: it contains ${shown}, a shell metacharacter phone_intent does not pass${
        name === "data" ? "; percent-encode it in the URI (e.g. a space as %20)" : ""
      }`;
    }
  }
  const checks: Array<[keyof IntentArgs, RegExp, string]> = [
    ["action", ACTION_NAME, "an intent action such as android.intent.action.VIEW"],
    ["package", PACKAGE_NAME, "a package name such as com.android.settings"],
    [
      "component",
      COMPONENT_NAME,
      "a component such as com.android.settings/.Settings (package/activity)",
    ],
    ["data", URI, "a URI with a scheme, such as https://example.com/path or tel:123"],
  ];
  for (const [name, re, shape] of checks) {
    const value = args[name];
    if (value !== undefined && !re.test(value)) {
      return `Refused ${name} ${JSON.stringify(value)}: expected ${shape}`;
    }
  }
  return null;
}

/** The action a URI is opened with when none is given: what "open this link" means. */
export const VIEW_ACTION = "android.intent.action.VIEW";

/**
 * `am start` for an intent, each argument both whitelisted (intentArgsProblem) and quoted. A package
 * with nothing else launches the app's launcher activity, as a tap on its icon would: monkey picks
 * the package's MAIN/LAUNCHER activity (Monkey.getMainApps,
 * https://github.com/aosp-mirror/platform_development/blob/0ee6ec4a7371daf1e36b876c33b1f5cfc64bba4d/cmds/monkey/src/com/android/commands/monkey/Monkey.java).
 * Data without an action is viewed (android.intent.action.VIEW): an intent with data and no action
 * matches no app's intent filter, so am would only answer "unable to resolve Intent".
 */
export function intentCommand(args: IntentArgs): DeviceCommand {
  const { data, component, package: pkg } = args;
  const action = args.action ?? (data !== undefined ? VIEW_ACTION : undefined);
  if (pkg !== undefined && action === undefined && data === undefined && component === undefined) {
    return shellCommand("monkey", ["-p", quoted(pkg), "-c", "android.intent.category.LAUNCHER", 1]);
  }
  const parts: Arg[] = ["start"];
  if (action !== undefined) parts.push("-a", quoted(action));
  if (data !== undefined) parts.push("-d", quoted(data));
  if (component !== undefined) parts.push("-n", quoted(component));
  // A trailing bare name is am's way to restrict an intent to one package (Intent.parseCommandArgs,
  // https://github.com/aosp-mirror/platform_frameworks_base/blob/426c31323cb86f86149e99a23262004dfd58891f/core/java/android/content/Intent.java).
  if (pkg !== undefined) parts.push(quoted(pkg));
  return shellCommand("am", parts);
}

/**
 * Lists the installed packages (read-only): `pm list packages` prints "package:NAME" per package,
 * PackageManagerShellCommand.runListPackages,
 * https://github.com/aosp-mirror/platform_frameworks_base/blob/6257ba4c5d5a3f64bb8f8a3d2fe3d39780adf158/services/core/java/com/android/server/pm/PackageManagerShellCommand.java.
 */
export const listPackagesCommand = (): DeviceCommand => shellCommand("pm", ["list", "packages"]);

/**
 * The package's launcher activity: `cmd package resolve-activity --brief` with the MAIN/LAUNCHER
 * intent a home-screen icon sends prints two lines, the second ComponentName.flattenToShortString
 * ("pkg/.Activity"), or "No activity found" with exit 0 (runResolveActivity and printResolveInfo,
 * same file as above).
 */
export const resolveActivityCommand = (pkg: string): DeviceCommand =>
  shellCommand("cmd", [
    "package",
    "resolve-activity",
    "--brief",
    "-a",
    "android.intent.action.MAIN",
    "-c",
    "android.intent.category.LAUNCHER",
    quoted(pkg),
  ]);
