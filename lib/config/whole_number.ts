// The one reader of every numeric setting (timeouts, caps): digits only, inside a range, refused at
// start with the variable's name and the range, so no setting is half-read or quietly dropped.

import { ConfigError } from "./config_error.ts";

/** What a numeric setting accepts: whole numbers of `unit` from `min` to `max`. */
export interface WholeNumberRule {
  unit: string;
  min: number;
  max: number;
  /** Why the lower bound is what it is, said in the refusal after it. */
  minWhy?: string;
}

/**
 * `raw` as a whole number inside `rule`, `fallback` when it is unset or blank. Only digits count:
 * "-5", "1.5", "1e3", "0x10" and "10 s" are refused, not read as something the user did not write.
 * Refused at start, never turned into "off": a timeout of -5 that silently disabled vision would
 * leave the user wondering why the eyes never answer.
 */
export function wholeNumber(
  name: string,
  raw: string | undefined,
  rule: WholeNumberRule,
  fallback: number,
): number {
  const text = raw?.trim() ?? "";
  if (text === "") return fallback;
  const value = /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= rule.min && value <= rule.max)) {
    throw new ConfigError(
      `${name} must be a whole number of ${rule.unit} from ${rule.min}${
        rule.minWhy === undefined ? "" : ` (${rule.minWhy})`
      } to ${rule.max}`,
    );
  }
  return value;
}
