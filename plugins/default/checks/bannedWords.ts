import unhomoglyph from "unhomoglyph";
import { defineCheck, textExcerpt } from "../../../core/index.js";
import { findNeedle, foldCase, needle } from "../shared/word-search.js";

interface Parameters {
  words: string[];
  wholeWord: boolean;
  leetspeak: boolean;
}

const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
const MARKS = /\p{M}/gu;
const SPACES = /\s+/gu;

// Applied after confusable folding, which already maps 0 to o, and 1 and | to l. The letters i and
// l fold together because 1 and ! stand for either.
const LEET: Record<string, string> = {
  "4": "a",
  "@": "a",
  "8": "b",
  "3": "e",
  "9": "g",
  i: "l",
  "!": "l",
  "5": "s",
  $: "s",
  "7": "t",
  "+": "t",
};
const LEET_CHARS = /[48@39i!5$7+]/g;

/**
 * The form text and words are compared in, so simple obfuscation does not evade the check:
 * compatibility forms folded (NFKC: full-width and mathematical letters, ligatures), invisible
 * characters removed, case folded, accents and other combining marks removed, look-alike characters
 * of other scripts folded to their Latin twins (Unicode's confusables), white-space runs made one
 * space, and optionally leetspeak folded.
 */
export function foldForMatching(text: string, leetspeak: boolean): string {
  const folded = unhomoglyph(foldCase(text.normalize("NFKC").replace(IGNORABLE, "")).normalize("NFD").replace(MARKS, ""))
    .toLowerCase()
    .replace(SPACES, " ");
  return leetspeak ? folded.replace(LEET_CHARS, (c) => LEET[c] as string) : folded;
}

/**
 * Fails when the text contains a banned word or phrase, after folding both so that look-alike
 * letters, full-width forms, accents, invisible characters and (optionally) leetspeak do not hide it.
 */
export default defineCheck<Parameters>({
  id: "bannedWords",
  name: "Banned words",
  description:
    "Fails when the text contains a banned word or phrase, seeing through look-alike letters, full-width forms, accents, invisible characters and optionally leetspeak.",
  sides: ["input", "output"],
  parameters: {
    type: "object",
    properties: {
      words: {
        type: "array",
        items: { type: "string", minLength: 1 },
        minItems: 1,
        description: "The banned words or phrases.",
      },
      wholeWord: {
        type: "boolean",
        default: true,
        description: "Match whole words only, so `ass` does not match inside `class`.",
      },
      leetspeak: {
        type: "boolean",
        default: false,
        description: "Also fold leetspeak (4→a, 3→e, 5→s, 7→t, @→a, $→s, …); i and l then count as one letter.",
      },
    },
    required: ["words"],
    additionalProperties: false,
  },
  data: {
    matchedWords: {
      type: "string[]",
      description: "The configured entries found in the text, as configured, in configured order.",
    },
    wholeWord: { type: "boolean", description: "Whether only whole words matched." },
    leetspeak: { type: "boolean", description: "Whether leetspeak was folded." },
    verdict: { type: "boolean", description: "The check's verdict." },
    explanation: { type: "string", description: "Why the check passed or failed." },
    textExcerpt: { type: "string", description: "The first 100 characters of the evaluated text." },
  },
  examples: [
    {
      parameters: { words: ["forbidden", "top secret"], leetspeak: true },
      text: "This is f0rb1dden.",
      description: "Block two phrases, leetspeak included.",
      verdict: false,
      data: { matchedWords: ["forbidden"] },
    },
  ],
  notes: [
    "Text and banned words are compared after the same folding, in this order:",
    "",
    "1. Unicode NFKC: full-width letters (`ｂａｄ`), mathematical letters (`𝐛𝐚𝐝`), ligatures and other compatibility forms become plain letters;",
    "2. default-ignorable characters are removed (zero-width spaces and joiners, soft hyphens, bidi controls, tag characters), so `b\\u200Bad` is `bad`;",
    "3. case folding (upper then lower case: `STRASSE` matches `straße`);",
    "4. combining marks are removed after canonical decomposition, so accents and stacked marks (`b̷a̷d̷`) do not hide a word;",
    "5. confusable folding with Unicode's confusables table (the `unhomoglyph` package): Cyrillic `а`, Greek `ο` and other look-alikes become their Latin twins, `0` becomes `o` and `1` becomes `l`;",
    "6. runs of white space become one space, so a phrase matches across line breaks;",
    "7. with `leetspeak: true`, digits and symbols that stand for letters are folded too (4 and @ to a, 8 to b, 3 to e, 9 to g, 5 and $ to s, 7 and + to t, ! and i to l).",
    "",
    "Folding is linear in the text. Its price is some false positives: text entirely in Cyrillic or Greek can fold to a banned Latin word (Russian `сор` folds to `cop`), and removing marks conflates words that differ only by accents. Letters spaced out (`b a d`) or separated by punctuation (`b.a.d`) are not joined.",
    "",
    "`wholeWord` (the default) wants a word boundary at each end of an entry that starts or ends with a letter or digit; words of scripts written without spaces match anywhere. An entry that folds to nothing (only invisible characters or marks) is a configuration error.",
  ].join("\n"),
  validate({ words, leetspeak }) {
    const index = words.findIndex((word) => foldForMatching(word, leetspeak).trim() === "");
    if (index >= 0)
      return {
        parameter: "words",
        message: `entry ${index} (${JSON.stringify(words[index])}) has nothing left to match after folding`,
      };
    return undefined;
  },
  run({ text }, { words, wholeWord, leetspeak }) {
    const haystack = foldForMatching(text, leetspeak);
    const matchedWords = words.filter(
      (word) => findNeedle(haystack, needle(foldForMatching(word, leetspeak).trim(), wholeWord)) >= 0,
    );
    const verdict = matchedWords.length === 0;
    const explanation = verdict
      ? "No banned word was found."
      : `Found ${matchedWords.length} banned ${matchedWords.length === 1 ? "entry" : "entries"}: ${matchedWords.join(", ")}.`;
    return { verdict, data: { matchedWords, wholeWord, leetspeak, verdict, explanation, textExcerpt: textExcerpt(text) } };
  },
});
