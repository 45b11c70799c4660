// The journal's replays on phones that take their time (dumps wait for a quiet screen): green on a
// fresh one, and stopped at the renamed step, with a clear report, on one whose Save was renamed.

import assert from "node:assert/strict";
import { recordNotesTask, runMain, WAITING_PHONE } from "../helpers/replay_run.ts";
import { startRig, tempDir } from "../helpers/rig.ts";

Deno.test("a recorded Notes task replays green on a slow fresh phone and stops where Save was renamed", async (t) => {
  await using dir = await tempDir("phone_eye_journal_long_");
  const file = await recordNotesTask(dir.path);

  await t.step("green on a fresh phone whose dumps wait for a quiet screen", async () => {
    await using rig = await startRig({ phones: [WAITING_PHONE], phoneEye: false });
    const ran = await runMain(["--replay", file, "--device", rig.sim.serial], {
      env: rig.env,
      journalDir: dir.path,
    });
    assert.equal(ran.code, 0, ran.stderr + ran.stdout);
    assert.equal(rig.sim.screen().savedNote, "Buy milk");
  });

  await t.step("a phone whose Save button is renamed stops the replay at that step", async () => {
    await using rig = await startRig({ phones: [WAITING_PHONE], phoneEye: false });
    await rig.sim.setScreen({ renamed: { Save: "Keep" } });
    const ran = await runMain(["--replay", file, "--device", rig.sim.serial], {
      env: rig.env,
      journalDir: dir.path,
    });
    assert.equal(ran.code, 1, ran.stderr + ran.stdout);
    const progress = ran.stderr.trim().split("\n");
    assert.deepEqual(progress.map((l) => l.replace(/ \(journal line \d+\)/, "")), [
      'step 1/4 phone_tap "Notes": ok',
      'step 2/4 phone_type "note_text": ok',
      'step 3/4 phone_tap "Save": diverged',
    ]);
    assert.match(
      ran.stdout,
      /^Replay diverged at step 3 of 4 \(journal line 3, phone_tap "Save"\): expected "Save" on screen within 10 s, as in the recording; on screen \(com\.android\.notes\): .*"Keep"/,
    );
    assert.equal(rig.sim.screen().savedNote, null, "nothing was saved");
  });
});
