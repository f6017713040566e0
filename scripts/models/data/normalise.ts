/**
 * The key two texts share when they are the same after lower-casing and dropping everything that
 * is not a letter or a digit: how the datasets define a near duplicate, so it is how the written
 * rows are checked against them.
 */
export function normalisedKey(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "");
}
