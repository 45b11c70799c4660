import assert from "node:assert/strict";
import {
  deviceCommand,
  deviceShellLine,
  quoted,
  quoteForDeviceShell,
  READ_ONLY_PROGRAMS,
  shellScript,
  syntax,
} from "../../lib/adb/commands.ts";
import {
  inputTextProblem,
  keyeventCommand,
  tapCommand,
  typeTextCommand,
} from "../../lib/adb/input_commands.ts";
import { intentArgsProblem, intentCommand } from "../../lib/adb/intent_commands.ts";
import {
  screencapPngCommand,
  screencapRawCommand,
  uiDumpCommand,
  uiDumpToTtyCommand,
} from "../../lib/adb/screen_commands.ts";
import { hostileStrings } from "../fixtures/hostile_strings.ts";

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
      if (inputTextProblem(s) !== null) continue;
      typed++;
      const recorded = calls(await deviceShell(deviceShellLine(typeTextCommand(s)), dir), "input");
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
        if (intentArgsProblem(args) !== null) continue;
        sent++;
        const [call] = calls(await deviceShell(deviceShellLine(intentCommand(args)), dir), "am");
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
  name: "intentArgsProblem refuses metacharacters in every field, with the character named",
  permissions: "none",
  fn() {
    for (const field of ["action", "component", "package", "data"]) {
      for (const bad of [";", "|", "`", "$", ">", "'", '"', "\\", " ", "\n", "(", "*"]) {
        const value = field === "data" ? `https://x.test/${bad}` : `com.example${bad}x`;
        const refusal = intentArgsProblem({ [field]: value });
        assert.ok(refusal?.startsWith(`Refused ${field}`), `${field} ${JSON.stringify(value)}`);
      }
    }
    assert.match(intentArgsProblem({ data: "https://x.test/a b" })!, /whitespace.*%20/);
    assert.match(intentArgsProblem({})!, /at least one of action, data, component or package/);
  },
});

Deno.test({
  name: "intentArgsProblem accepts real intents, including URLs with query strings",
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
    for (const args of good) assert.equal(intentArgsProblem(args), null, JSON.stringify(args));
    assert.match(intentArgsProblem({ package: "settings" })!, /package name/);
    assert.match(intentArgsProblem({ component: "com.x.y" })!, /package\/activity/);
    assert.match(intentArgsProblem({ data: "example.com" })!, /scheme/);
  },
});

Deno.test({
  name: "a package alone launches the app; with other fields it restricts the intent",
  permissions: "none",
  fn() {
    assert.equal(
      deviceShellLine(intentCommand({ package: "com.android.settings" })),
      "monkey -p 'com.android.settings' -c android.intent.category.LAUNCHER 1",
    );
    assert.equal(
      deviceShellLine(
        intentCommand({ action: "a.b", data: "https://x.test/?q=1&r=2", package: "com.x" }),
      ),
      "am start -a 'a.b' -d 'https://x.test/?q=1&r=2' 'com.x'",
    );
  },
});

Deno.test({
  name: "data without an action is viewed, as a user means by 'open this link'",
  permissions: "none",
  fn() {
    assert.equal(
      deviceShellLine(intentCommand({ data: "https://example.com" })),
      "am start -a 'android.intent.action.VIEW' -d 'https://example.com'",
    );
    assert.equal(
      deviceShellLine(intentCommand({ data: "tel:123", package: "com.android.dialer" })),
      "am start -a 'android.intent.action.VIEW' -d 'tel:123' 'com.android.dialer'",
    );
    // A component or an action given alone stays as it is.
    assert.equal(deviceShellLine(intentCommand({ component: "a.b/.C" })), "am start -n 'a.b/.C'");
    assert.equal(deviceShellLine(intentCommand({ action: "a.b" })), "am start -a 'a.b'");
  },
});

Deno.test({
  name: "inputTextProblem refuses control characters and non-ASCII with the way around",
  permissions: "none",
  fn() {
    assert.match(inputTextProblem("a\nb")!, /newline.*phone_key "enter"/);
    assert.match(inputTextProblem("a\tb")!, /tab.*phone_key "tab"/);
    assert.match(inputTextProblem("\x1b[2J")!, /escape/);
    assert.match(inputTextProblem("café")!, /"é".*printable ASCII.*on-screen keyboard/);
    assert.match(inputTextProblem("你好")!, /U\+4F60/);
    assert.match(inputTextProblem("")!, /empty/);
    assert.equal(inputTextProblem(`Hello, world! ~\`$(x)'"\\ 100%s`), null);
  },
});

Deno.test({
  name: "typeTextCommand splits %s so Android's input tool cannot turn it into a space",
  permissions: "none",
  fn() {
    assert.equal(deviceShellLine(typeTextCommand("hi there")), "input text 'hi there'");
    assert.equal(
      deviceShellLine(typeTextCommand("50%sale")),
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
    assert.equal(uiDumpCommand("/data/local/tmp/x.xml").replayable, true);
    assert.equal(screencapPngCommand().replayable, true);
    assert.equal(tapCommand(1, 2).replayable, false);
    assert.equal(typeTextCommand("x").replayable, false);
    assert.equal(intentCommand({ package: "com.x.y" }).replayable, false);
    assert.equal(intentCommand({ action: "a.b" }).replayable, false);
    assert.equal(keyeventCommand(3).replayable, false);
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

Deno.test({
  name: "the UI tree is one exec-out command read under the text cap; only screencap is an image",
  permissions: "none",
  fn() {
    assert.deepEqual(uiDumpToTtyCommand(), {
      program: "uiautomator",
      args: ["dump", "/dev/tty"],
      service: "exec-out",
      replayable: true,
      output: "text",
    });
    assert.equal(deviceShellLine(uiDumpToTtyCommand()), "uiautomator dump /dev/tty");
    assert.equal(
      deviceShellLine(uiDumpToTtyCommand({ compressed: true })),
      "uiautomator dump --compressed /dev/tty",
    );
    assert.ok(uiDumpToTtyCommand().replayable);
    assert.equal(uiDumpToTtyCommand().output, "text");
    assert.equal(screencapPngCommand().output, "image");
    assert.equal(screencapRawCommand().output, "image");
    assert.equal(deviceShellLine(screencapRawCommand()), "screencap");
    assert.equal(uiDumpCommand("/data/local/tmp/x.xml").output, "text");
  },
});

Deno.test({
  name: "a value passed to a command as a plain word is refused when the command is built",
  permissions: "none",
  fn() {
    for (const word of ["a b", "x;reboot", "$(id)", "`id`", "'", "a|b", "~", "*", ""]) {
      assert.throws(
        () => deviceCommand("shell", "getprop", [word]),
        RangeError,
        JSON.stringify(word),
      );
      // Quoted, the same value is one inert argument.
      assert.equal(
        deviceShellLine(deviceCommand("shell", "getprop", [quoted(word)])),
        `getprop ${quoteForDeviceShell(word)}`,
      );
    }
    assert.throws(() => deviceCommand("shell", "rm -rf", []), RangeError);
    assert.throws(() => tapCommand(1.5, 2), RangeError);
    assert.throws(() => typeTextCommand("café"), RangeError, "beyond ASCII goes to ADB Keyboard");
  },
});

Deno.test({
  name: "replayability and the output cap are read from the command's program, not its text",
  permissions: "none",
  fn() {
    for (const program of READ_ONLY_PROGRAMS) {
      assert.equal(deviceCommand("shell", program, []).replayable, true, program);
    }
    assert.equal(deviceCommand("shell", "input", ["keyevent", 3]).replayable, false);
    // A script phone-eye wrote is never replayed, whatever it starts with.
    const script = shellScript([syntax("cat /x; input keyevent 3")]);
    assert.equal(script.replayable, false);
    assert.equal(deviceShellLine(script), "cat /x; input keyevent 3");
    assert.equal(deviceCommand("exec-out", "screencap", ["-p"]).output, "text", "image is asked");
  },
});
