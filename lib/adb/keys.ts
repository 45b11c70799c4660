// The named keys phone_key accepts, and how a name or a number becomes an Android keycode.
// Pure. Codes are android.view.KeyEvent constants; names read better in transcripts than numbers.

/**
 * The highest Android keycode: KeyEvent.getMaxKeyCode() returns LAST_KEYCODE, which is
 * KEYCODE_F24 = 337 on Android 16 (API 36); Android 15 stops at KEYCODE_SCREENSHOT = 318 and
 * Android 14 at KEYCODE_MACRO_4 = 316 (the API levels each constant was added in:
 * https://developer.android.com/reference/android/view/KeyEvent). A code above a phone's own
 * maximum reaches it as an unknown key and does nothing.
 */
export const MAX_KEYCODE = 337;

/** The range message, one wording for every refusal. */
const RANGE =
  `1 to ${MAX_KEYCODE} (KEYCODE_F24 on Android 16; older phones stop earlier, 316 on Android 14)`;

export const NAMED_KEYS: Readonly<Record<string, number>> = {
  home: 3,
  back: 4,
  call: 5,
  endcall: 6,
  dpad_up: 19,
  dpad_down: 20,
  dpad_left: 21,
  dpad_right: 22,
  dpad_center: 23,
  volume_up: 24,
  volume_down: 25,
  power: 26,
  camera: 27,
  tab: 61,
  space: 62,
  enter: 66,
  delete: 67,
  menu: 82,
  notification: 83,
  search: 84,
  media_play_pause: 85,
  media_next: 87,
  media_previous: 88,
  page_up: 92,
  page_down: 93,
  escape: 111,
  forward_delete: 112,
  move_home: 122,
  move_end: 123,
  volume_mute: 164,
  recents: 187,
  brightness_down: 220,
  brightness_up: 221,
  sleep: 223,
  wake: 224,
  cut: 277,
  copy: 278,
  paste: 279,
};

/** Other spellings agents reach for, mapped onto the names above. */
const ALIASES: Readonly<Record<string, string>> = {
  backspace: "delete",
  del: "delete",
  return: "enter",
  ok: "dpad_center",
  up: "dpad_up",
  down: "dpad_down",
  left: "dpad_left",
  right: "dpad_right",
  center: "dpad_center",
  app_switch: "recents",
  overview: "recents",
  volumeup: "volume_up",
  volumedown: "volume_down",
  mute: "volume_mute",
  esc: "escape",
  wakeup: "wake",
  play_pause: "media_play_pause",
};

/**
 * Resolves "Volume Up", "KEYCODE_BACK", "enter", "66" or 66 to a keycode, or says what is wrong
 * with the key and what to give instead (phone_key words the refusal).
 */
export function resolveKey(key: string | number): { code: number } | { error: string } {
  const trimmed = typeof key === "number" ? String(key) : key.trim();
  if (/^-?\d+(\.\d+)?$/.test(trimmed)) {
    const code = Number(trimmed);
    return Number.isInteger(code) && code >= 1 && code <= MAX_KEYCODE ? { code } : {
      error: `unknown keycode ${trimmed}: Android keycodes run from ${RANGE}; use a name (${
        Object.keys(NAMED_KEYS).join(", ")
      }) or a code in that range`,
    };
  }
  const name = trimmed.toLowerCase().replace(/^keycode_/, "").replace(/[\s-]+/g, "_");
  const code = NAMED_KEYS[ALIASES[name] ?? name];
  if (code !== undefined) return { code };
  return {
    error: `unknown key ${JSON.stringify(key)}: use one of ${
      Object.keys(NAMED_KEYS).join(", ")
    }, or a numeric Android keycode from ${RANGE}`,
  };
}

/** The name phone_key knows a keycode by ("enter" for 66), or undefined for a code without one. */
export function keyName(code: number): string | undefined {
  return Object.entries(NAMED_KEYS).find(([, named]) => named === code)?.[0];
}
