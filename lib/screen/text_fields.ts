// Text fields in a UI tree: which elements take typed text, the ones nearest a point, and whether
// one has focus. Pure; phone_type taps nothing else before typing, and reads focus after it.

import type { UiElement } from "./ui_tree.ts";

/**
 * Classes that take typed text, as a dump names them. A node's class is its view's accessibility
 * class name: EditText for EditText and its subclasses that keep it (Material's TextInputEditText,
 * AppCompatEditText), and for what Compose, Flutter, React Native and WebView inputs report;
 * AutoCompleteTextView and SearchView's SearchAutoComplete under their own names; an app's own
 * view whatever it calls itself, hence the suffixes. TextInputLayout (a wrapper) ends otherwise.
 */
const TEXT_FIELD_CLASS = /(EditText|AutoCompleteTextView|SearchAutoComplete|TextField|TextInput)$/;

/** Whether `e` takes typed text: a text field's class, or a password field whatever its class. */
export function isTextField(e: UiElement): boolean {
  return TEXT_FIELD_CLASS.test(e.className) || e.password;
}

const onScreen = (e: UiElement) => e.bounds.x2 > e.bounds.x1 && e.bounds.y2 > e.bounds.y1;

/** The text fields on screen nearest `point` (by their centres), nearest first, at most `max`. */
export function nearestTextFields(
  elements: readonly UiElement[],
  point: { x: number; y: number },
  max: number,
): UiElement[] {
  const distance = (e: UiElement) => Math.hypot(e.center.x - point.x, e.center.y - point.y);
  return elements.filter((e) => onScreen(e) && isTextField(e))
    .map((e) => ({ e, d: distance(e) }))
    .sort((a, b) => a.d - b.d)
    .slice(0, max)
    .map(({ e }) => e);
}

/** The text field that has input focus, if any: where typed text goes. */
export function focusedTextField(elements: readonly UiElement[]): UiElement | undefined {
  return elements.find((e) => e.focused && isTextField(e));
}
