import assert from "node:assert/strict";
import {
  intentCommand,
  intentFailure,
  isReplayable,
  parseWmSize,
  quoteForDeviceShell,
  READ_ONLY_PROGRAMS,
  refuseIntentArgs,
  refuseUntypableText,
  tapCommand,
  typeTextCommand,
  uiDumpCommand,
} from "../lib/adb/commands.ts";
import { hostileStrings } from "./fixtures/hostile_strings.ts";

/** Runs `script` through a real /bin/sh -c, as the phone's adbd does, with fake tools as functions. */
async function deviceShell(script: string, cwd: string): Promise<string[]> {
  const fakes = ["input", "am", "monkey"]
    .map((name) => `${name}() { printf '%s\\0' ${name} "$@"; };`).join(" ");
  const { stdout, code } = await new Deno.Command("/bin/sh", {
    args: ["-c", `${fakes} ${script}`],
    cwd,
    stdin: "null",
  }).output();
  assert.equal(code, 0);
  const out = new TextDecoder().decode(stdout);
  return out.split("\0").slice(0, -1);
}

/** Groups recorded argv (each call starts with its program name) into calls. */
function calls(argv: string[], program: string): string[][] {
  const result: string[][] = [];
  for (const arg of argv) {
    if (arg === program) result.push([]);
    else result.at(-1)?.push(arg);
  }
  return result;
}

Deno.test("quoteForDeviceShell passes every hostile string to a real sh as exactly one argument", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const marker = `${dir}/pwned`;
    for (const s of hostileStrings(marker)) {
      if (s.includes("\0")) continue; // no process argument can hold NUL; refused at the door
      const argv = await deviceShell(
        `set -- ${quoteForDeviceShell(s)}; printf '%s\\0' "$#" "$1"`,
        dir,
      );
      assert.deepEqual(argv.slice(-2), ["1", s], `mangled: ${JSON.stringify(s)}`);
    }
    assert.equal(await exists(marker), false, "a hostile string executed");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("phone_type cannot break out of device shell quoting", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const marker = `${dir}/pwned`;
    let typed = 0;
    for (const s of hostileStrings(marker)) {
      if (refuseUntypableText(s) !== null) continue;
      typed++;
      const recorded = calls(await deviceShell(typeTextCommand(s).shell, dir), "input");
      assert.ok(recorded.every((c) => c.length === 2 && c[0] === "text"), JSON.stringify(recorded));
      // Android's input turns "%s" into a space, so no piece may carry it; joined, they are the text.
      assert.ok(recorded.every((c) => !c[1]!.includes("%s")));
      assert.equal(recorded.map((c) => c[1]).join(""), s);
    }
    assert.ok(typed >= 25, `only ${typed} hostile strings were typeable`);
    assert.equal(await exists(marker), false, "a hostile string executed");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("phone_intent arguments are refused at the door or arrive as one quoted argument", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const marker = `${dir}/pwned`;
    let sent = 0;
    for (const hostile of hostileStrings(marker)) {
      for (const field of ["action", "data", "component", "package"] as const) {
        // As data, the payload rides in a URI, where the shape check alone would not stop it.
        const s = field === "data" ? `https://x.test/${hostile}` : hostile;
        const args = { action: "android.intent.action.VIEW", [field]: s };
        if (refuseIntentArgs(args) !== null) continue;
        sent++;
        const [call] = calls(await deviceShell(intentCommand(args).shell, dir), "am");
        assert.ok(
          call?.includes(s),
          `${field}=${JSON.stringify(s)} arrived as ${JSON.stringify(call)}`,
        );
      }
    }
    assert.ok(sent >= 3, `only ${sent} payloads got past the door, so quoting went untested`);
    assert.equal(await exists(marker), false, "a hostile string executed");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "refuseIntentArgs refuses metacharacters in every field, with the character named",
  permissions: "none",
  fn() {
    for (const field of ["action", "component", "package", "data"]) {
      for (const bad of [";", "|", "`", "$", ">", "'", '"', "\\", " ", "\n", "(", "*"]) {
        const value = field === "data" ? `https://x.test/${bad}` : `com.example${bad}x`;
        const refusal = refuseIntentArgs({ [field]: value });
        assert.ok(refusal?.startsWith(`Refused ${field}`), `${field} ${JSON.stringify(value)}`);
      }
    }
    assert.match(refuseIntentArgs({ data: "https://x.test/a b" })!, /whitespace.*%20/);
    assert.match(refuseIntentArgs({})!, /at least one of action, data, component or package/);
  },
});

Deno.test({
  name: "refuseIntentArgs accepts real intents, including URLs with query strings",
  permissions: "none",
  fn() {
    const good = [
      { package: "com.android.settings" },
      { action: "android.intent.action.VIEW", data: "https://example.com/a?b=1&c=2#frag" },
      { action: "android.settings.WIFI_SETTINGS" },
      { component: "com.android.settings/.Settings" },
      { component: "com.example.app/com.example.app.MainActivity", package: "com.example.app" },
      { action: "android.intent.action.DIAL", data: "tel:123" },
    ];
    for (const args of good) assert.equal(refuseIntentArgs(args), null, JSON.stringify(args));
    assert.match(refuseIntentArgs({ package: "settings" })!, /package name/);
    assert.match(refuseIntentArgs({ component: "com.x.y" })!, /package\/activity/);
    assert.match(refuseIntentArgs({ data: "example.com" })!, /scheme/);
  },
});

Deno.test({
  name: "a package alone launches the app; with other fields it restricts the intent",
  permissions: "none",
  fn() {
    assert.equal(
      intentCommand({ package: "com.android.settings" }).shell,
      "monkey -p 'com.android.settings' -c android.intent.category.LAUNCHER 1",
    );
    assert.equal(
      intentCommand({ action: "a.b", data: "https://x.test/?q=1&r=2", package: "com.x" }).shell,
      "am start -a 'a.b' -d 'https://x.test/?q=1&r=2' 'com.x'",
    );
  },
});

Deno.test({
  name: "refuseUntypableText refuses control characters and non-ASCII with the way around",
  permissions: "none",
  fn() {
    assert.match(refuseUntypableText("a\nb")!, /newline.*phone_key "enter"/);
    assert.match(refuseUntypableText("a\tb")!, /tab.*phone_key "tab"/);
    assert.match(refuseUntypableText("\x1b[2J")!, /escape/);
    assert.match(refuseUntypableText("café")!, /"é".*printable ASCII.*on-screen keyboard/);
    assert.match(refuseUntypableText("你好")!, /U\+4F60/);
    assert.match(refuseUntypableText("")!, /empty/);
    assert.equal(refuseUntypableText(`Hello, world! ~\`$(x)'"\\ 100%s`), null);
  },
});

Deno.test({
  name: "typeTextCommand splits %s so Android's input tool cannot turn it into a space",
  permissions: "none",
  fn() {
    assert.equal(typeTextCommand("hi there").shell, "input text 'hi there'");
    assert.equal(
      typeTextCommand("50%sale").shell,
      "input text '50%' && input text 'sale'",
    );
  },
});

Deno.test({
  name: "only commands on the read-only allowlist are replayable",
  permissions: "none",
  fn() {
    assert.deepEqual(
      [...READ_ONLY_PROGRAMS].sort(),
      ["cat", "dumpsys", "getprop", "ls", "screencap", "uiautomator", "wm"],
    );
    assert.equal(isReplayable(uiDumpCommand("/data/local/tmp/x.xml", false)), true);
    assert.equal(isReplayable({ service: "exec-out", shell: "screencap -p" }), true);
    assert.equal(isReplayable(tapCommand(1, 2)), false);
    assert.equal(isReplayable(typeTextCommand("x")), false);
    assert.equal(isReplayable(intentCommand({ package: "com.x.y" })), false);
    assert.equal(isReplayable(intentCommand({ action: "a.b" })), false);
    assert.equal(isReplayable({ service: "shell", shell: "  input keyevent 3" }), false);
  },
});

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

Deno.test({
  name: "intentFailure reads am's failures from text, since the legacy shell has no exit status",
  permissions: "none",
  fn() {
    assert.equal(
      intentFailure(
        "Starting: Intent { act=x }\nError: Activity not started, unable to resolve Intent { act=x flg=0x10000000 }\n",
      ),
      "Error: Activity not started, unable to resolve Intent { act=x flg=0x10000000 }",
    );
    assert.match(
      intentFailure("Error type 3\nError: Activity class {a/b} does not exist.")!,
      /^Error/,
    );
    assert.match(intentFailure("** No activities found to run, monkey aborted.")!, /No activities/);
    assert.equal(intentFailure("Starting: Intent { act=android.intent.action.VIEW }\n"), null);
    assert.equal(intentFailure("Events injected: 1\n## Network stats: elapsed time=9ms"), null);
  },
});

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}
