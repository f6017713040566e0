/**
 * Adversarial texts of about 1 MB for the catastrophe guard: shapes that make naive text code
 * quadratic (one endless word, many tiny lines, deep nesting, runs of delimiters, mixed scripts).
 */

/** Target length in UTF-16 units. */
export const MEGABYTE = 1 << 20;

function fill(unit: string, length = MEGABYTE): string {
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

/** Builds the adversarial texts; each about 1 MB. */
export function adversarialTexts(): Record<string, string> {
  const half = MEGABYTE / 2;
  const depth = MEGABYTE / 8;
  return {
    "one long word": fill("a"),
    "many short lines": fill("Hi.\n"),
    "nested brackets": `${"[".repeat(half)}${"]".repeat(half)}`,
    "nested objects": `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`,
    "repeated delimiters": fill('{}[],:"```\n'),
    "mixed scripts": fill("Aа Ωω 中文 العربية ש\u200D👩\u200D💻 e\u0301 ｆｕｌｌ 𝐛𝐨𝐥𝐝 \u202E1\u202C "),
  };
}
