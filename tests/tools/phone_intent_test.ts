// phone_intent in process, on a scripted phone: what each am/monkey failure becomes, with the
// installed packages named, on the exit statuses Android 10-14 (0) and 15 (1) give.

import assert from "node:assert/strict";
import { createDevice } from "../../lib/adb/device.ts";
import { connectInProcess, textOf } from "../helpers/in_process.ts";
import { exited, fakeAdb, type FakeAnswer } from "../helpers/fake_adb.ts";

const PACKAGES = [
  "com.android.settings",
  "com.android.chrome",
  "com.android.systemui",
  "com.google.android.youtube",
  "com.whatsapp",
].map((p) => `package:${p}\n`).join("");

const MONKEY_ABORT =
  "  bash arg: -p\n  bash arg: com.android.setings\n  bash arg: -c\n  bash arg: android.intent.category.LAUNCHER\n  bash arg: 1\n** No activities found to run, monkey aborted.\n";
const MONKEY_ARGS =
  'args: [-p, com.android.setings, -c, android.intent.category.LAUNCHER, 1]\n arg: "-p"\n';

async function call(
  rules: Array<[RegExp, FakeAnswer | FakeAnswer[]]>,
  args: Record<string, string>,
): Promise<{ isError: boolean; text: string; sent: string[] }> {
  const adb = fakeAdb([[/pm list packages/, exited(0, PACKAGES)], ...rules]);
  const device = createDevice({ run: adb.run, serial: undefined, timeoutMs: 1000 });
  const mcp = await connectInProcess({ device });
  try {
    // The command am gets and its reading, not what settling reads afterwards (agent_loop_test).
    const result = await mcp.client.callTool({
      name: "phone_intent",
      arguments: { ...args, settle: false },
    });
    return { isError: result.isError === true, text: textOf(result), sent: adb.sent };
  } finally {
    await mcp.close();
  }
}

Deno.test({
  name: "an unknown package says it is not installed and names the closest installed packages",
  permissions: "none",
  async fn() {
    const r = await call(
      [[/ monkey /, exited(0, MONKEY_ABORT, MONKEY_ARGS, { status: 252 })]],
      { package: "com.android.setings" },
    );
    assert.equal(r.isError, true);
    assert.match(
      r.text,
      /^Cannot start the intent: no package "com\.android\.setings" is installed on the phone; the closest installed packages are com\.android\.settings, com\.android\.\w+, com\.android\.\w+\. Check the package name$/,
    );
    assert.doesNotMatch(r.text, /args:|bash arg|252/);
    assert.deepEqual(r.sent, [
      "monkey -p 'com.android.setings' -c android.intent.category.LAUNCHER 1",
      "pm list packages",
    ]);
  },
});

Deno.test({
  name: "an installed package without a launcher activity says so and how to open it instead",
  permissions: "none",
  async fn() {
    const r = await call(
      [[/ monkey /, exited(0, MONKEY_ABORT.replace("setings", "systemui"), "", { status: 252 })]],
      { package: "com.android.systemui" },
    );
    assert.equal(r.isError, true);
    assert.match(
      r.text,
      /^Cannot start the intent: "com\.android\.systemui" is installed but has no launcher activity.*give a component \("com\.android\.systemui\/\.SomeActivity"\)/,
    );
  },
});

Deno.test({
  name:
    "a bad component: the class does not exist, and the package's launcher activity, on 0 and 1",
  permissions: "none",
  async fn() {
    for (const status of [0, 1]) {
      const r = await call([
        [
          / am start /,
          exited(
            0,
            "Starting: Intent { cmp=com.android.settings/.Nope }\n",
            "Error type 3\nError: Activity class {com.android.settings/com.android.settings.Nope} does not exist.\n",
            { status },
          ),
        ],
        [
          /resolve-activity/,
          exited(
            0,
            "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true\ncom.android.settings/.Settings\n",
          ),
        ],
      ], { component: "com.android.settings/.Nope" });
      assert.equal(r.isError, true);
      assert.equal(
        r.text,
        'Cannot start the intent: the activity class {com.android.settings/com.android.settings.Nope} does not exist; "com.android.settings" opens at com.android.settings/.Settings: give that as component, or the package alone',
      );
    }
  },
});

Deno.test({
  name: "a bad component of a package that is not installed names the closest packages",
  permissions: "none",
  async fn() {
    const r = await call([[
      / am start /,
      exited(
        0,
        "Starting: Intent { cmp=com.whatsap/.Main }\n",
        "Error type 3\nError: Activity class {com.whatsap/com.whatsap.Main} does not exist.\n",
        { status: 1 },
      ),
    ]], { component: "com.whatsap/.Main" });
    assert.match(
      r.text,
      /^Cannot start the intent: the activity class \{com\.whatsap\/com\.whatsap\.Main\} does not exist: no package "com\.whatsap" is installed on the phone; the closest installed packages are com\.whatsapp, /,
    );
  },
});

Deno.test({
  name: "an intent no app handles says so on both exit statuses, quoting am's intent",
  permissions: "none",
  async fn() {
    for (const status of [0, 1]) {
      const r = await call([[
        / am start /,
        exited(
          0,
          "Starting: Intent { act=com.nope.GO }\n",
          "Error: Activity not started, unable to resolve Intent { act=com.nope.GO flg=0x10000000 }\n",
          { status },
        ),
      ]], { action: "com.nope.GO" });
      assert.equal(r.isError, true);
      assert.match(
        r.text,
        /^Cannot start the intent: am is unable to resolve Intent \{ act=com\.nope\.GO flg=0x10000000 \}: no app on the phone handles it\. Check the action and data/,
      );
      // Nothing to suggest without a package: no extra round trip.
      assert.deepEqual(r.sent, ["am start -a 'com.nope.GO'"]);
    }
  },
});

Deno.test({
  name: "data without an action opens with VIEW",
  permissions: "none",
  async fn() {
    const r = await call([[
      / am start /,
      exited(
        0,
        "Starting: Intent { act=android.intent.action.VIEW dat=https://example.com/... }\n",
      ),
    ]], { data: "https://example.com/a" });
    assert.equal(r.isError, false, r.text);
    assert.equal(
      r.text,
      "Started the intent: action android.intent.action.VIEW, data https://example.com/a.",
    );
    assert.deepEqual(r.sent, [
      "am start -a 'android.intent.action.VIEW' -d 'https://example.com/a'",
    ]);
  },
});

Deno.test({
  name: "a started intent answers in one shape, naming what was sent, whether monkey or am ran it",
  permissions: "none",
  async fn() {
    const launched = await call(
      [[/ monkey /, exited(0, "Events injected: 1\n## Network stats: elapsed time=12ms\n")]],
      { package: "com.android.settings" },
    );
    assert.equal(launched.isError, false, launched.text);
    assert.equal(launched.text, "Started com.android.settings (its launcher activity).");
    const fronted = await call([[
      / am start /,
      exited(
        0,
        "Starting: Intent { cmp=com.android.settings/.Settings }\nWarning: Activity not started, its current task has been brought to the front\n",
      ),
    ]], { component: "com.android.settings/.Settings" });
    assert.equal(fronted.isError, false, fronted.text);
    assert.equal(
      fronted.text,
      "Started the intent: component com.android.settings/.Settings. (am: Warning: Activity not started, its current task has been brought to the front)",
    );
  },
});

Deno.test({
  name: "when listing the packages fails too, the first error still comes back",
  permissions: "none",
  async fn() {
    const adb = fakeAdb([
      [/ monkey /, exited(0, MONKEY_ABORT, "", { status: 252 })],
      [/pm list packages/, exited(0, "", "cmd: Can't find service: package\n", { status: 255 })],
    ]);
    const device = createDevice({ run: adb.run, serial: undefined, timeoutMs: 1000 });
    const mcp = await connectInProcess({ device });
    try {
      const result = await mcp.client.callTool({
        name: "phone_intent",
        arguments: { package: "com.android.setings" },
      });
      assert.equal(result.isError, true);
      assert.match(
        textOf(result),
        /no app "com\.android\.setings" to launch: it is not installed, or has no launcher activity/,
      );
    } finally {
      await mcp.close();
    }
  },
});

Deno.test({
  name: "adb's own failures stay errors although phone_intent reads am's status itself",
  permissions: "none",
  async fn() {
    const r = await call([[/ am start /, exited(1, "", "adb: device offline\n")]], {
      action: "com.x.GO",
    });
    assert.equal(r.isError, true);
    assert.match(r.text, /^Cannot start the intent: no Android device reachable/);
  },
});
