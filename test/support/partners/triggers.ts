/**
 * What the partner fakes treat as an attack, as toxic or as personal data, so tests and the
 * end-to-end run can make any vendor flag a text by writing it.
 */

/** An instruction override: a prompt injection to every fake. */
export const INJECTION = /ignore (all )?previous instructions/i;

/** An insult: toxic to every fake. */
export const TOXIC = /\b(idiot|stupid)\b/i;

const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g;

/** Each e-mail address in a text (the personal data every fake finds), with its offsets. */
export function emails(text: string): Array<{ value: string; start: number; end: number }> {
  return [...text.matchAll(EMAIL)].map((m) => ({ value: m[0], start: m.index, end: m.index + m[0].length }));
}

/** The text with every e-mail address replaced by `mask`. */
export function maskEmails(text: string, mask: string): string {
  return text.replace(EMAIL, mask);
}

/** A request header's value as one string ("" when absent). */
export function header(headers: Record<string, string | string[] | undefined>, name: string): string {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? (value[0] ?? "") : (value ?? "");
}
