// deno.json's test and sim tasks as a user meets them: quiet (-q hides Deno's "experimental"
// permissions warning and one "Check" line per module) and still saying everything that matters.

import assert from "node:assert/strict";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/**
 * A task's command as words after `deno` (which the test replaces by this Deno, so it runs
 * exactly the task's flags), and the variables the task sets before it.
 */
async function taskWords(name: string): Promise<{ env: Record<string, string>; args: string[] }> {
  const tasks = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`)).tasks;
  const words = String(tasks[name]).split(" ");
  const env: Record<string, string> = {};
  while (/^[A-Z_]+=/.test(words[0] ?? "")) {
    const [key = "", value = ""] = words.shift()!.split("=");
    env[key] = value;
  }
  assert.equal(words[0], "deno", `${name} runs deno`);
  return { env, args: words.slice(1) };
}

Deno.test("deno task test's flags keep a failure's words and the summary CI reads, and drop Deno's notices", async () => {
  const { env, args } = await taskWords("test");
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [...args, "tests/fixtures/quiet_task_probe.ts"],
    cwd: ROOT,
    env: { ...env, NO_COLOR: "1" },
    stdin: "null",
  }).output();
  const text = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
  assert.equal(code, 1, text);
  // What a failure needs: the test's name, its message, and the summary line .ci/run reads.
  assert.match(text, /the probe's failing test \.\.\. FAILED/);
  assert.match(text, /the probe's own failure message/);
  assert.match(text, /^FAILED \| 1 passed \| 1 failed/m);
  // What -q drops: Deno's notice about permission sets in deno.json, and the Check lines.
  assert.doesNotMatch(text, /experimental feature/);
  assert.doesNotMatch(text, /^Check /m);
});

Deno.test("deno task sim's flags print the phone's banner and usage, and no Deno notice", async () => {
  const { env, args } = await taskWords("sim");
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [...args, "--help"],
    cwd: ROOT,
    env: { ...env, NO_COLOR: "1" },
    stdin: "null",
  }).output();
  assert.equal(code, 0);
  assert.match(new TextDecoder().decode(stdout), /^usage: deno task sim \[--port N\]/);
  assert.equal(new TextDecoder().decode(stderr), "");
});

// Deno boots a new isolate for every test module, about 0.25 s of CPU each on our 2-core machines
// whatever the module holds (40 one-line test files: 10 s; the same 40 imported by one module:
// 0.05 s; denoland/deno#20437). So `deno task test` runs the few modules in tests/fast/ (deno.json's
// "test.include"), each importing the files of one part of phone-eye, and a file stays runnable on
// its own (`deno test -P=test tests/sim_test.ts`). This test keeps the groups complete.
Deno.test("every test file runs in exactly one group of the fast suite, or in the long suite", async () => {
  const groups = new Map<string, string[]>();
  for await (const entry of Deno.readDir(`${ROOT}/tests/fast`)) {
    const text = await Deno.readTextFile(`${ROOT}/tests/fast/${entry.name}`);
    for (const [, file = ""] of text.matchAll(/^import "\.\.\/([\w.]+_test\.ts)";$/gm)) {
      groups.set(file, [...groups.get(file) ?? [], entry.name]);
    }
  }
  const long = String(JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`)).tasks["test:long"]);
  for await (const entry of Deno.readDir(`${ROOT}/tests`)) {
    if (!entry.isFile || !entry.name.endsWith("_test.ts")) continue;
    const inGroups = groups.get(entry.name) ?? [];
    groups.delete(entry.name);
    if (inGroups.length === 0) {
      assert.ok(long.includes(`tests/${entry.name}`), `${entry.name} runs in no suite`);
    } else {
      assert.equal(inGroups.length, 1, `${entry.name} runs in ${inGroups.join(" and ")}`);
    }
  }
  assert.deepEqual([...groups.keys()], [], "tests/fast/ imports files that do not exist");
});
