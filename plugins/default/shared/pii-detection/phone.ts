/**
 * Phone numbers: candidates found by pattern are confirmed by libphonenumber (full metadata), so a
 * number must be valid for its region, not merely the right length. Numbers with `+` or `00` and
 * a country code are taken for any region. National numbers (no country code) must be valid in
 * one of the configured regions: in the North American plan (US, CA) as ten digits (an optional
 * leading 1); elsewhere with the leading trunk `0` that national formats write. A national number
 * written as one unbroken run of digits needs a word like "phone" or "call" before it; one written
 * in groups does not. Numbers announced as something else ("order", "invoice", "ISBN", `#`) are not
 * phone numbers.
 */
import { type CountryCode, isSupportedCountry, parsePhoneNumberFromString } from "libphonenumber-js/max";
import { type Announcement, versionBefore } from "./context.js";
import { digitsOf, looksLikeDateOrVersion } from "./numbers.js";

const NORTH_AMERICAN = new Set(["US", "CA"]);

/** The region codes libphonenumber knows, from a list (unknown ones are a config error upstream). */
export function supportedRegions(regions: readonly string[]): CountryCode[] {
  return regions.map((r) => r.toUpperCase()).filter((r): r is CountryCode => isSupportedCountry(r));
}

function validIn(number: string, region?: CountryCode): boolean {
  const parsed = region ? parsePhoneNumberFromString(number, { defaultCountry: region }) : parsePhoneNumberFromString(number);
  return parsed?.isValid() === true;
}

/** Whether the candidate has separators or parentheses between its digits (is written in groups). */
function isGrouped(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === " " || c === "-" || c === "." || c === "(" || c === ")") return true;
  }
  return false;
}

/** 123-45-6789: the shape of a Social Security number, whatever its validity. */
function isSsnShaped(value: string): boolean {
  return value.length === 11 && value[3] === "-" && value[6] === "-" && digitsOf(value).length === 9;
}

/** Whether a candidate (digits, spaces, `-`, `.`, parentheses, a leading `+`) is a phone number. */
export function isPhoneNumber(
  text: string,
  start: number,
  candidate: string,
  announced: Announcement,
  regions: readonly CountryCode[],
): boolean {
  if (announced === "other" || versionBefore(text, start)) return false;
  const digits = digitsOf(candidate);
  if (digits.length < 7 || digits.length > 15) return false;
  if (looksLikeDateOrVersion(candidate) || isSsnShaped(candidate)) return false;
  if (candidate.startsWith("+")) return validIn(candidate);
  if (candidate.startsWith("00")) return validIn(`+${candidate.slice(2)}`);
  if (!isGrouped(candidate) && announced !== "phone") return false;
  for (const region of regions) {
    if (NORTH_AMERICAN.has(region)) {
      const national = digits.length === 11 && digits.startsWith("1") ? digits.slice(1) : digits;
      if (national.length === 10 && validIn(candidate, region)) return true;
    } else if (digits.startsWith("0") && validIn(candidate, region)) {
      return true;
    }
  }
  return false;
}
