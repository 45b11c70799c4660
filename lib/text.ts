// Small text helpers shared by the messages phone-eye writes for agents.
// Pure.

/** A short, single-paragraph excerpt of program or server output, for an error message. */
export function excerpt(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
