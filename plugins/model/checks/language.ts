/**
 * `model.language`: detects the language(s) of the text and checks them against allow and deny
 * lists of ISO 639-1 codes.
 */
import { type DetectedLanguage, detectLanguages, loadDetector } from "../shared/language-detection.js";
import { defineCheck, textExcerpt } from "../../../core/index.js";

interface Parameters {
  allow?: string[];
  deny?: string[];
  minShare: number;
  minLetters: number;
  undetermined?: "pass" | "fail";
}

/**
 * The 60 languages of eld's table (eld.info()); a test keeps this list equal to the package's, so
 * a code the detector can never report is a config error rather than a rule that never fires.
 */
export const DETECTABLE_LANGUAGES: readonly string[] = [
  "am", "ar", "az", "be", "bg", "bn", "ca", "cs", "da", "de", "el", "en", "es", "et", "eu", "fa", "fi", "fr", "gu", "he",
  "hi", "hr", "hu", "hy", "is", "it", "ja", "ka", "kn", "ko", "ku", "lo", "lt", "lv", "ml", "mr", "ms", "nl", "no", "or",
  "pa", "pl", "pt", "ro", "ru", "sk", "sl", "sq", "sr", "sv", "ta", "te", "th", "tl", "tr", "uk", "ur", "vi", "yo", "zh",
]; // prettier-ignore

const codeList = (description: string) => ({
  type: "array",
  items: { type: "string", pattern: "^[a-z]{2}$" },
  minItems: 1,
  uniqueItems: true,
  description,
});

function listCodes(languages: readonly DetectedLanguage[]): string {
  return languages.map((l) => `${l.language} (${Math.round(l.share * 100)} %)`).join(", ");
}

export default defineCheck<Parameters>({
  id: "language",
  name: "Language",
  description: "Detects the language(s) of the text and fails when one is denied, or not among the allowed ones.",
  sides: ["input", "output"],
  kind: "model",
  parameters: {
    type: "object",
    properties: {
      allow: codeList("ISO 639-1 codes of the languages the text may be written in; any other detected language fails."),
      deny: codeList("ISO 639-1 codes of languages the text must not be written in."),
      minShare: {
        type: "number",
        minimum: 0,
        maximum: 1,
        default: 0.1,
        description:
          "A language counts only when it holds at least this share of the text's letters (ignores a quoted word or name).",
      },
      minLetters: {
        type: "integer",
        minimum: 1,
        default: 12,
        description:
          "Texts with fewer letters than this are undetermined: too short to tell. A Chinese, Japanese or Korean character counts as two.",
      },
      undetermined: {
        enum: ["pass", "fail"],
        description:
          "Verdict when the language cannot be determined (too short, no letters, or the detector finds none). Unset: fail when `allow` is set, pass when only `deny` is.",
      },
    },
    additionalProperties: false,
  },
  data: {
    languages: {
      type: "{language, share, confidence}[]",
      description: "Detected languages by decreasing share of letters, with the detector's confidence (0–1).",
    },
    undetermined: { type: "boolean", description: "Whether the language could not be determined." },
    denied: { type: "string[]", description: "Detected languages on the deny list." },
    notAllowed: { type: "string[]", description: "Detected languages missing from the allow list." },
    explanation: { type: "string", description: "Why the check passed or failed." },
    textExcerpt: { type: "string", description: "The first 100 characters of the evaluated text." },
  },
  examples: [
    {
      parameters: { allow: ["en", "de"] },
      text: "Wie spät ist es in Berlin?",
      description: "Only English or German.",
      verdict: true,
    },
    {
      parameters: { deny: ["ru"] },
      text: "Привет, как дела?",
      description: "Anything but Russian.",
      verdict: false,
      data: { denied: ["ru"] },
    },
  ],
  notes: [
    "Detection is the `eld` package's n-gram detector (its extra-small table, shipped in the package; no download, no network), run over chunks of whole sentences holding at least 1,000 letters, so a long text mixing languages lists each with its share of letters (a language must fill about a paragraph to be seen on its own; a chat message is one chunk). It knows 60 languages: " +
      DETECTABLE_LANGUAGES.map((c) => `\`${c}\``).join(", ") +
      "; a code outside that list is a configuration error.",
    "",
    "**Verdict.** Languages holding less than `minShare` of the letters are ignored. The check fails when a remaining language is on `deny`, or when `allow` is set and a remaining language is not on it.",
    "",
    "**Short or script-less text.** A text with fewer than `minLetters` letters (`ok`, `42`, an emoji, a code fragment; a Chinese, Japanese or Korean character counts as two letters, as it says about as much as a short word), or in which the detector recognises no language, is *undetermined*: `data.undetermined` is true and the explanation says so. Its verdict is `undetermined` when set; otherwise it fails when `allow` is set (the text cannot be shown to be in an allowed language) and passes when only `deny` is (it cannot be shown to be in a denied one).",
    "",
    "**Accuracy** (docs/models-language.md, which compares the detectors considered): with `allow` set to the right language, 98.3 % of the 1,494 XQuAD questions (12 languages) pass, Hindi the weakest at 90 %; all but one of the 2,880 XQuAD paragraphs.",
  ].join("\n"),
  validate({ allow, deny }) {
    if (!allow && !deny) return { message: "set `allow`, `deny` or both" };
    for (const [name, list] of [
      ["allow", allow],
      ["deny", deny],
    ] as const) {
      const unknown = list?.find((code) => !DETECTABLE_LANGUAGES.includes(code));
      if (unknown)
        return { parameter: name, message: `"${unknown}" is not a language the detector knows (see the check's notes)` };
    }
    const both = allow?.find((code) => deny?.includes(code));
    if (both) return { message: `"${both}" is both allowed and denied` };
    return undefined;
  },
  async load() {
    await loadDetector();
  },
  async run(context, { allow, deny, minShare, minLetters, undetermined }) {
    const report = await detectLanguages(context.text);
    const languages = report.languages;
    const textData = { textExcerpt: textExcerpt(context.text) };
    const counted = languages.filter((l) => l.share >= minShare);
    if (report.letters < minLetters || counted.length === 0) {
      const verdict = (undetermined ?? (allow ? "fail" : "pass")) === "pass";
      const why =
        report.letters < minLetters
          ? `the text has ${report.letters} letter${report.letters === 1 ? "" : "s"}, fewer than ${minLetters}`
          : "the detector recognised no language in it";
      return {
        verdict,
        data: {
          languages,
          undetermined: true,
          denied: [],
          notAllowed: [],
          explanation: `Language undetermined: ${why}; ${verdict ? "passes" : "fails"} as ${undetermined ? "`undetermined` says" : allow ? "an allow list is set" : "only a deny list is set"}.`,
          ...textData,
        },
      };
    }
    const denied = counted.filter((l) => deny?.includes(l.language)).map((l) => l.language);
    const notAllowed = allow ? counted.filter((l) => !allow.includes(l.language)).map((l) => l.language) : [];
    const verdict = denied.length === 0 && notAllowed.length === 0;
    const problems = [
      ...(denied.length ? [`denied: ${denied.join(", ")}`] : []),
      ...(notAllowed.length ? [`not allowed: ${notAllowed.join(", ")}`] : []),
    ];
    return {
      verdict,
      data: {
        languages,
        undetermined: false,
        denied,
        notAllowed,
        explanation: `Detected ${listCodes(counted)}${verdict ? "; all permitted." : `; ${problems.join("; ")}.`}`,
        ...textData,
      },
    };
  },
});
