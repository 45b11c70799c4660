// The build facts of a run from source: nothing is baked, so phone-eye takes deno.json's set.
// `deno task compile` remaps this module to a generated one naming what it baked instead.

/** Parsed by lib/app/build_info.ts; `unknown` so a generated module never has to match a type. */
export const BUILD_INFO: unknown = { kind: "source" };
