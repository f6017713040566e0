/**
 * The pattern rules of the secrets check: one RE2 pattern per token format, each with a bounded
 * match length (the scan relies on it) and the secret as the last capture group, so a rule can
 * require a name before the value (`aws_secret_access_key = …`) and still report and redact only
 * the value.
 */
import type { SecretKind } from "./kinds.js";

/** One pattern rule. */
export interface SecretRule {
  kind: SecretKind;
  /** RE2 syntax; capture group 1 is the secret. */
  pattern: string;
  /** Upper bound on the length of a whole match. */
  maxLength: number;
  /**
   * Characters that may not touch the secret on either side; a neighbour from this set means the
   * match is part of a longer token and is no secret of this kind.
   */
  tokenChars: string;
}

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const WORD = `${ALNUM}_`;
const URLSAFE = `${WORD}-`;
const BASE64 = `${ALNUM}+/`;

/** A name that announces a secret value, then an assignment (`=`, `:`, `=>`, `:=`), then optional quotes. */
const assigned = (name: string) => `(?i:${name})["']?[ \\t]{0,4}(?:=>|:=|=|:)[ \\t]{0,4}["']?`;

/** Rules in order of preference: on overlapping matches the earlier rule wins. PEM keys: private-keys.ts; JWTs: jwt.ts. */
export const SECRET_RULES: readonly SecretRule[] = [
  {
    kind: "ANTHROPIC_API_KEY",
    pattern: "(sk-ant-(?:api|admin)\\d{2}-[A-Za-z0-9_-]{32,200})",
    maxLength: 220,
    tokenChars: URLSAFE,
  },
  {
    kind: "OPENAI_API_KEY",
    pattern: "(sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,250}|sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}|sk-[A-Za-z0-9]{32,64})",
    maxLength: 270,
    tokenChars: URLSAFE,
  },
  {
    kind: "AWS_ACCESS_KEY_ID",
    pattern: "((?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)[A-Z2-7]{16})",
    maxLength: 20,
    tokenChars: WORD,
  },
  {
    kind: "AWS_SECRET_ACCESS_KEY",
    pattern: `${assigned("(?:aws[ _.-]?)?secret[ _.-]?(?:access[ _.-]?)?key(?:[ _.-]?id)?")}([A-Za-z0-9/+]{40})`,
    maxLength: 120,
    tokenChars: `${BASE64}=`,
  },
  { kind: "AZURE_STORAGE_KEY", pattern: "AccountKey=([A-Za-z0-9/+]{86}==)", maxLength: 100, tokenChars: BASE64 },
  {
    kind: "GITHUB_TOKEN",
    pattern: "(gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})",
    maxLength: 260,
    tokenChars: WORD,
  },
  { kind: "GITLAB_TOKEN", pattern: "(gl(?:pat|ptt|dt|rt)-[A-Za-z0-9_-]{20,100})", maxLength: 110, tokenChars: URLSAFE },
  {
    kind: "SLACK_TOKEN",
    pattern: "(xox[baprs]-[A-Za-z0-9-]{10,250}|xapp-\\d-[A-Za-z0-9-]{10,250})",
    maxLength: 260,
    tokenChars: URLSAFE,
  },
  {
    kind: "SLACK_WEBHOOK",
    pattern: "(https://hooks\\.slack\\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{20,200})",
    maxLength: 240,
    tokenChars: URLSAFE,
  },
  { kind: "STRIPE_SECRET_KEY", pattern: "((?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,247})", maxLength: 260, tokenChars: WORD },
  { kind: "STRIPE_PUBLISHABLE_KEY", pattern: "(pk_(?:live|test)_[A-Za-z0-9]{16,247})", maxLength: 260, tokenChars: WORD },
  { kind: "GOOGLE_API_KEY", pattern: "(AIza[A-Za-z0-9_-]{35})", maxLength: 39, tokenChars: URLSAFE },
];
