/**
 * Checksums and number rules of the numeric categories: Luhn and issuer prefixes for payment
 * cards, the invalid ranges of US Social Security numbers, dates and dotted quads that digit runs
 * must not be taken for.
 */

/** The digits of a string, separators dropped. */
export function digitsOf(value: string): string {
  let out = "";
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) out += value[i];
  }
  return out;
}

/** The Luhn (mod 10) check of a digit string. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 0x30;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return digits.length > 0 && sum % 10 === 0;
}

interface Issuer {
  name: string;
  /** Prefix ranges, inclusive, compared on the same number of leading digits. */
  ranges: ReadonlyArray<readonly [string, string]>;
  lengths: readonly number[];
}

/** Issuer identification ranges and lengths of the major card networks. */
const ISSUERS: readonly Issuer[] = [
  { name: "visa", ranges: [["4", "4"]], lengths: [13, 16, 19] },
  {
    name: "mastercard",
    ranges: [
      ["51", "55"],
      ["2221", "2720"],
    ],
    lengths: [16],
  },
  {
    name: "amex",
    ranges: [
      ["34", "34"],
      ["37", "37"],
    ],
    lengths: [15],
  },
  {
    name: "discover",
    ranges: [
      ["6011", "6011"],
      ["644", "649"],
      ["65", "65"],
    ],
    lengths: [16, 19],
  },
  {
    name: "diners",
    ranges: [
      ["300", "305"],
      ["36", "36"],
      ["38", "39"],
    ],
    lengths: [14, 16, 19],
  },
  { name: "jcb", ranges: [["3528", "3589"]], lengths: [16, 17, 18, 19] },
  { name: "unionpay", ranges: [["62", "62"]], lengths: [16, 17, 18, 19] },
  {
    name: "maestro",
    ranges: [
      ["5018", "5018"],
      ["5020", "5020"],
      ["5038", "5038"],
      ["5893", "5893"],
      ["6304", "6304"],
      ["6759", "6759"],
      ["6761", "6763"],
    ],
    lengths: [12, 13, 14, 15, 16, 17, 18, 19],
  },
];

/** The card network whose prefix and length the digits have, if any. */
export function cardIssuer(digits: string): string | undefined {
  for (const issuer of ISSUERS) {
    if (!issuer.lengths.includes(digits.length)) continue;
    for (const [low, high] of issuer.ranges) {
      const prefix = digits.slice(0, low.length);
      if (prefix >= low && prefix <= high) return issuer.name;
    }
  }
  return undefined;
}

/** Whether a digit string is a plausible card number: issuer prefix and length, and Luhn. */
export function isCardNumber(digits: string): boolean {
  return digits.length >= 13 && digits.length <= 19 && cardIssuer(digits) !== undefined && luhnValid(digits);
}

/**
 * Whether area, group and serial form a valid SSN: area not 000, 666 or 900–999, group not 00,
 * serial not 0000. Two numbers famous from advertising (078-05-1120, 219-09-9999) are not real.
 */
export function isValidSsn(area: string, group: string, serial: string): boolean {
  if (area === "000" || area === "666" || area[0] === "9") return false;
  if (group === "00" || serial === "0000") return false;
  const whole = `${area}${group}${serial}`;
  return whole !== "078051120" && whole !== "219099999";
}

function isDigitRun(value: string, from: number, to: number): boolean {
  if (from >= to) return false;
  for (let i = from; i < to; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/**
 * Whether a run of digits and separators reads as a date (2024-01-15, 15.01.2024, 01/15/24) or as
 * a dotted quad / version (1.2.3.4): groups split by one repeated separator, shaped like a date.
 */
export function looksLikeDateOrVersion(value: string): boolean {
  for (const sep of ["-", ".", "/"]) {
    if (!value.includes(sep)) continue;
    const parts = value.split(sep);
    if (!parts.every((p) => isDigitRun(p, 0, p.length))) continue;
    const lengths = parts.map((p) => p.length).join(",");
    if (
      ["4,2,2", "4,1,1", "4,2,1", "4,1,2", "2,2,4", "1,2,4", "2,1,4", "1,1,4", "2,2,2", "1,1,2", "1,2,2", "2,1,2"].includes(
        lengths,
      )
    )
      return true;
    if (sep === "." && parts.length >= 3 && parts.every((p) => p.length <= 3)) return true;
  }
  return false;
}
