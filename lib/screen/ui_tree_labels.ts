// An element's label: text, else content-desc, else the resource-id's short name, cleaned and cut
// as all screen text is (core/text.ts screenText); a password field's label never holds its contents.

import { oneLine, SCREEN_TEXT_GRAPHEMES, screenText } from "../core/text.ts";

/** A label's length in graphemes: the cut every screen text gets. */
export const LABEL_MAX = SCREEN_TEXT_GRAPHEMES;

/** What a label is made from: a <node>'s own attributes. */
export interface LabelSource {
  text: string;
  contentDesc: string;
  resourceId: string;
  password: boolean;
}

export function makeLabel(source: LabelSource): string {
  const id = oneLine(shortName(source.resourceId));
  if (source.password) {
    const name = oneLine(source.contentDesc) || id;
    return screenText(name ? `${name} (password field)` : "password field");
  }
  return screenText(oneLine(source.text) || oneLine(source.contentDesc) || id);
}

/** `com.app:id/send_button` → `send_button`; `android.widget.ImageButton` → `ImageButton`. */
export function shortName(qualified: string): string {
  const slash = qualified.lastIndexOf("/");
  if (slash >= 0) return qualified.slice(slash + 1);
  const dot = qualified.lastIndexOf(".");
  return dot >= 0 ? qualified.slice(dot + 1) : qualified;
}

/** A class's short name as screen text: `ImageButton`, or "element" when there is none. */
export function classShortName(className: string): string {
  return screenText(shortName(className)) || "element";
}

/**
 * What an element with no name is shown as: its class's short name in parentheses, `(ImageButton)`,
 * so it never reads as a name the app gave it; given back as `element`, it picks that class among
 * unnamed elements (find_element.ts).
 */
export function classLabel(className: string): string {
  return `(${classShortName(className)})`;
}

/** Whether `e` has a name a person sees: text or content-desc, once cleaned. */
export function isSpoken(e: { text: string; contentDesc: string }): boolean {
  return oneLine(e.text) !== "" || oneLine(e.contentDesc) !== "";
}
