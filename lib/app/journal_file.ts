// Reading a journal file for --replay and --maestro: its text, or why not in phone-eye's words
// (the grant to add when Deno's permissions refuse it).

import { errorText } from "../core/errors.ts";

/** The journal's text, or why it cannot be read (with the grant to add when Deno refused it). */
export async function readJournalFile(file: string): Promise<string | { problem: string }> {
  try {
    return await Deno.readTextFile(file);
  } catch (error) {
    const refused = error instanceof Error && error.name === "NotCapable";
    return {
      problem: `cannot read ${file}: ${
        refused
          ? `this phone-eye may not read it; from source add --allow-read=${file}, or keep journals in the folder a build was given with --journal-dir`
          : errorText(error)
      }`,
    };
  }
}
