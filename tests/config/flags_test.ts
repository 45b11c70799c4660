// The command line: what each flag asks for, and each refusal in phone-eye's words, in process and
// once through `deno task start`.

import assert from "node:assert/strict";
import { ConfigError } from "../../lib/config/config.ts";
import { parseCommandLine } from "../../lib/config/flags.ts";
import { denoEnv } from "../helpers/phone_eye.ts";

Deno.test({
  name: "the command line knows --help, --version, --doctor, --serial and refuses anything else",
  permissions: "none",
  async fn() {
    assert.deepEqual(await parseCommandLine([]), { command: "serve" });
    assert.deepEqual(await parseCommandLine(["--serial", "a:1", "--doctor"]), {
      command: "doctor",
      serial: "a:1",
    });
    assert.deepEqual(await parseCommandLine(["--help"]), { command: "help" });
    assert.deepEqual(await parseCommandLine(["--version"]), { command: "version" });
    assert.deepEqual(await parseCommandLine(["--serial=a:1"]), { command: "serve", serial: "a:1" });
    assert.deepEqual(await parseCommandLine(["-h"]), { command: "help" });
    assert.deepEqual(await parseCommandLine(["-V"]), { command: "version" });
    assert.deepEqual(await parseCommandLine(["--", "--doctor"]), { command: "doctor" });
    assert.deepEqual(await parseCommandLine(["--"]), { command: "serve" });
    // Each refusal in phone-eye's words, naming what was wrong and the flags there are.
    const flags =
      "the flags are --serial SERIAL, --http HOST:PORT, --tls-cert FILE, --tls-key FILE, --journal FILE, --replay FILE, --device SERIAL, --maestro FILE, --doctor, --help and --version " +
      "(--help says what each does)";
    const refusals: Array<[string[], string]> = [
      [["--shell", "rm"], `unknown flag --shell; ${flags}`],
      [["--bogus=1"], `unknown flag --bogus; ${flags}`],
      [["-x"], `unknown flag -x; ${flags}`],
      [["extra"], `unexpected argument "extra"; phone-eye takes none, and ${flags}`],
      [["list", "devices"], `unexpected argument "list"; phone-eye takes none, and ${flags}`],
      [
        ["--doctor", "--", "extra"],
        `unexpected argument "extra"; phone-eye takes none, and ${flags}`,
      ],
      [["--doctor=yes"], `flag --doctor takes no value; ${flags}`],
    ];
    for (const [argv, message] of refusals) {
      await assert.rejects(
        parseCommandLine(argv),
        (error: Error) => error instanceof ConfigError && error.message === message,
        argv.join(" "),
      );
    }
    for (const argv of [["--serial"], ["--serial", "--doctor"], ["--serial", "-x"]]) {
      await assert.rejects(
        parseCommandLine(argv),
        /^ConfigError: flag --serial needs a value: the serial "adb devices" prints/,
        argv.join(" "),
      );
    }
  },
});

// Every refusal takes one path through main.ts (parseCommandLine throws, phone-eye says so and
// exits 2): the task runs it once, and the test above reads each refusal's words in process.
Deno.test("deno task start with a wrong flag answers in phone-eye's words, exit 2", async () => {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["task", "start", "--bogus"],
    cwd: new URL("../..", import.meta.url),
    clearEnv: true,
    env: await denoEnv(),
    stdin: "null",
  }).output();
  const lines = new TextDecoder().decode(stderr).trimEnd().split("\n");
  // deno task names the command it runs, then phone-eye speaks: one line, no usage dump.
  assert.match(lines[0] ?? "", /^Task start deno run /);
  assert.deepEqual(lines.slice(1), [
    "phone-eye: unknown flag --bogus; the flags are --serial SERIAL, --http HOST:PORT, " +
    "--tls-cert FILE, --tls-key FILE, --journal FILE, --replay FILE, --device SERIAL, --maestro FILE, " +
    "--doctor, --help and --version (--help says what each does)",
  ]);
  assert.equal(code, 2);
  assert.equal(new TextDecoder().decode(stdout), "");
});
