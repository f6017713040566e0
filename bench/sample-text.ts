/**
 * Deterministic English-like prose of an exact size in UTF-8 bytes, as a model might write it:
 * sentences of varied length, commas, numbers, and a few typographic characters (’ — é) so that
 * the Unicode paths of the checks are exercised as they would be on real text.
 */

const WORDS = (
  "the of and to a in is that for it as with was on be by this are or at from an which have not " +
  "but all were when there can more if will one about would their what so up out into time has " +
  "model answer request system user data guardrail policy check result text value response number " +
  "people between through during before after under again further then once here where why how " +
  "service report update review analysis example question context summary detail reason process"
).split(" ");
const SPECIAL = ["don’t", "café", "—", "it’s", "résumé", "3.14", "2024", "e-mail", "well-known", "42"];

/** A small seeded generator (mulberry32), so every run measures the same text. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Prose of exactly `bytes` UTF-8 bytes (never cutting a character). */
export function sampleText(bytes: number, seed = 42): string {
  const next = random(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  const parts: string[] = [];
  let size = 0;
  while (size < bytes) {
    const length = 6 + Math.floor(next() * 18);
    const words: string[] = [];
    for (let i = 0; i < length; i++) {
      let word = next() < 0.04 ? pick(SPECIAL) : pick(WORDS);
      if (i === 0) word = word.charAt(0).toUpperCase() + word.slice(1);
      else if (next() < 0.08) word += ",";
      words.push(word);
    }
    const sentence = `${words.join(" ")}${pick([".", ".", ".", "?", "!"])}${next() < 0.1 ? "\n\n" : " "}`;
    parts.push(sentence);
    size += Buffer.byteLength(sentence);
  }
  const text = parts.join("");
  // Every character is at least one byte, so dropping as many characters as there are extra bytes
  // is enough; spaces make up what multi-byte characters took away.
  const trimmed = text.slice(0, Math.max(0, text.length - (Buffer.byteLength(text) - bytes)));
  // Flat, as JSON.parse gives a request's text: V8 keeps `a + b` as a rope (and a slice as a view
  // of its parent), and reading one character at a time from a rope made the counting checks
  // measure three times their cost on a parsed body (wordCount on 1 KB: 22 µs against 8).
  return JSON.parse(JSON.stringify(trimmed + " ".repeat(bytes - Buffer.byteLength(trimmed)))) as string;
}
