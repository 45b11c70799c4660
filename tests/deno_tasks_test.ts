// deno.json's test and sim tasks as a user meets them: quiet (-q hides Deno's "experimental"
// permissions warning and one "Check" line per module) and still saying everything that matters.

import assert from "node:assert/strict";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/** A task's command as words, `deno` replaced by this Deno, so the test runs exactly its flags. */
async function taskWords(name: string): Promise<string[]> {
  const tasks = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`)).tasks;
  const words = String(tasks[name]).split(" ");
  assert.equal(words[0], "deno", `${name} runs deno`);
  return words.slice(1);
}

Deno.test("deno task test's flags keep a failure's words and the summary CI reads, and drop Deno's notices", async () => {
  const args = await taskWords("test");
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [...args, "tests/fixtures/quiet_task_probe.ts"],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
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
  const args = await taskWords("sim");
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [...args, "--help"],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "null",
  }).output();
  assert.equal(code, 0);
  assert.match(new TextDecoder().decode(stdout), /^usage: deno task sim \[--port N\]/);
  assert.equal(new TextDecoder().decode(stderr), "");
});
