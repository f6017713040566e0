import { defineCheck, textExcerpt } from "../../../core/index.js";
import { PART_SEPARATOR } from "../../../core/internal.js";
import { transformSlots } from "../shared/slot-transform.js";

interface Parameters {
  strip: boolean;
  failOnDetection: boolean;
  strict: boolean;
}

/** Kinds of invisible character reported. */
export type InvisibleCategory = "zeroWidth" | "bidi" | "tag" | "variationSelector" | "format";

/**
 * The category of an invisible code point, or undefined for a visible one. The set is Unicode's
 * Default_Ignorable_Code_Point (characters that render as nothing) plus the bidi controls.
 */
export function invisibleCategory(cp: number): InvisibleCategory | undefined {
  if (cp < 0xad) return undefined;
  if (cp === 0x200b || cp === 0x200c || cp === 0x200d || cp === 0x2060 || cp === 0xfeff || cp === 0x180e) return "zeroWidth";
  if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp === 0x200e || cp === 0x200f || cp === 0x061c) {
    return "bidi";
  }
  if (cp >= 0xe0000 && cp <= 0xe007f) return "tag";
  if ((cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef)) return "variationSelector";
  if (
    cp === 0xad ||
    cp === 0x34f ||
    cp === 0x115f ||
    cp === 0x1160 ||
    cp === 0x17b4 ||
    cp === 0x17b5 ||
    (cp >= 0x180b && cp <= 0x180f) ||
    (cp >= 0x2061 && cp <= 0x206f) ||
    cp === 0x3164 ||
    cp === 0xffa0 ||
    (cp >= 0xfff0 && cp <= 0xfff8) ||
    (cp >= 0x1bca0 && cp <= 0x1bca3) ||
    (cp >= 0x1d173 && cp <= 0x1d17a) ||
    (cp >= 0xe0080 && cp <= 0xe0fff)
  ) {
    return "format";
  }
  return undefined;
}

const EMOJI = /[\p{Extended_Pictographic}\p{Emoji_Modifier}]/u;
// Scripts whose writing uses joiners and non-joiners inside words (Persian, Indic, …).
const JOINING =
  /[\p{scx=Arabic}\p{scx=Syriac}\p{scx=Nko}\p{scx=Mongolian}\p{scx=Devanagari}\p{scx=Bengali}\p{scx=Gurmukhi}\p{scx=Gujarati}\p{scx=Oriya}\p{scx=Tamil}\p{scx=Telugu}\p{scx=Kannada}\p{scx=Malayalam}\p{scx=Sinhala}\p{scx=Khmer}\p{scx=Myanmar}\p{scx=Tibetan}\p{scx=Mandaic}\p{scx=Adlam}\p{scx=Hanifi_Rohingya}]/u;
const RTL = /[\p{scx=Hebrew}\p{scx=Arabic}\p{scx=Syriac}\p{scx=Thaana}\p{scx=Nko}\p{scx=Adlam}\p{scx=Samaritan}\p{scx=Mandaic}]/u;
const MONGOLIAN = /\p{scx=Mongolian}/u;
const SPACE_OR_CONTROL = /[\s\p{Cc}]/u;
const BLACK_FLAG = 0x1f3f4;
const CANCEL_TAG = 0xe007f;
/** How far a bidi mark may stand from right-to-left text and still be taken as its mark. */
const RTL_REACH = 16;

const char = (cp: number | undefined) => (cp === undefined ? "" : String.fromCodePoint(cp));

/**
 * Whether an invisible character at `i` is doing a legitimate job where it stands: a joiner inside
 * an emoji sequence or inside a word of a joining script, one variation selector after its base, an
 * emoji flag's tag sequence, a bidi mark beside right-to-left text, a BOM at the start, a Mongolian
 * variation selector after a Mongolian letter.
 */
function legitimate(text: string, i: number, cp: number, prev: number | undefined, next: number | undefined): boolean {
  if (
    cp === 0x200d &&
    prev !== undefined &&
    next !== undefined &&
    (EMOJI.test(char(prev)) || prev === 0xfe0f) &&
    EMOJI.test(char(next))
  ) {
    return true;
  }
  if ((cp === 0x200c || cp === 0x200d) && JOINING.test(char(prev)) && JOINING.test(char(next))) return true;
  if ((cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef)) {
    return prev !== undefined && invisibleCategory(prev) === undefined && !SPACE_OR_CONTROL.test(char(prev));
  }
  if (cp === 0x200e || cp === 0x200f || cp === 0x061c) {
    return RTL.test(text.slice(Math.max(0, i - RTL_REACH), i + RTL_REACH + 1));
  }
  if (cp === 0xfeff) return i === 0;
  if (cp >= 0x180b && cp <= 0x180f && cp !== 0x180e) return MONGOLIAN.test(char(prev));
  return false;
}

/** Length of an emoji flag tag sequence (tag letters then a cancel tag) starting at `i`, or 0. */
function flagTagLength(text: string, i: number): number {
  let j = i;
  for (let n = 0; n < 32; n++) {
    const cp = text.codePointAt(j);
    if (cp === CANCEL_TAG) return n > 0 ? j + 2 - i : 0;
    if (cp === undefined || cp < 0xe0020 || cp > 0xe007e) return 0;
    j += 2;
  }
  return 0;
}

/** Calls `found` for every invisible character of the text that is not doing a legitimate job. */
export function scanInvisible(
  text: string,
  strict: boolean,
  found: (index: number, cp: number, width: number, category: InvisibleCategory) => void,
): void {
  let prev: number | undefined;
  for (let i = 0; i < text.length;) {
    const cp = text.codePointAt(i) as number;
    const width = cp > 0xffff ? 2 : 1;
    if (cp >= 0xad) {
      if (cp === BLACK_FLAG && !strict) {
        const tags = flagTagLength(text, i + width);
        if (tags > 0) {
          prev = CANCEL_TAG;
          i += width + tags;
          continue;
        }
      }
      const category = invisibleCategory(cp);
      if (category) {
        const next = text.codePointAt(i + width);
        if (strict || !legitimate(text, i, cp, prev, next)) found(i, cp, width, category);
      }
    }
    prev = cp;
    i += width;
  }
}

/** What a scan found, summed over the texts scanned. */
class Findings {
  count = 0;
  categories: Partial<Record<InvisibleCategory, number>> = {};
  samples: Array<{ index: number; codePoint: string; category: InvisibleCategory }> = [];
  hiddenTagText = "";

  add(index: number, cp: number, category: InvisibleCategory): void {
    this.count++;
    this.categories[category] = (this.categories[category] ?? 0) + 1;
    if (this.samples.length < 10) {
      this.samples.push({ index, codePoint: `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`, category });
    }
    // Tag characters mirror ASCII: decoded, they show what was hidden.
    if (cp >= 0xe0020 && cp <= 0xe007e && this.hiddenTagText.length <= 100)
      this.hiddenTagText += String.fromCharCode(cp - 0xe0000);
  }
}

/**
 * Detects characters that render as nothing — zero-width characters, bidi controls, Unicode tag
 * characters, variation selectors, other invisible format characters — which can hide
 * instructions from a reader or split words to slip past filters; optionally strips them.
 */
export default defineCheck<Parameters>({
  id: "invisibleText",
  name: "Invisible text",
  description:
    "Detects invisible characters (zero-width, bidi controls, tag characters, stray variation selectors) that can hide instructions; optionally strips them.",
  sides: ["input", "output"],
  transforms: true,
  parameters: {
    type: "object",
    properties: {
      strip: {
        type: "boolean",
        default: false,
        description: "Remove the characters found from the text. The check then passes unless failOnDetection is true.",
      },
      failOnDetection: {
        type: "boolean",
        default: false,
        description: "With strip: fail the check when something was found (and still strip it).",
      },
      strict: {
        type: "boolean",
        default: false,
        description:
          "Report every invisible character, even one doing a legitimate job (a joiner inside an emoji, a bidi mark in Hebrew text).",
      },
    },
    additionalProperties: false,
  },
  data: {
    found: { type: "number", description: "Invisible characters found." },
    categories: {
      type: "object",
      description: "Count per category: zeroWidth, bidi, tag, variationSelector, format (only those found).",
    },
    samples: {
      type: "array",
      description: "The first 10 found: index (UTF-16 offset in the evaluated text), codePoint (U+XXXX) and category.",
    },
    hiddenTagText: {
      type: "string | null",
      description: "The ASCII text hidden in tag characters, decoded (first 100 characters); null when there is none.",
    },
    stripped: { type: "boolean", description: "Whether the characters were removed from the content." },
    strict: { type: "boolean", description: "Whether legitimate uses were reported too." },
    verdict: { type: "boolean", description: "The check's verdict." },
    explanation: { type: "string", description: "What was found and why the check passed or failed." },
    textExcerpt: {
      type: "string",
      description: "The first 100 characters of the evaluated text (after stripping, when stripped).",
    },
  },
  examples: [
    {
      parameters: {},
      text: "Please summarise this.\u200b",
      description: "Fail text carrying hidden characters.",
      verdict: false,
      data: { found: 1 },
    },
    {
      parameters: { strip: true },
      text: "ig\u200bnore",
      description: "Remove hidden characters and let the request through.",
      verdict: true,
      transformedText: "ignore",
    },
  ],
  notes: [
    "Characters reported, by category:",
    "",
    "- `zeroWidth`: zero-width space, non-joiner and joiner, word joiner, zero-width no-break space (BOM), Mongolian vowel separator;",
    "- `bidi`: embeddings, overrides and isolates (U+202A–202E, U+2066–2069: the Trojan Source characters) and the marks LRM, RLM, ALM;",
    "- `tag`: Unicode tag characters U+E0000–E007F, which mirror ASCII and can carry a whole hidden instruction (`data.hiddenTagText` decodes it);",
    "- `variationSelector`: U+FE00–FE0F and U+E0100–E01EF, which can encode hidden bytes when many follow one character;",
    "- `format`: the other default-ignorable characters (soft hyphen, combining grapheme joiner, Hangul fillers, invisible math operators, …).",
    "",
    "Unless `strict` is true, characters doing a legitimate job are left alone: a zero-width joiner inside an emoji sequence (the family emoji) or, like the non-joiner, between letters of a script that uses them (Persian, Hindi, …); one variation selector after a visible character (the red heart emoji, a Han ideograph variant); the tag sequence of a subdivision flag (the flag of Scotland); an LRM, RLM or ALM within 16 characters of right-to-left text; a BOM at the very start; a Mongolian variation selector after a Mongolian letter.",
    "",
    "Without `strip` the check fails when it finds something. With `strip: true` the characters are removed from each text part of the content (the body keeps its shape) and the check passes, unless `failOnDetection` is true. One pass over the text, linear in its length.",
  ].join("\n"),
  run(context, { strip, failOnDetection, strict }) {
    const findings = new Findings();
    let text = context.text;
    if (strip) {
      let offset = 0;
      const result = transformSlots(context, (part) => {
        const kept: string[] = [];
        let last = 0;
        scanInvisible(part, strict, (index, cp, width, category) => {
          findings.add(offset + index, cp, category);
          kept.push(part.slice(last, index));
          last = index + width;
        });
        offset += part.length + PART_SEPARATOR.length;
        if (last === 0) return part;
        kept.push(part.slice(last));
        return kept.join("");
      });
      text = result.text;
      const verdict = findings.count === 0 || !failOnDetection;
      return { verdict, data: dataOf(findings, true, strict, verdict, text), ...result.outcome };
    }
    scanInvisible(text, strict, (index, cp, _width, category) => findings.add(index, cp, category));
    const verdict = findings.count === 0;
    return { verdict, data: dataOf(findings, false, strict, verdict, text) };
  },
});

function dataOf(findings: Findings, strip: boolean, strict: boolean, verdict: boolean, text: string): Record<string, unknown> {
  const stripped = strip && findings.count > 0;
  const summary = Object.entries(findings.categories)
    .map(([category, count]) => `${category}: ${count}`)
    .join(", ");
  const explanation =
    findings.count === 0
      ? "No invisible characters were found."
      : `Found ${findings.count} invisible character${findings.count === 1 ? "" : "s"} (${summary})${
          stripped ? `; they were stripped${verdict ? "" : ", and failOnDetection fails the check"}` : ""
        }.`;
  return {
    found: findings.count,
    categories: findings.categories,
    samples: findings.samples,
    hiddenTagText: findings.hiddenTagText === "" ? null : findings.hiddenTagText.slice(0, 100),
    stripped,
    strict,
    verdict,
    explanation,
    textExcerpt: textExcerpt(text),
  };
}
