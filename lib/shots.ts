// The words for PHONE_EYE_SHOTS, the one folder phone-eye may keep screenshots in: what a refused
// save says, and how to grant the folder. Pure; main.ts saves, the doctor checks the grants.

/** How to let this process use `dir`: both grants, scoped to that folder alone. */
export function shotsGrantFix(dir: string): string {
  return `build a binary for it with "deno task compile --shots-dir ${dir}", or from source add --allow-read=${dir} --allow-write=${dir}`;
}

/**
 * What phone_shot and phone_look say when a screenshot could not be kept. Deno's own refusal
 * ("Requires write access to …, run again with the --allow-write flag") names one flag, unscoped;
 * a save needs both, for that folder only, so it is said in phone-eye's words.
 */
export function notSavedMessage(dir: string, error: unknown): string {
  const refused = error instanceof Error && error.name === "NotCapable";
  const why = refused
    ? `this phone-eye may not use that folder (its permissions do not grant it); ${
      shotsGrantFix(dir)
    }`
    : error instanceof Error
    ? error.message
    : String(error);
  return `Not saved to PHONE_EYE_SHOTS (${dir}): ${why}.`;
}
