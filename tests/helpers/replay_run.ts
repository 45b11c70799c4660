// Records a Notes task through a real MCP client with the journal on, and runs `main.ts --replay`
// or `--maestro` as a subprocess under the production set with the journal's folder granted.

import assert from "node:assert/strict";
import { denoEnv, startFlags, testPermissionFlags } from "./phone_eye.ts";
import { startRig } from "./rig.ts";
import type { SimPhoneOptions } from "../../sim/sim_phone.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

/** Phones whose dumps wait for a quiet screen, as a real one's do: where waits matter. */
export const WAITING_PHONE: SimPhoneOptions = {
  motion: { dumpIdle: { quietMs: 200, maxMs: 10_000, workMs: 0 } },
};

/** The Notes task: open Notes by element, type, Save, wait for "Saved". */
export const NOTES_TASK: Array<[string, Record<string, unknown>]> = [
  ["phone_tap", { element: "Notes" }],
  ["phone_type", { element: "note_text", text: "Buy milk" }],
  ["phone_tap", { element: "Save" }],
  ["phone_look", { wait_for: "Saved", timeout_ms: 5000 }],
];

/** Records NOTES_TASK into `dir`/journal.jsonl on a fresh phone, and returns the file's path. */
export async function recordNotesTask(dir: string): Promise<string> {
  const file = `${dir}/journal.jsonl`;
  await using rig = await startRig({
    phones: [WAITING_PHONE],
    journalDir: dir,
    env: { PHONE_EYE_JOURNAL: file },
  });
  for (const [name, args] of NOTES_TASK) {
    const result = await rig.call(name, args);
    assert.notEqual(result.isError, true, `${name}: ${JSON.stringify(result)}`);
  }
  assert.equal(rig.sim.screen().savedNote, "Buy milk");
  return file;
}

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** main.ts with `args`, under the production set plus the journal's folder, with `env`. */
export async function runMain(
  args: string[],
  options: { env: Record<string, string>; journalDir: string },
): Promise<Ran> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      ...await startFlags(),
      ...await testPermissionFlags(undefined, options.journalDir),
      `${ROOT}main.ts`,
      ...args,
    ],
    clearEnv: true,
    env: { ...await denoEnv(), ...options.env },
    stdin: "null",
    cwd: ROOT,
  }).output();
  const text = new TextDecoder();
  return { code, stdout: text.decode(stdout), stderr: text.decode(stderr) };
}
