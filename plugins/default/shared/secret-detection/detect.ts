/**
 * Finds secrets in a text: the pattern rules, PEM private keys, JWTs and the high-entropy rule, with
 * overlaps resolved (a specific rule beats the entropy rule; otherwise the longer finding, then
 * the earlier rule, wins). Every part is linear in the text.
 */
import { forEachMatch, scannableText, scanPattern } from "../scanning/match-scan.js";
import { withoutOverlaps } from "../scanning/spans.js";
import { findHighEntropyTokens } from "./entropy.js";
import { findJwts } from "./jwt.js";
import { ALL_SECRET_KINDS, type SecretKind } from "./kinds.js";
import { findPrivateKeys } from "./private-keys.js";
import { SECRET_RULES } from "./rules.js";

/** A secret found in a text; its value is never part of a result. */
export interface SecretFinding {
  kind: SecretKind;
  start: number;
  end: number;
}

const RANK = new Map<SecretKind, number>(ALL_SECRET_KINDS.map((kind, i) => [kind, i]));

function better(a: SecretFinding, b: SecretFinding): boolean {
  const aEntropy = a.kind === "HIGH_ENTROPY_STRING";
  const bEntropy = b.kind === "HIGH_ENTROPY_STRING";
  if (aEntropy !== bEntropy) return bEntropy;
  const la = a.end - a.start;
  const lb = b.end - b.start;
  if (la !== lb) return la > lb;
  return (RANK.get(a.kind) ?? 0) < (RANK.get(b.kind) ?? 0);
}

/** Finds the secrets of the wanted kinds, in text order, without overlaps. */
export function findSecrets(text: string, kinds: ReadonlySet<SecretKind> = new Set(ALL_SECRET_KINDS)): SecretFinding[] {
  const found: SecretFinding[] = [];
  const scan = scannableText(text);
  for (const rule of SECRET_RULES) {
    if (!kinds.has(rule.kind)) continue;
    forEachMatch(scanPattern(rule.pattern), scan, rule.maxLength, (match) => {
      const value = match.groups[1];
      if (!value) return;
      const start = match.index + match.text.lastIndexOf(value);
      const end = start + value.length;
      const touching = (at: number) => at >= 0 && at < scan.length && rule.tokenChars.includes(scan[at] as string);
      if (touching(end) || (start === match.index && touching(start - 1))) return;
      found.push({ kind: rule.kind, start, end });
    });
  }
  if (kinds.has("PRIVATE_KEY")) {
    for (const block of findPrivateKeys(scan)) found.push({ kind: "PRIVATE_KEY", ...block });
  }
  if (kinds.has("JWT")) {
    for (const token of findJwts(scan)) found.push({ kind: "JWT", ...token });
  }
  if (kinds.has("HIGH_ENTROPY_STRING")) {
    for (const token of findHighEntropyTokens(scan))
      found.push({ kind: "HIGH_ENTROPY_STRING", start: token.start, end: token.end });
  }
  return withoutOverlaps(found, better);
}
