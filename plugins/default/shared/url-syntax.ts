/**
 * URLs in text: finding them and judging their syntax. Only http and https URLs are looked for.
 * Both steps are linear in the text: one fixed regular expression pass (no user pattern), then a
 * trim of trailing punctuation that touches each character at most once.
 */
import { isIP } from "node:net";

// A scheme, then everything up to whitespace or a character that cannot appear in a URL as
// people write them in prose (quotes, angle brackets, backticks, braces, pipes, controls).
const CANDIDATE = /\bhttps?:\/\/[^\s<>"'`{}|\\^\p{Cc}]+/giu;
const TRAILING = new Set([".", ",", ";", ":", "!", "?", "*", "_", "~"]);
const PAIRS: Record<string, string> = { ")": "(", "]": "[" };

/** Removes trailing sentence punctuation and closing brackets that the URL did not open. */
function trimTrailing(candidate: string): string {
  const open: Record<string, number> = { "(": 0, "[": 0 };
  const close: Record<string, number> = { ")": 0, "]": 0 };
  for (const ch of candidate) {
    if (ch in open) open[ch] = (open[ch] as number) + 1;
    else if (ch in close) close[ch] = (close[ch] as number) + 1;
  }
  let end = candidate.length;
  while (end > 0) {
    const ch = candidate[end - 1] as string;
    const opener = PAIRS[ch];
    if (TRAILING.has(ch)) {
      end--;
    } else if (opener && (close[ch] as number) > (open[opener] as number)) {
      close[ch] = (close[ch] as number) - 1;
      end--;
    } else {
      break;
    }
  }
  return candidate.slice(0, end);
}

/** The distinct http(s) URLs in the text, in order of first appearance. */
export function findUrls(text: string): string[] {
  const seen = new Set<string>();
  for (const match of text.matchAll(CANDIDATE)) {
    const url = trimTrailing(match[0]);
    if (!/^https?:\/\/./i.test(url)) continue;
    seen.add(url);
  }
  return [...seen];
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const TOP_LEVEL = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/**
 * Why a URL is not well formed, or undefined when it is: it must parse (WHATWG URL), and its host
 * must be an IP address or a domain name of at least two labels (letters, digits, hyphens; 63
 * characters each, 253 in all) under an alphabetic or IDN top-level label. Single-label hosts
 * such as `localhost` are not URLs a text should point a reader to.
 */
export function urlSyntaxProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "is not a valid URL";
  }
  const host = parsed.hostname;
  if (host.startsWith("[") || isIP(host)) return undefined;
  const name = host.endsWith(".") ? host.slice(0, -1) : host;
  if (name.length === 0) return "has no host";
  if (name.length > 253) return "has a host name longer than 253 characters";
  const labels = name.split(".");
  if (labels.length < 2) return `has the host "${name}", which is not a domain name or an IP address`;
  if (!labels.every((label) => LABEL.test(label))) return `has an invalid host name "${name}"`;
  if (!TOP_LEVEL.test(labels[labels.length - 1] as string)) return `has an invalid top-level domain in "${name}"`;
  return undefined;
}
