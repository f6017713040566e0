import { defineCheck, textExcerpt } from "../../../core/index.js";
import { ALL_PII_CATEGORIES, PII_CATEGORIES, type PiiCategory } from "../shared/pii-detection/categories.js";
import { DEFAULT_PHONE_REGIONS, findPii } from "../shared/pii-detection/detect.js";
import { PII_FIGURES } from "../shared/pii-detection/figures.js";
import { supportedRegions } from "../shared/pii-detection/phone.js";
import { countBy, replaceSpans } from "../shared/scanning/spans.js";

const MAX_LISTED = 100;

const categoryList = ALL_PII_CATEGORIES.map((c) => `- \`${c}\`: ${PII_CATEGORIES[c]}`).join("\n");

/**
 * Fails when the text holds personal data. Results name categories, counts and positions, never a
 * value: the excerpt is taken from the redacted text.
 */
export default defineCheck<{ categories: PiiCategory[]; phoneRegions: string[]; redact: boolean; not: boolean }>({
  id: "pii",
  name: "PII",
  description:
    "Detects personal data (email addresses, phone numbers, card numbers, SSNs, IP addresses, IBANs, URLs) in the text; can redact it.",
  sides: ["input", "output"],
  transforms: true,
  // An e-mail address may be 254 characters long; the stream hold's bound (256) covers it.
  streamHoldChars: 256,
  parameters: {
    type: "object",
    properties: {
      categories: {
        type: "array",
        items: { enum: ALL_PII_CATEGORIES },
        uniqueItems: true,
        minItems: 1,
        default: ALL_PII_CATEGORIES,
        description: "The categories to look for; all by default.",
      },
      phoneRegions: {
        type: "array",
        items: { type: "string", pattern: "^[A-Za-z]{2}$" },
        uniqueItems: true,
        default: [...DEFAULT_PHONE_REGIONS],
        description:
          "Regions (ISO 3166 alpha-2) whose national phone formats are recognised; numbers written with + and a country code are recognised for every region.",
      },
      redact: {
        type: "boolean",
        default: false,
        description:
          "Replace each finding by `[CATEGORY]` (e.g. `[EMAIL_ADDRESS]`); the check then passes, since the text that goes on holds no such data.",
      },
      not: {
        type: "boolean",
        default: false,
        description: "Invert the verdict: pass when personal data is found. Cannot be combined with `redact`.",
      },
    },
    additionalProperties: false,
  },
  data: {
    categories: { type: "string[]", description: "Categories found, in order of first appearance." },
    counts: { type: "object", description: "Number of findings per category." },
    findings: {
      type: "array",
      description: `Each finding as {category, start, end} (UTF-16 offsets in the evaluated text), at most ${MAX_LISTED}; never the value.`,
    },
    redacted: { type: "boolean", description: "Whether the text was transformed (redact: true and something found)." },
    not: { type: "boolean", description: "Whether the verdict was inverted." },
    verdict: { type: "boolean", description: "The check's verdict." },
    explanation: { type: "string", description: "Why the check passed or failed." },
    textExcerpt: { type: "string", description: "The first 100 characters of the text with every finding redacted." },
  },
  examples: [
    {
      parameters: {},
      text: "Mail me at jane.doe@example.com or call +1 415 555 0123.",
      description: "Fails: an email address and a phone number.",
      verdict: false,
      data: { categories: ["EMAIL_ADDRESS", "PHONE_NUMBER"] },
    },
    {
      parameters: { redact: true, categories: ["EMAIL_ADDRESS", "PHONE_NUMBER"] },
      text: "Mail me at jane.doe@example.com.",
      description: "Passes with the text changed to: Mail me at [EMAIL_ADDRESS].",
      verdict: true,
      transformedText: "Mail me at [EMAIL_ADDRESS].",
    },
    {
      parameters: { categories: ["CREDIT_CARD", "IBAN", "SSN"] },
      description: "Only financial and identity numbers.",
      text: "Mail jane.doe@example.com, card 4111 1111 1111 1111.",
      verdict: false,
      data: { categories: ["CREDIT_CARD"] },
    },
  ],
  notes: `How it decides: each category has an RE2 pattern for candidates (bounded match length,
scanned over overlapping windows, so the cost is linear in the text with either RE2 build) and a
validator for what a pattern cannot say. Overlapping findings are resolved: the longer wins (a URL
over the address or IP inside it), then the category earlier in URL, EMAIL_ADDRESS, IBAN,
CREDIT_CARD, SSN, IP_ADDRESS, PHONE_NUMBER.

Categories:

${categoryList}

**Numbers that are not personal data.** Digit runs are the hard part: order numbers, version
strings, timestamps, dates, ISBNs, hex ids, prices. The validators reject: card candidates without
an issuer prefix and length or failing Luhn; SSNs in the invalid ranges; dotted quads followed by
another \`.digit\` (OIDs, four-part versions) or after \`v\`, \`version\`, \`release\`, \`build\`;
IPv6 candidates with fewer than five hex digits (\`a[1::2]\`, \`Foo::Bar\`) or without \`::\` and
eight groups (times, MAC addresses); phone candidates shaped like dates or dotted versions, followed
by \`%\` or a decimal part, announced by a word such as order, invoice, ISBN, ref, SKU, tracking,
serial, account, id, ticket, transaction, version, model or \`#\`, or — for national numbers — not
valid in any of \`phoneRegions\` (libphonenumber's full metadata decides validity). A national
number written as one unbroken run of digits is reported only after a word like phone, tel, call,
mobile, fax or contact.

**Limits.** National phone formats of regions outside \`phoneRegions\` are missed unless written
with + (or 00) and a country code; outside North America a national number must carry its trunk
\`0\`, so numbers of plans without one (Italy, Spain) need the country code. Email addresses are
ASCII (no internationalised local parts or domains). IBANs are upper case. URLs need a scheme or
\`www.\`: bare domains (\`example.com\`) are not reported, as they collide with file and package
names. Names, postal addresses and dates of birth are not detected: they need a language model,
not a pattern.

**Measured** on the labelled corpus in \`plugins/default/fixtures/pii-corpus.json\`
(${PII_FIGURES.lines} lines: ${PII_FIGURES.positives} labelled findings, and ${PII_FIGURES.negativeLines}
lines with none — order numbers, invoices, versions, timestamps, dates, ISBNs, EANs, hex ids, MAC
addresses, GUIDs, prices, section numbers, invalid SSNs, cards and IBANs with bad checksums). A
finding counts only when category and exact span match. \`pii.test.ts\` computes the figures and
fails when they fall below 0.95 precision or 0.9 recall or differ from this table:

${PII_FIGURES.table}

Read these as an upper bound: the corpus was written alongside the detector. The first run on it
had five false positives, each fixed by a rule that says why (an SSH remote \`git@host:path\`
taken for an email address; an SSN-shaped number and a date followed by a time taken for phone
numbers; two section numbers such as \`4.2.1.3\` taken for IP addresses), and its false negatives
were all one bug (numbers ending a sentence were dropped). Lines added afterwards found one more
(a Luhn-valid number announced as an order id, taken for a card). Text of other kinds will do
worse.

**Redaction** replaces each finding by \`[CATEGORY]\`. \`redact\` and \`not\` cannot be combined (one
removes what the other requires).`,
  validate(p) {
    if (p.redact && p.not) return { parameter: "not", message: "cannot be combined with redact: true" };
    const unknown = p.phoneRegions.filter((r) => supportedRegions([r]).length === 0);
    if (unknown.length) return { parameter: "phoneRegions", message: `unknown region code(s): ${unknown.join(", ")}` };
    return undefined;
  },
  run({ text }, { categories, phoneRegions, redact, not }) {
    const findings = findPii(text, { categories, phoneRegions });
    const found = findings.length > 0;
    const counts = countBy(findings, (f) => f.category);
    const clean = replaceSpans(text, findings, (f) => `[${f.category}]`);
    const redacted = redact && found;
    const verdict = redacted ? true : not ? found : !found;
    const summary = found
      ? `Found ${findings.length} item${findings.length === 1 ? "" : "s"} of personal data (${Object.entries(counts)
          .map(([k, n]) => `${k}: ${n}`)
          .join(", ")})`
      : "No personal data found";
    const outcome = redacted
      ? "; they were redacted, so the check passes"
      : not
        ? `; the check is inverted (not: true), so it ${verdict ? "passes" : "fails"}`
        : "";
    return {
      verdict,
      data: {
        categories: Object.keys(counts),
        counts,
        findings: findings.slice(0, MAX_LISTED).map(({ category, start, end }) => ({ category, start, end })),
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
