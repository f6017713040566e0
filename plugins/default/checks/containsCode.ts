import { defineCheck, textExcerpt } from "../../../core/index.js";
import { findCode } from "../shared/code-detection/classify.js";
import { CODE_FIGURES } from "../shared/code-detection/figures.js";
import { aliasesOf, CODE_FORMATS, type CodeFormat, formatNamed } from "../shared/code-detection/formats.js";

const MAX_EVIDENCE = 50;

const aliasList = CODE_FORMATS.map((f) => {
  const aliases = aliasesOf(f);
  return `\`${f}\`${aliases.length ? ` (${aliases.map((a) => `\`${a}\``).join(", ")})` : ""}`;
}).join(", ");

/** The `format` that counts code of every format (the peer gateway has none: it needs a format). */
const ANY = "any";

/** The format a parameter names: null for `any`, undefined when it names none. */
function wantedFormat(format: string): CodeFormat | null | undefined {
  return format.toLowerCase() === ANY ? null : formatNamed(format);
}

/**
 * Passes when the text contains code of the given format (fails, with `not`). Fenced blocks are
 * named by their tag; code outside fences, and in untagged fences, by its content.
 */
export default defineCheck<{ format: string; not: boolean }>({
  id: "containsCode",
  name: "Contains code",
  description: "Checks whether the text contains code of a given language or format, fenced or not.",
  sides: ["input", "output"],
  // With `not` it looks for code, which lies within a window; without, it requires code somewhere in the answer.
  streamScope: { windowWhen: { not: true } },
  parameters: {
    type: "object",
    properties: {
      format: {
        type: "string",
        description: `The language or format to look for, case-insensitive; fence aliases are accepted too (\`py\`, \`c++\`, \`yml\`). One of: ${CODE_FORMATS.join(", ")}; or \`any\`, for code of any of them. Required, as in the peer gateway.`,
        examples: [...CODE_FORMATS, ANY],
      },
      not: { type: "boolean", default: false, description: "Invert the verdict: pass when no such code is found." },
    },
    required: ["format"],
    additionalProperties: false,
  },
  data: {
    format: { type: "string | null", description: "The format looked for (canonical name), null for `any`." },
    foundFormats: { type: "string[]", description: "Every format found in the text, in order of first appearance." },
    evidence: {
      type: "array",
      description: `Where code was found, at most ${MAX_EVIDENCE}: {format (null for a fence of an unlisted language), source ("fence" or "text"), tag (of a fence), by ("tag" or "content"), startLine, endLine} (1-based lines).`,
    },
    not: { type: "boolean", description: "Whether the verdict was inverted." },
    verdict: { type: "boolean", description: "The check's verdict." },
    explanation: { type: "string", description: "Why the check passed or failed." },
    textExcerpt: { type: "string", description: "The first 100 characters of the evaluated text." },
  },
  examples: [
    {
      parameters: { format: "SQL" },
      text: "SELECT id FROM users WHERE active = 1;",
      description: "Passes: unfenced SQL.",
      verdict: true,
      data: { foundFormats: ["SQL"] },
    },
    {
      parameters: { format: "c++" },
      text: "```cpp\nint main() {}\n```",
      description: "Passes: a fence tagged cpp is C++.",
      verdict: true,
      data: { foundFormats: ["C++"] },
    },
    {
      parameters: { format: "any", not: true },
      text: "No code here, just a sentence.",
      description: "Passes when the text holds no code at all.",
      verdict: true,
      data: { foundFormats: [] },
    },
  ],
  notes: `How it decides:

1. **Fenced blocks** (\`\`\`\` \`\`\` \`\`\`\` or \`~~~\`, CommonMark rules, an unclosed fence runs to the end). A tag
   that names a format decides, case-insensitively and with aliases — ${aliasList}. The tag is the
   first word of the info string (\`{.python}\`, \`language-python\`, \`python title="x"\` and
   \`python:app.py\` all work). A block with no tag, or tagged \`text\`, \`txt\`, \`plain\`,
   \`plaintext\`, \`output\`, \`log\`, is judged by its content. A block tagged with a language
   outside the list (\`elixir\`) is reported in \`evidence\` with format null and counts for no
   format.
2. **Unfenced code.** Lines outside fences are grouped: a run of lines that are not prose (blank
   lines inside a run are kept; a line of prose ends it). A line is prose when it has five or more
   tokens, three quarters of them words, and under 4% of its characters are code punctuation
   (brackets, braces, parentheses, \`;\`, \`=\`, \`<\`, \`>\`, \`$\`, \`|\`, \`&\`, backslash, backtick), or
   when it is a label that introduces what follows ("Result:", capitalised words and a colon); comment lines are never prose. Each line votes with the signals it
   matches: RE2 patterns per format with weights (4–9 for a construct nearly unique to a format,
   such as \`SELECT … FROM\`, \`def f(x):\`, \`: string\` annotations, \`fmt.Println\`,
   \`std::\`, shell pipelines into \`grep\`/\`awk\`; 2–3 for characteristic ones; 1 for weak hints).
   Signals shared by related formats vote for each (\`const x =\` for JavaScript and TypeScript),
   so format-specific ones decide; on a tie the more general format wins (JavaScript over
   TypeScript, C over C++). A group is reported as its best format when that scores at least 4 (an
   untagged fence needs 2). JSON is confirmed by parsing (an object, or an array holding objects);
   YAML by parsing and by 80% of its lines being keys or list items, with lower-case keys. A
   prose-looking line still counts as code when it matches a signal of weight 5 or more (a sentence
   that contains \`SELECT name FROM users WHERE …\`).

**Limits.** Markdown is only found in fences: outside them it is the text itself, not code in it.
Inline code spans (single backticks) are not judged: one identifier in a sentence is no code
block. A group of unfenced lines gets one format, so two languages pasted back to back with no
prose between them are reported as the stronger one. Very short snippets (\`x = 1\`) carry no signal
of any language and are missed unless fenced with a tag. Lines are scored on their first 2,000
characters; JSON and YAML are confirmed up to 256 KB and 64 KB per group. The cost is linear in
the text: each line runs only the patterns whose literal hints it contains.

**Measured** on the labelled set in \`plugins/default/fixtures/code-snippets.yaml\`
(${CODE_FIGURES.snippets} snippets: ${CODE_FIGURES.codeSnippets} with code — unfenced, fenced with
aliases, untagged fences, mixtures — and ${CODE_FIGURES.proseSnippets} of prose, many of them
talking about code: "select the files from the list", "import machinery", "a for loop", "Go to the
settings page"). A format counts as found when it is in \`foundFormats\`. \`containsCode.test.ts\`
computes these figures and fails when they differ from this table:

${CODE_FIGURES.table}

${CODE_FIGURES.caveat}`,
  validate(p) {
    if (wantedFormat(p.format) === undefined) {
      return { parameter: "format", message: `unknown format "${p.format}"; use one of ${CODE_FORMATS.join(", ")}, or ${ANY}` };
    }
    return undefined;
  },
  run({ text }, { format, not }) {
    const wanted = wantedFormat(format);
    if (wanted === undefined) throw new TypeError(`containsCode: unknown format "${format}"`);
    const evidence = findCode(text);
    const foundFormats = [...new Set(evidence.map((e) => e.format).filter((f): f is CodeFormat => f !== null))];
    const found = wanted ? foundFormats.includes(wanted) : foundFormats.length > 0;
    const verdict = not ? !found : found;
    const what = wanted ? `${wanted} code` : "code";
    const summary = found
      ? `The text contains ${what}`
      : foundFormats.length
        ? `The text contains no ${what} (found: ${foundFormats.join(", ")})`
        : `The text contains no ${what}`;
    const inverted = not ? `; the check is inverted (not: true), so it ${verdict ? "passes" : "fails"}` : "";
    return {
      verdict,
      data: {
        format: wanted ?? null,
        foundFormats,
        evidence: evidence.slice(0, MAX_EVIDENCE),
        not,
        verdict,
        explanation: `${summary}${inverted}.`,
        textExcerpt: textExcerpt(text),
      },
    };
  },
});
