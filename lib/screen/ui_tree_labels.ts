// An element's label: text, else content-desc, else the resource-id's short name, on one line and
// cut to LABEL_MAX graphemes; a password field's label never holds its contents.

export const LABEL_MAX = 80;

/** What a label is made from: a <node>'s own attributes. */
export interface LabelSource {
  text: string;
  contentDesc: string;
  resourceId: string;
  password: boolean;
}

export function makeLabel(source: LabelSource): string {
  const id = shortName(source.resourceId);
  if (source.password) {
    const name = collapse(source.contentDesc) || id;
    return cutLabel(name ? `${name} (password field)` : "password field");
  }
  return cutLabel(collapse(source.text) || collapse(source.contentDesc) || id);
}

/** `com.app:id/send_button` → `send_button`; `android.widget.ImageButton` → `ImageButton`. */
export function shortName(qualified: string): string {
  const slash = qualified.lastIndexOf("/");
  if (slash >= 0) return qualified.slice(slash + 1);
  const dot = qualified.lastIndexOf(".");
  return dot >= 0 ? qualified.slice(dot + 1) : qualified;
}

/**
 * Runs of white space and control characters as one space, trimmed. Control characters become
 * spaces too: a label must stay on its one summary line.
 */
export function collapse(s: string): string {
  if (s === "") return s;
  // deno-lint-ignore no-control-regex
  return s.replace(/[\s\u0000-\u001f\u007f]+/g, " ").trim();
}

// LABEL_MAX counts graphemes, not UTF-16 units as text.ts's truncate does: a label of emoji or
// accented letters keeps as many characters as a plain one. Cut on grapheme boundaries so an emoji
// sequence or a flag is never split in half.
function cutLabel(s: string): string {
  if (s.length <= LABEL_MAX) return s;
  const graphemes: string[] = [];
  for (const { segment } of new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(s)) {
    graphemes.push(segment);
    if (graphemes.length > LABEL_MAX) break;
  }
  if (graphemes.length <= LABEL_MAX) return s;
  return `${graphemes.slice(0, LABEL_MAX - 1).join("").trimEnd()}…`;
}
