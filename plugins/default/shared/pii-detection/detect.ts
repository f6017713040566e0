/**
 * Finds personal data in a text. Each category has an RE2 pattern for candidates (bounded match
 * length, scanned in windows: linear in the text) and a validator for what a pattern cannot say:
 * checksums, number ranges, region rules, words around the number. Findings that overlap are
 * resolved: the longer wins (a URL over the IP address inside it), then the category listed first.
 */

import { electronicFormatIBAN, isValidIBAN } from "ibantools";
import ipaddr from "ipaddr.js";
import { forEachMatch, scannableText, scanPattern } from "../scanning/match-scan.js";
import { withoutOverlaps } from "../scanning/spans.js";
import { ALL_PII_CATEGORIES, type PiiCategory } from "./categories.js";
import { announcedBefore, versionBefore } from "./context.js";
import { digitsOf, isCardNumber, isValidSsn } from "./numbers.js";
import { isPhoneNumber, supportedRegions } from "./phone.js";

/** A finding; its value is never part of a result. */
export interface PiiFinding {
  category: PiiCategory;
  start: number;
  end: number;
}

/** Options of a search. */
export interface PiiOptions {
  categories?: readonly PiiCategory[];
  /** Regions whose national phone formats are recognised (ISO 3166 alpha-2). */
  phoneRegions?: readonly string[];
}

/** A candidate pattern and what confirms it. */
interface Rule {
  category: PiiCategory;
  pattern: string;
  maxLength: number;
  /** Characters that may not touch the finding on the left / right (it would be part of a longer token). */
  left: string;
  right: string;
  /** Confirms a candidate; may narrow it (trailing punctuation of a URL) by returning a span. */
  confirm(text: string, start: number, value: string, groups: ReadonlyArray<string | undefined>): [number, number] | undefined;
}

const DIGITS = "0123456789";
const ALNUM = `ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz${DIGITS}`;
function isDigitAt(text: string, at: number): boolean {
  const c = text.charCodeAt(at);
  return c >= 0x30 && c <= 0x39;
}

const EMAIL_LOCAL = `${ALNUM}._%+-`;

/** Top-level "domains" that are file extensions: `icon@2x.png` is a file name, not an address. */
const FILE_EXTENSIONS = new Set([
  "png",
  "jpg",
  "jpeg",
  "gif",
  "svg",
  "webp",
  "ico",
  "bmp",
  "js",
  "ts",
  "css",
  "json",
  "html",
  "txt",
  "md",
  "pdf",
  "zip",
  "py",
  "rb",
  "go",
  "rs",
  "java",
  "kt",
  "tsx",
  "jsx",
  "mjs",
  "cjs",
  "yaml",
  "yml",
  "xml",
  "lock",
]);

function confirmEmail(text: string, start: number, value: string): [number, number] | undefined {
  const at = value.indexOf("@");
  const local = value.slice(0, at);
  if (local.startsWith(".") || local.endsWith(".") || local.includes("..")) return undefined;
  // `git@github.com:org/repo.git` is an SSH remote, not a mailbox.
  const after = text[start + value.length];
  if (after === ":" && (text[start + value.length + 1] ?? " ") > " ") return undefined;
  const tld = value.slice(value.lastIndexOf(".") + 1).toLowerCase();
  if (FILE_EXTENSIONS.has(tld)) return undefined;
  return [start, start + value.length];
}

function isUrlChar(c: string | undefined): boolean {
  return c !== undefined && c > " " && !"<>\"'`".includes(c);
}

/**
 * Extends a URL the pattern cut at its length bound (RE2 repeats at most 1,000 times), then drops
 * trailing punctuation a sentence adds after a URL and a closing bracket the URL did not open.
 */
function confirmUrl(text: string, start: number, matched: string): [number, number] | undefined {
  let stop = start + matched.length;
  while (isUrlChar(text[stop])) stop++;
  const value = text.slice(start, stop);
  let end = value.length;
  for (;;) {
    const last = value[end - 1];
    if (last === undefined) return undefined;
    if (".,;:!?'\"*".includes(last)) {
      end--;
      continue;
    }
    const open = last === ")" ? "(" : last === "]" ? "[" : last === "}" ? "{" : undefined;
    if (open) {
      const body = value.slice(0, end);
      if (body.split(open).length - 1 < body.split(last).length - 1) {
        end--;
        continue;
      }
    }
    break;
  }
  const url = value.slice(0, end);
  const host = url.startsWith("www.") ? url : url.slice(url.indexOf("://") + 3);
  if (host.length === 0 || host.startsWith("/")) return undefined;
  return [start, start + end];
}

function confirmIpv4(text: string, start: number, value: string): [number, number] | undefined {
  const end = start + value.length;
  // A dotted quad followed by `.digit` is a longer dotted number (an OID, a version).
  if (text[end] === "." && isDigitAt(text, end + 1)) return undefined;
  if (versionBefore(text, start)) return undefined;
  for (const octet of value.split(".")) {
    if (octet.length > 1 && octet.startsWith("0")) return undefined;
    if (Number(octet) > 255) return undefined;
  }
  return [start, end];
}

function confirmIpv6(text: string, start: number, value: string): [number, number] | undefined {
  let v = value;
  while (v.endsWith(".") || (v.endsWith(":") && !v.endsWith("::"))) v = v.slice(0, -1);
  const colons = v.split(":").length - 1;
  if (!v.includes("::") && colons !== 7) return undefined;
  // Short compressed forms (`1::2`, `a::b`) are slices and scope operators far more often.
  let hexDigits = 0;
  for (const c of v) if (c !== ":" && c !== ".") hexDigits++;
  if (hexDigits < 5) return undefined;
  if (!ipaddr.IPv6.isValid(v)) return undefined;
  if (text[start - 1] === ":" || text[start + v.length] === ":") return undefined;
  return [start, start + v.length];
}

/**
 * Card numbers: a run of grouped digits may hold a card followed by more digits, so group prefixes
 * are tried, longest first. Groups before the last have 4–6 digits (4-4-4-4, 4-6-5, 4-4-4-4-3).
 */
function confirmCard(text: string, start: number, value: string): [number, number] | undefined {
  // "Order 5500 0000 0000 0004", "SKU …", "tracking …": announced as something else.
  if (announcedBefore(text, start) === "other") return undefined;
  const separator = value.includes(" ") ? " " : value.includes("-") ? "-" : "";
  if (separator && value.includes(separator === " " ? "-" : " ")) return undefined;
  const groups = separator ? value.split(separator) : [value];
  for (let n = groups.length; n >= 1; n--) {
    const taken = groups.slice(0, n);
    const candidate = taken.join(separator);
    const digits = digitsOf(candidate);
    if (digits.length < 13) break;
    const shaped = taken.slice(0, -1).every((g) => g.length >= 4 && g.length <= 6);
    if (digits.length <= 19 && shaped && isCardNumber(digits)) return [start, start + candidate.length];
  }
  return undefined;
}

function confirmSsn(
  _text: string,
  start: number,
  value: string,
  groups: ReadonlyArray<string | undefined>,
): [number, number] | undefined {
  const bare = groups[2];
  const formatted = groups[1];
  const ssn = bare ?? formatted;
  if (!ssn) return undefined;
  const digits = digitsOf(ssn);
  if (formatted) {
    // One separator, used twice (123-45-6789 or 123 45 6789; not 123-45 6789).
    if (formatted[3] !== formatted[6]) return undefined;
  }
  if (!isValidSsn(digits.slice(0, 3), digits.slice(3, 5), digits.slice(5))) return undefined;
  const at = start + value.lastIndexOf(ssn);
  return [at, at + ssn.length];
}

/** IBANs: a grouped candidate may run into the next word; try group prefixes until one validates. */
function confirmIban(_text: string, start: number, value: string): [number, number] | undefined {
  const groups = value.split(" ");
  for (let n = groups.length; n >= 1; n--) {
    const candidate = groups.slice(0, n).join(" ");
    const electronic = electronicFormatIBAN(candidate);
    if (electronic && electronic.length >= 15 && isValidIBAN(electronic)) return [start, start + candidate.length];
  }
  return undefined;
}

const RULES: readonly Rule[] = [
  {
    category: "URL",
    pattern:
      "((?:https?|ftp)://[^\\s<>\"'`]{1,1000}|www\\.[A-Za-z0-9-]{1,63}(?:\\.[A-Za-z0-9-]{1,63}){1,8}(?:[/?#][^\\s<>\"'`]{0,1000})?)",
    maxLength: 1_600,
    left: `${ALNUM}@.`,
    right: "",
    confirm: confirmUrl,
  },
  {
    category: "EMAIL_ADDRESS",
    pattern: "([A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.){1,8}[A-Za-z]{2,24})",
    maxLength: 64 + 1 + 8 * 64 + 24,
    left: EMAIL_LOCAL,
    right: `${ALNUM}-_@`,
    confirm: confirmEmail,
  },
  {
    category: "IBAN",
    pattern: "([A-Z]{2}\\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?)",
    maxLength: 4 + 8 * 5,
    left: ALNUM,
    right: "",
    confirm: confirmIban,
  },
  {
    category: "CREDIT_CARD",
    pattern: "(\\d(?:[ -]?\\d){12,18})",
    maxLength: 37,
    left: `${DIGITS}-.`,
    right: DIGITS,
    confirm: confirmCard,
  },
  {
    category: "SSN",
    pattern:
      "(?:(\\d{3}[- ]\\d{2}[- ]\\d{4})|(?i:ssn|social security(?: number)?|soc\\.? ?sec\\.?)[#:\\s]{0,4}(?i:no\\.?|number|#)?[#:\\s]{0,3}(\\d{9}))",
    maxLength: 48,
    left: `${DIGITS}-`,
    right: `${DIGITS}-`,
    confirm: confirmSsn,
  },
  {
    category: "IP_ADDRESS",
    pattern: "(\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3})",
    maxLength: 15,
    left: `${ALNUM}.-`,
    right: `${ALNUM}-`,
    confirm: confirmIpv4,
  },
  {
    category: "IP_ADDRESS",
    pattern: "([0-9A-Fa-f.]{0,39}:[0-9A-Fa-f:.]{1,44})",
    maxLength: 84,
    left: `${ALNUM}_`,
    right: `${ALNUM}_`,
    confirm: confirmIpv6,
  },
];

const PRIORITY: readonly PiiCategory[] = ["URL", "EMAIL_ADDRESS", "IBAN", "CREDIT_CARD", "SSN", "IP_ADDRESS", "PHONE_NUMBER"];

function better(a: PiiFinding, b: PiiFinding): boolean {
  const la = a.end - a.start;
  const lb = b.end - b.start;
  if (la !== lb) return la > lb;
  return PRIORITY.indexOf(a.category) < PRIORITY.indexOf(b.category);
}

const PHONE_PATTERN = "((?:\\+|\\b00)?\\(?\\d(?:[\\d().-]| [\\d(]){5,26})";
const PHONE_MAX = 30;

/** Finds the personal data of the wanted categories, in text order, without overlaps. */
export function findPii(text: string, options: PiiOptions = {}): PiiFinding[] {
  const categories = new Set(options.categories ?? ALL_PII_CATEGORIES);
  const scan = scannableText(text);
  const found: PiiFinding[] = [];
  const touches = (chars: string, at: number) => at >= 0 && at < scan.length && chars.includes(scan[at] as string);
  for (const rule of RULES) {
    if (!categories.has(rule.category)) continue;
    forEachMatch(scanPattern(rule.pattern), scan, rule.maxLength, (match) => {
      const value = match.groups[1] ?? match.groups[2];
      if (!value) return;
      const start = match.index + match.text.lastIndexOf(value);
      if (start === match.index && touches(rule.left, start - 1)) return;
      const span = rule.confirm(scan, start, value, match.groups);
      if (!span || touches(rule.right, span[1])) return;
      found.push({ category: rule.category, start: span[0], end: span[1] });
    });
  }
  if (categories.has("PHONE_NUMBER")) {
    const regions = supportedRegions(options.phoneRegions ?? DEFAULT_PHONE_REGIONS);
    forEachMatch(scanPattern(PHONE_PATTERN), scan, PHONE_MAX, (match) => {
      let value = match.text;
      // Trailing separators and an unmatched closing parenthesis belong to the sentence.
      while (value.length && !DIGITS.includes(value[value.length - 1] as string)) value = value.slice(0, -1);
      if (value.split("(").length !== value.split(")").length) return;
      const start = match.index;
      const end = start + value.length;
      if (touches(`${ALNUM}_/.,-`, start - 1) && scan[start] !== "+" && scan[start] !== "(") return;
      if (touches(`${ALNUM}_`, end) || (scan[end] === "." && isDigitAt(scan, end + 1))) return;
      // A percentage, a decimal part, or a clock time (`2024-01-15 10:30`) follows: not a phone.
      if (scan[end] === "%" || scan[end] === ":" || (scan[end] === "," && isDigitAt(scan, end + 1))) return;
      if (isPhoneNumber(scan, start, value, announcedBefore(scan, start), regions)) {
        found.push({ category: "PHONE_NUMBER", start, end });
      }
    });
  }
  return withoutOverlaps(found, better);
}

/** Regions whose national phone formats are recognised when none are configured. */
export const DEFAULT_PHONE_REGIONS: readonly string[] = ["US", "CA", "GB", "DE", "FR", "NL", "IN", "AU"];
