// The journal end to end on the simulated phone: a Notes task recorded through a real MCP client,
// replayed green on a fresh phone, replayed up to the last whole line of a cut journal, exported.
// The replays against a phone that takes its time, and one whose Save was renamed, are in
// tests/long/replay_long_test.ts (a divergence waits its whole bound).

import assert from "node:assert/strict";
import type { JournalEntry } from "../../lib/mcp/journal.ts";
import { productionSet } from "../helpers/phone_eye.ts";
import { recordNotesTask, runMain } from "../helpers/replay_run.ts";
import { startRig, tempDir } from "../helpers/rig.ts";
import { withJournalDir } from "../../scripts/permissions.ts";

Deno.test("a Notes task recorded through MCP replays green on a fresh phone, and a cut journal up to its last whole line", async (t) => {
  await using dir = await tempDir("phone_eye_journal_");
  const file = await recordNotesTask(dir.path);
  const text = await Deno.readTextFile(file);
  const entries = text.trimEnd().split("\n").map((l) => JSON.parse(l) as JournalEntry);

  await t.step("the journal holds one line per call, with targets and what changed", () => {
    assert.deepEqual(entries.map((e) => [e.verb, e.outcome]), [
      ["phone_tap", "done"],
      ["phone_type", "done"],
      ["phone_tap", "done"],
      ["phone_look", "done"],
    ]);
    const [open, type, save, wait] = entries;
    assert.equal(open?.target?.label, "Notes");
    assert.match(open?.changed?.app.after ?? "", /^com\.android\.notes/);
    assert.ok(open?.changed?.appeared.includes("Save"), JSON.stringify(open?.changed));
    assert.equal(type?.args.text, "Buy milk", "a plain field's text is kept");
    assert.deepEqual(save?.target?.by, { field: "text", value: "Save" });
    assert.deepEqual(wait?.observed?.waited, { name: "Saved", gone: false, met: true });
    assert.equal(wait?.observed?.screen?.width, 1080);
    assert.ok(entries.every((e) => e.client.via === "stdio" && e.phone?.startsWith("127.0.0.1:")));
  });

  // An instant phone: waits on a phone that takes its time are tests/long/replay_long_test.ts's.
  await using rig = await startRig({ phones: [{}], phoneEye: false });
  const env = { ...rig.env, ANDROID_SERIAL: rig.sim.serial };

  await t.step("replay on a fresh phone: every step matched, one progress line each", async () => {
    const ran = await runMain(["--replay", file], { env, journalDir: dir.path });
    assert.equal(ran.code, 0, ran.stderr + ran.stdout);
    assert.equal(ran.stdout.trim(), "Replayed 4 steps: every one matched.");
    const progress = ran.stderr.trim().split("\n");
    assert.deepEqual(progress.map((l) => l.replace(/ \(journal line \d+\)/, "")), [
      'step 1/4 phone_tap "Notes": ok',
      'step 2/4 phone_type "note_text": ok',
      'step 3/4 phone_tap "Save": ok',
      'step 4/4 wait for "Saved": ok',
    ]);
    assert.equal(rig.sim.screen().savedNote, "Buy milk");
  });

  await t.step("a journal cut mid-line replays the whole lines before it", async () => {
    const lines = text.split("\n");
    const cut = `${dir.path}/cut.jsonl`;
    // Killed while writing the fourth line: half of it is there, with no newline.
    await Deno.writeTextFile(cut, `${lines.slice(0, 3).join("\n")}\n${lines[3]!.slice(0, 40)}`);
    await rig.sim.setScreen({ app: "home", notesText: "", savedNote: null, snackbar: null });
    const ran = await runMain(["--replay", cut], { env, journalDir: dir.path });
    assert.equal(ran.code, 0, ran.stderr + ran.stdout);
    assert.match(ran.stderr, /last line of .*cut\.jsonl was cut short/);
    assert.equal(ran.stdout.trim(), "Replayed 3 steps: every one matched.");
    assert.equal(rig.sim.screen().savedNote, "Buy milk");
  });

  await t.step("bad input exits 2: an unreadable file, a journal with no action", async () => {
    const missing = await runMain(["--replay", `${dir.path}/none.jsonl`], {
      env,
      journalDir: dir.path,
    });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /cannot read .*none\.jsonl/);
    const looks = `${dir.path}/looks.jsonl`;
    await Deno.writeTextFile(
      looks,
      `${text.split("\n")[3]}\n`.replace('"met":true', '"met":false'),
    );
    const empty = await runMain(["--replay", looks], { env, journalDir: dir.path });
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /holds no action/);
  });

  await t.step("the exported Maestro flow holds the task's commands in order", async () => {
    const ran = await runMain(["--maestro", file], { env: {}, journalDir: dir.path });
    assert.equal(ran.code, 0, ran.stderr);
    const commands = ran.stdout.split("\n").filter((l) =>
      l.startsWith("- ") || l.startsWith("appId")
    );
    assert.deepEqual(commands.filter((l) => !l.startsWith("- assertVisible")), [
      'appId: "com.android.notes"',
      '- tapOn: {"text":"Notes"}',
      '- tapOn: {"id":"com\\\\.android\\\\.notes:id/note_text"}',
      '- inputText: "Buy milk"',
      '- tapOn: {"text":"Save"}',
    ]);
    assert.equal(commands.at(-1), '- assertVisible: "Saved"');
    assert.ok(commands.includes('- assertVisible: "Buy milk"'), ran.stdout);
  });
});

Deno.test("the permission set for a journal grants exactly its folder, and nothing else to read or write", async () => {
  const set = withJournalDir(await productionSet(), "/srv/phone-eye/journal");
  assert.deepEqual(set.read, ["/srv/phone-eye/journal"]);
  assert.deepEqual(set.write, ["/srv/phone-eye/journal"]);
  assert.throws(() => withJournalDir(set, "journal"), /relative/);
});
