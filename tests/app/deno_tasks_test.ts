// deno.json's test and sim tasks as a user meets them: quiet (-q hides Deno's "experimental"
// permissions warning and one "Check" line per module) and still saying everything that matters.

import assert from "node:assert/strict";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/**
 * A task's command as words after `deno` (which the test replaces by this Deno, so it runs
 * exactly the task's flags), and the variables the task sets before it.
 */
async function taskWords(name: string): Promise<{ env: Record<string, string>; args: string[] }> {
  const tasks = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`)).tasks;
  // A task may check types first or beside it (`deno check -q && …`, `deno check -q & …`): the
  // words are those of its last command.
  const words = String(tasks[name]).split(/ &&? /).at(-1)!.split(" ");
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

// `deno task test` runs one module per folder of tests/ (deno.json's "test.include" names the
// folders' group_test.ts files), each importing the test files beside it (tests/helpers/group.ts).
// This test keeps that true: no test file outside a group's folder or the long suite.
Deno.test("every test file sits in a folder whose group the fast suite runs, or in the long suite", async () => {
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`));
  assert.deepEqual(config.test.include, ["tests/*/group_test.ts"]);
  const long = String(config.tasks["test:long"]);
  const unrun: string[] = [];
  let groups = 0;
  for await (const entry of Deno.readDir(`${ROOT}/tests`)) {
    if (entry.isFile) {
      if (entry.name.endsWith("_test.ts")) unrun.push(`tests/${entry.name}`);
      continue;
    }
    const names: string[] = [];
    for await (const file of Deno.readDir(`${ROOT}/tests/${entry.name}`)) names.push(file.name);
    if (names.includes("group_test.ts")) {
      groups++;
      continue;
    }
    if (entry.name === "long" && long.includes("tests/long")) continue;
    unrun.push(
      ...names.filter((n) => n.endsWith("_test.ts")).map((n) => `tests/${entry.name}/${n}`),
    );
  }
  assert.deepEqual(unrun, [], "test files no suite runs");
  assert.ok(groups >= 10, `only ${groups} groups`);
});
