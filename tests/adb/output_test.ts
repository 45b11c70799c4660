// What the phone's tools print, read into values: screen size, am's and monkey's verdicts, the
// package list, the launcher activity, and input's failures, as each Android version prints them.

import assert from "node:assert/strict";
import {
  inputFailure,
  parsePackageList,
  parseResolvedActivity,
  parseWmSize,
  readIntentOutcome,
} from "../../lib/adb/output.ts";

Deno.test({
  name: "parseWmSize prefers the override size",
  permissions: "none",
  fn() {
    assert.deepEqual(parseWmSize("Physical size: 1080x2400\n"), { width: 1080, height: 2400 });
    assert.deepEqual(
      parseWmSize("Physical size: 1080x2400\r\nOverride size: 720x1600\r\n"),
      { width: 720, height: 1600 },
    );
    assert.equal(parseWmSize("cmd: Can't find service: window"), null);
  },
});

/** am's and monkey's output on the phones docs/android.md describes, per Android version. */
const UNRESOLVED_ERR =
  "Error: Activity not started, unable to resolve Intent { act=x.Y flg=0x10000000 }\n";
const MONKEY_ABORT = [
  "  bash arg: -p",
  "  bash arg: com.nope",
  "  bash arg: -c",
  "  bash arg: android.intent.category.LAUNCHER",
  "  bash arg: 1",
  "** No activities found to run, monkey aborted.",
  "args: [-p, com.nope, -c, android.intent.category.LAUNCHER, 1]",
  ' arg: "-p"',
  ' arg: "com.nope"',
  ' arg: "-c"',
  ' arg: "android.intent.category.LAUNCHER"',
  ' arg: "1"',
  'data="com.nope"',
  'data="android.intent.category.LAUNCHER"',
  "",
].join("\n");

Deno.test({
  name: "readIntentOutcome reads am's and monkey's failures on every Android version's status",
  permissions: "none",
  fn() {
    const unresolved = { kind: "unresolved", intent: "Intent { act=x.Y flg=0x10000000 }" };
    // Android 10-14 exit 0 after the error, Android 15 exits 1, the legacy shell has no status.
    for (const status of [0, 1]) {
      assert.deepEqual(
        readIntentOutcome(`Starting: Intent { act=x.Y }\n${UNRESOLVED_ERR}`, status),
        unresolved,
      );
      assert.deepEqual(
        readIntentOutcome(
          "Starting: Intent { cmp=a.b/.C }\nError type 3\nError: Activity class {a.b/a.b.C} does not exist.\n",
          status,
        ),
        { kind: "no-such-activity", component: "a.b/a.b.C" },
      );
    }
    assert.deepEqual(readIntentOutcome(MONKEY_ABORT, 252), { kind: "no-launcher-activity" });
    // An exception: its own line, not ShellCommand's banner.
    assert.deepEqual(
      readIntentOutcome(
        "Starting: Intent { cmp=a.b/.C }\n\nException occurred while executing 'start':\njava.lang.SecurityException: Permission Denial: starting Intent { cmp=a.b/.C } not exported\n\tat com.android.server.wm.ActivityTaskSupervisor.checkStartAnyActivityPermission(ActivityTaskSupervisor.java:1101)\n",
        255,
      ),
      {
        kind: "failed",
        detail:
          "java.lang.SecurityException: Permission Denial: starting Intent { cmp=a.b/.C } not exported",
      },
    );
    assert.deepEqual(
      readIntentOutcome("Error: Activity not started, unknown error code -96\n", 0),
      {
        kind: "failed",
        detail: "Error: Activity not started, unknown error code -96",
      },
    );
    assert.deepEqual(readIntentOutcome("Starting: Intent { act=x }\nKilled\n", 137), {
      kind: "failed",
      detail: "exit status 137: Starting: Intent { act=x } / Killed",
    });
    assert.deepEqual(
      readIntentOutcome("Starting: Intent { act=android.intent.action.VIEW }\n", 0),
      { kind: "started", warning: undefined },
    );
    assert.deepEqual(
      readIntentOutcome(
        "Starting: Intent { cmp=a/.B }\nWarning: Activity not started, its current task has been brought to the front\n",
        0,
      ),
      {
        kind: "started",
        warning: "Warning: Activity not started, its current task has been brought to the front",
      },
    );
    const monkeyOk = MONKEY_ABORT.replace(
      "** No activities found to run, monkey aborted.",
      "Events injected: 1",
    );
    assert.deepEqual(readIntentOutcome(monkeyOk, 0), { kind: "started", warning: undefined });
  },
});

Deno.test({
  name: "the installed packages are read from pm list packages, bounded, junk skipped",
  permissions: "none",
  fn() {
    assert.deepEqual(
      parsePackageList(
        "package:com.android.settings\r\npackage:com.google.android.gms\nWARNING: linker\npackage:x;y\n\n",
      ),
      ["com.android.settings", "com.google.android.gms"],
    );
    const many = Array.from({ length: 6000 }, (_, i) => `package:com.x.p${i}`).join("\n");
    assert.equal(parsePackageList(many).length, 5000);
  },
});

Deno.test({
  name:
    "resolve-activity's last line is the launcher activity; nothing or another package's is none",
  permissions: "none",
  fn() {
    const brief =
      "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true\ncom.android.settings/.Settings\n";
    assert.equal(
      parseResolvedActivity(brief, "com.android.settings"),
      "com.android.settings/.Settings",
    );
    assert.equal(parseResolvedActivity("No activity found\n", "com.android.settings"), null);
    assert.equal(
      parseResolvedActivity(
        "priority=0 preferredOrder=0 match=0x0 specificIndex=-1 isDefault=false\nandroid/com.android.internal.app.ResolverActivity\n",
        "com.android.settings",
      ),
      null,
    );
  },
});

Deno.test({
  name: "inputFailure reads Android 10's BaseCommand errors (exit 0) and 12+'s exception banner",
  permissions: "none",
  fn() {
    // Android 10-11 (app_process Input, BaseCommand.run): usage, a blank line, "Error: " + message.
    const a10 = "Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]\n\n" +
      "Error: Error: Invalid arguments for command: tap\n";
    assert.match(inputFailure(a10)!, /Invalid arguments for command: tap/);
    assert.match(
      inputFailure(`${a10.split("\n\n")[0]}\n\nError: Argument expected after "1"\n`)!,
      /Argument expected/,
    );
    // Android 12+ (cmd input, BasicShellCommandHandler.exec), exit 255.
    assert.match(
      inputFailure(
        "\nException occurred while executing 'text':\njava.lang.NullPointerException: Attempt to get length of null array\n",
      )!,
      /^java\.lang\.NullPointerException/,
    );
    assert.match(inputFailure("Unknown command: foo\n")!, /Unknown command: foo/);
    assert.equal(inputFailure(""), null);
  },
});
