/**
 * `profanity.score`: scores the profanity in a text and fails when the score reaches a
 * threshold; can also mask the words it found.
 */
import { defineCheck, textExcerpt } from "guardgate";
import { maskMatches, WordMatcher } from "./matcher.js";
import { DEFAULT_WORDS } from "./words.js";

export interface ScoreParameters {
  threshold: number;
  extraWords: Record<string, number>;
  allowWords: string[];
  redact: boolean;
}

/** At most this many matches are listed in `data`; the score counts them all. */
const LISTED_MATCHES = 20;

// The default list's matcher is built once; a config with its own words gets its own, cached by
// the parameters object (the gateway prepares parameters once per loaded config).
const defaultMatcher = new WordMatcher(Object.entries(DEFAULT_WORDS));
const matchers = new WeakMap<ScoreParameters, WordMatcher>();

function matcherFor(parameters: ScoreParameters): WordMatcher {
  if (Object.keys(parameters.extraWords).length === 0 && parameters.allowWords.length === 0) return defaultMatcher;
  let matcher = matchers.get(parameters);
  if (!matcher) {
    const allowed = new Set(parameters.allowWords.map((w) => w.toLowerCase()));
    const words = { ...DEFAULT_WORDS, ...parameters.extraWords };
    matcher = new WordMatcher(Object.entries(words).filter(([word]) => !allowed.has(word.toLowerCase())));
    matchers.set(parameters, matcher);
  }
  return matcher;
}

export default defineCheck<ScoreParameters>({
  id: "score",
  name: "Profanity score",
  description:
    "Scores the profanity in the text (each word found adds its severity, 1 to 3) and fails when the score reaches the threshold.",
  sides: ["input", "output"],
  transforms: true,
  parameters: {
    type: "object",
    properties: {
      threshold: {
        type: "number",
        exclusiveMinimum: 0,
        default: 2,
        description: "The check fails when the score reaches this. 2: one strong word, or two mild ones.",
      },
      extraWords: {
        type: "object",
        propertyNames: { pattern: "^\\S+$" },
        additionalProperties: { type: "integer", minimum: 1, maximum: 3 },
        default: {},
        description: "More words to count, each with its severity (1 mild, 2 strong, 3 severe).",
      },
      allowWords: {
        type: "array",
        items: { type: "string", minLength: 1 },
        default: [],
        description: "Words of the built-in list not to count (hell, for a text about theology).",
      },
      redact: {
        type: "boolean",
        default: false,
        description: "Mask every word found after its first letter (s***), whatever the verdict.",
      },
    },
    additionalProperties: false,
  },
  data: {
    score: { type: "number", description: "Sum of the severities of every word found." },
    threshold: { type: "number", description: "The threshold applied." },
    matchCount: { type: "number", description: "How many words were found." },
    matches: {
      type: "{word, text, index, severity}[]",
      description: `The first ${LISTED_MATCHES} words found: the listed word, as written, its UTF-16 offset and severity.`,
    },
    explanation: { type: "string", description: "Why the check passed or failed." },
    textExcerpt: { type: "string", description: "The first 100 characters of the evaluated text." },
  },
  examples: [
    { parameters: {}, text: "What the hell.", description: "Passes: one mild word scores 1.", verdict: true, data: { score: 1 } },
    {
      parameters: {},
      text: "This is bullsh1t.",
      description: "Fails: a strong word, however written, scores 2.",
      verdict: false,
      data: { score: 2 },
    },
    {
      parameters: { threshold: 4, redact: true },
      text: "Damn, that was a sh*tty call.",
      description: "Passes, masked.",
      verdict: true,
    },
  ],
  notes: `Matching is by whole word, so words that contain a listed word (Scunthorpe, assassin) never
count. It sees through case, accents, digits and symbols for letters (sh1t, a$$), stretched letters
(fuuuck), masked letters (f*ck) and inflections (fucking, shitty). It does not see words split by
spaces or punctuation (f u c k), nor meaning: a quoted or discussed word counts like a used one.`,
  run({ text }, parameters) {
    const matches = matcherFor(parameters).find(text);
    const score = matches.reduce((sum, m) => sum + m.severity, 0);
    const verdict = score < parameters.threshold;
    const words = [...new Set(matches.map((m) => m.word))];
    const explanation =
      matches.length === 0
        ? "No profanity found."
        : `Score ${score} ${verdict ? "is under" : "reaches"} the threshold ${parameters.threshold}: found ${words.join(", ")}.`;
    return {
      verdict,
      data: {
        score,
        threshold: parameters.threshold,
        matchCount: matches.length,
        matches: matches.slice(0, LISTED_MATCHES),
        explanation,
        textExcerpt: textExcerpt(text),
      },
      ...(parameters.redact && matches.length > 0 && { transformedText: maskMatches(text, matches) }),
    };
  },
});
