import { defineCheck, textExcerpt } from "../../../core/index.js";
import { countBy, replaceSpans } from "../shared/scanning/spans.js";
import { findSecrets } from "../shared/secret-detection/detect.js";
import { ALL_SECRET_KINDS, SECRET_KINDS, type SecretKind } from "../shared/secret-detection/kinds.js";

const MAX_LISTED = 100;

const kindList = ALL_SECRET_KINDS.map((kind) => `- \`${kind}\`: ${SECRET_KINDS[kind]}`).join("\n");

/** The replacement of a redacted secret. */
export function secretLabel(kind: SecretKind): string {
  return `[SECRET:${kind}]`;
}

/**
 * Fails when the text holds an API key, token or private key. Results name the kinds, counts and
 * positions found, never a value: the excerpt is taken from the redacted text.
 */
export default defineCheck<{ kinds: SecretKind[]; redact: boolean; not: boolean }>({
  id: "secrets",
  name: "Secrets",
  description: "Detects API keys, access tokens, private keys and other credentials in the text; can redact them.",
  sides: ["input", "output"],
  transforms: true,
  // Tokens and keys run to a few hundred characters; a PEM block is longer (see docs/streaming.md).
  streamHoldChars: 256,
  parameters: {
    type: "object",
    properties: {
      kinds: {
        type: "array",
        items: { enum: ALL_SECRET_KINDS },
        uniqueItems: true,
        minItems: 1,
        default: ALL_SECRET_KINDS,
        description: "The kinds of secret to look for; all by default.",
      },
      redact: {
        type: "boolean",
        default: false,
        description:
          "Replace each secret found by `[SECRET:<KIND>]` (e.g. `[SECRET:GITHUB_TOKEN]`); the check then passes, since the text that goes on holds no secret.",
      },
      not: {
        type: "boolean",
        default: false,
        description: "Invert the verdict: pass when a secret is found. Cannot be combined with `redact`.",
      },
    },
    additionalProperties: false,
  },
  data: {
    kinds: { type: "string[]", description: "Kinds of secret found, in order of first appearance." },
    counts: { type: "object", description: "Number of findings per kind." },
    findings: {
      type: "array",
      description: `Each finding as {kind, start, end} (UTF-16 offsets in the evaluated text), at most ${MAX_LISTED}; never the value.`,
    },
    redacted: { type: "boolean", description: "Whether the text was transformed (redact: true and something found)." },
    not: { type: "boolean", description: "Whether the verdict was inverted." },
    verdict: { type: "boolean", description: "The check's verdict." },
    explanation: { type: "string", description: "Why the check passed or failed." },
    textExcerpt: { type: "string", description: "The first 100 characters of the text with every secret redacted." },
  },
  examples: [
    {
      parameters: {},
      text: "Use the token ghp_0123456789abcdefghijABCDEFGHIJ012345 to clone.",
      description: "Fails: a GitHub token.",
      verdict: false,
      data: { kinds: ["GITHUB_TOKEN"] },
    },
    {
      parameters: { redact: true },
      text: "export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
      description: "Passes with the key replaced by [SECRET:AWS_ACCESS_KEY_ID].",
      verdict: true,
      transformedText: "export AWS_ACCESS_KEY_ID=[SECRET:AWS_ACCESS_KEY_ID]",
    },
    {
      parameters: { kinds: ["PRIVATE_KEY", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"] },
      description: "Only cloud credentials and private keys.",
      text: "Token ghp_0123456789abcdefghijABCDEFGHIJ012345, key AKIAIOSFODNN7EXAMPLE.",
      verdict: false,
      data: { kinds: ["AWS_ACCESS_KEY_ID"] },
    },
  ],
  notes: `How it decides: one RE2 pattern per token format (prefixes and lengths as the issuers document
them), plain string scanning for PEM private keys and for the high-entropy rule. Patterns run over
overlapping windows of a few KB, so the cost is linear in the text with either RE2 build; a 1 MB
adversarial text is a test case. A match that is part of a longer token (\`xAKIA…\`) is no finding.
When findings overlap, a specific kind beats \`HIGH_ENTROPY_STRING\`, then the longer finding wins.

Kinds:

${kindList}

**Names before values.** An AWS secret access key is 40 base64 characters with no prefix, so it is
reported only when a name says what it is (\`aws_secret_access_key = …\`, \`"SecretAccessKey": "…"\`,
\`secret key: …\`). The same holds for the named branch of the entropy rule.

**The high-entropy rule.** A token is a maximal run of base64/base64url characters. Its Shannon
entropy is computed over its own character frequencies (bits per character). Reported:

- *named*: the token is assigned to a name containing key, token, secret, passw, pwd, auth,
  credential, bearer, signature, private, session or cookie (\`api_key=…\`, \`"token": "…"\`,
  \`password: …\`), or follows \`Bearer \` / \`Basic \`: at least 16 characters and 3.0 bits;
- *bare*: at least 24 characters, upper case, lower case and digits all present, at least 4.0 bits
  (random base62 of 24 characters averages about 4.3 bits; identifiers, paths and English words
  stay below or lack a class), and not word-like: less than 70% of it in runs of three or more
  lower-case letters (camelCase identifiers such as \`Base64EncodedStringForUser1\` are 78–94%), and
  not a slash-separated path of words.

Measured on 1,000 random bare tokens per cell (seeded generator, surrounded by spaces):

| alphabet | 24 chars | 32 chars | 40 chars | 64 chars |
|---|---|---|---|---|
| base62 | 0.94 | 1.00 | 1.00 | 1.00 |
| base64 | 0.88 | 0.99 | 1.00 | 1.00 |
| base64url | 0.89 | 0.99 | 1.00 | 1.00 |

A short random token can miss a character class or a little entropy; named tokens are held to the
lower bar and are found at any of these lengths.

Guards, by choice: bare hex strings (git SHAs, SHA-256 sums, MD5 in prose) and bare UUIDs are never
reported — they are identifiers far more often than credentials, and reporting every commit hash
would make the check useless on technical text; named ones are. Runs longer than 256 characters are
not tokens of this rule, and \`data:…;base64,\` payloads are skipped: a base64 image is content, not
a credential. Short passwords (\`password = "hunter2"\`) are below every threshold: this check finds
credentials by their shape, not weak passwords.

**Limits.** Formats change: a vendor's new prefix is missed until a rule names it (the entropy rule
catches many). Example keys from documentation (AWS's \`AKIAIOSFODNN7EXAMPLE\`) are reported: they
have the shape, and a check cannot know which keys are live. A JWT is reported when its first
segment decodes to a JSON header with \`alg\`; its signature is not verified.

**Redaction** replaces each finding by \`[SECRET:<KIND>]\`; a PEM block is replaced whole, BEGIN to
END. \`redact\` and \`not\` cannot be combined (one removes what the other requires).`,
  validate: (p) => (p.redact && p.not ? { parameter: "not", message: "cannot be combined with redact: true" } : undefined),
  run({ text }, { kinds, redact, not }) {
    const findings = findSecrets(text, new Set(kinds));
    const found = findings.length > 0;
    const counts = countBy(findings, (f) => f.kind);
    const clean = replaceSpans(text, findings, (f) => secretLabel(f.kind));
    const redacted = redact && found;
    const verdict = redacted ? true : not ? found : !found;
    const summary = found
      ? `Found ${findings.length} secret${findings.length === 1 ? "" : "s"} (${Object.entries(counts)
          .map(([k, n]) => `${k}: ${n}`)
          .join(", ")})`
      : "No secret found";
    const outcome = redacted
      ? "; they were redacted, so the check passes"
      : not
        ? `; the check is inverted (not: true), so it ${verdict ? "passes" : "fails"}`
        : "";
    return {
      verdict,
      data: {
        kinds: Object.keys(counts),
        counts,
        findings: findings.slice(0, MAX_LISTED).map(({ kind, start, end }) => ({ kind, start, end })),
        redacted,
        not,
        verdict,
        explanation: `${summary}${outcome}.`,
        textExcerpt: textExcerpt(clean),
      },
      ...(redacted ? { transformedText: clean } : {}),
    };
  },
});
