// What differs between the Android versions the simulated phone can be: one row per version, read
// by the sim (properties, rendering) and handed to the fake tools as environment variables.
//
// | version | sdk | `input` is                 | `am start` error exit | secure window in `screencap` |
// | ------- | --- | -------------------------- | --------------------- | ---------------------------- |
// | 10, 11  | 29+ | app_process (BaseCommand)  | 0                     | refused: exit 1, no output   |
// | 12–14   | 31+ | `cmd input` (ShellCommand) | 0                     | refused: exit 1, no output   |
// | 15      | 35  | `cmd input` (ShellCommand) | 1                     | a frame, secure area black   |
//
// Sources: docs/android.md (versions at a glance), and the AOSP files cited in the fake tools.

export type AndroidVersion = 10 | 11 | 12 | 13 | 14 | 15;

export const ANDROID_VERSIONS: readonly AndroidVersion[] = [10, 11, 12, 13, 14, 15];

export interface AndroidTraits {
  sdk: number;
  /** A build id of that release, for ro.build.fingerprint. */
  buildId: string;
  /**
   * How `input` reports a bad command line: Android 10-11 run it as an app_process command whose
   * BaseCommand prints usage and "Error: …" and exits 0; 12+ forward it to `cmd input`, whose
   * ShellCommand prints an exception banner and exits 255.
   */
  input: "app_process" | "cmd";
  /** `am start`'s exit status after printing an error: 0 up to Android 14, 1 in Android 15. */
  amErrorExit: 0 | 1;
  /** A FLAG_SECURE window: `screencap` refuses it (exit 1, no output) or paints it black. */
  secureCapture: "refuse" | "black";
}

const TRAITS: Record<AndroidVersion, AndroidTraits> = {
  10: {
    sdk: 29,
    buildId: "QQ3A.200805.001",
    input: "app_process",
    amErrorExit: 0,
    secureCapture: "refuse",
  },
  11: {
    sdk: 30,
    buildId: "RQ3A.211001.001",
    input: "app_process",
    amErrorExit: 0,
    secureCapture: "refuse",
  },
  12: {
    sdk: 31,
    buildId: "SQ1A.220205.002",
    input: "cmd",
    amErrorExit: 0,
    secureCapture: "refuse",
  },
  13: {
    sdk: 33,
    buildId: "TQ3A.230901.001",
    input: "cmd",
    amErrorExit: 0,
    secureCapture: "refuse",
  },
  14: {
    sdk: 34,
    buildId: "UP1A.231005.007",
    input: "cmd",
    amErrorExit: 0,
    secureCapture: "refuse",
  },
  15: { sdk: 35, buildId: "AP3A.241005.015", input: "cmd", amErrorExit: 1, secureCapture: "black" },
};

export function androidTraits(version: AndroidVersion): AndroidTraits {
  return TRAITS[version];
}

/** Parses a version from a flag or option; null when it is not one the sim models. */
export function parseAndroidVersion(value: string | number): AndroidVersion | null {
  const n = Number(value);
  return (ANDROID_VERSIONS as readonly number[]).includes(n) ? n as AndroidVersion : null;
}

/** The variables the fake tools (sim/tools/*.sh) read to behave like `version`. */
export function toolEnv(version: AndroidVersion): Record<string, string> {
  const t = TRAITS[version];
  return {
    SIM_ANDROID: String(version),
    SIM_INPUT: t.input,
    SIM_AM_ERROR_EXIT: String(t.amErrorExit),
    SIM_SECURE_CAPTURE: t.secureCapture,
  };
}
