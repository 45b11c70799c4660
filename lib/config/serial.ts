// What an adb serial may look like before phone-eye passes it to adb: the one whitelist that
// ANDROID_SERIAL, --serial, PHONE_EYE_DEVICES and every tool's `device` argument go through.

/**
 * Serials as `adb devices` prints them: USB serials (letters, digits), emulator-5554, host:port,
 * [v6]:port, mDNS names (adb-XXXX._adb-tls-connect._tcp) and a link-local zone (%). No space, quote
 * or shell operator: a serial only ever reaches adb's argv, but a message quotes it to the agent.
 * 100 characters is attached.ts's limit for a listed serial.
 */
export const SERIAL_PATTERN = /^[\w.:\[\]%-]{1,100}$/;

/** The longest serial phone-eye accepts. */
export const SERIAL_MAX_LENGTH = 100;

export function isSerial(value: string): boolean {
  return SERIAL_PATTERN.test(value);
}
