/**
 * Adversarial texts of about 1 MB for the catastrophe guard: shapes that make naive text code
 * quadratic (one endless word, runs of one punctuation mark or of whitespace, many tiny lines,
 * deep nesting, runs of delimiters, mixed scripts).
 */

/** Target length in UTF-16 units. */
export const MEGABYTE = 1 << 20;

function fillTo(unit: string, length: number): string {
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

/** Builds the adversarial texts; each about `length` UTF-16 units (1 MB by default). */
export function adversarialTexts(length = MEGABYTE): Record<string, string> {
  const half = length / 2;
  const depth = length / 8;
  const fill = (unit: string) => fillTo(unit, length);
  return {
    "one long word": fill("a"),
    "one punctuation mark": fill("!"),
    whitespace: fill(" \t"),
    "many short lines": fill("Hi.\n"),
    "nested brackets": `${"[".repeat(half)}${"]".repeat(half)}`,
    "nested objects": `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`,
    "repeated delimiters": fill('{}[],:"```\n'),
    "mixed scripts": fill("Aа Ωω 中文 العربية ש\u200D👩\u200D💻 e\u0301 ｆｕｌｌ 𝐛𝐨𝐥𝐝 \u202E1\u202C "),
  };
}
