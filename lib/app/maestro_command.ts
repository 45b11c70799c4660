// `phone-eye --maestro FILE` wired to the world: reads the journal, writes the flow on stdout, and
// says on stderr when its last line was cut. No phone, no configuration.

import { readJournal } from "./journal_read.ts";
import { maestroFlow } from "./maestro.ts";
import { writeErr, writeOut } from "./print.ts";
import { readJournalFile } from "./journal_file.ts";

/** Exit 0 with the flow on stdout, 2 when the journal cannot be read or holds no step. */
export async function maestroCommand(file: string): Promise<number> {
  const text = await readJournalFile(file);
  const read = typeof text === "string" ? readJournal(text) : text;
  if ("problem" in read) return writeErr(`phone-eye: ${read.problem}`), 2;
  if (read.cut) {
    writeErr(`phone-eye: the last line of ${file} was cut short; the flow ends before it`);
  }
  const flow = maestroFlow(read.entries, file);
  writeOut(flow.trimEnd());
  return 0;
}
