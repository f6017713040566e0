/**
 * re2-wasm counts positions in code points where JavaScript counts UTF-16 units, so on a text
 * with characters outside the Basic Multilingual Plane (emoji, many CJK extensions) its match
 * indexes are off and its `replace` corrupts the string, splitting surrogate pairs. This adapter
 * gives it RegExp's UTF-16 semantics: texts without such characters go straight through; the
 * others have their offsets translated through a code-point → UTF-16 table built once per text.
 * Its global replace also loops forever on an empty match, so such patterns are replaced here.
 */
import { createRequire } from "node:module";

interface WasmRE2 {
  lastIndex: number;
  readonly source: string;
  readonly flags: string;
  readonly global: boolean;
  readonly sticky: boolean;
  exec(input: string): RegExpExecArray | null;
  replace(input: string, replacement: string): string;
}

const require = createRequire(import.meta.url);
const { RE2 } = require("re2-wasm") as { RE2: new (pattern: string, flags: string) => WasmRE2 };

const SURROGATE = /[\uD800-\uDFFF]/;

/** UTF-16 offset of every code point of a text, plus the text's length at the end. */
function codePointOffsets(text: string): Int32Array {
  const offsets = new Int32Array(text.length + 1);
  let points = 0;
  for (let i = 0; i < text.length; i++) {
    offsets[points++] = i;
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) i++;
  }
  offsets[points] = text.length;
  return offsets.subarray(0, points + 1);
}

/** Code-point index of a UTF-16 offset (the first code point at or after it). */
function codePointIndex(offsets: Int32Array, unit: number): number {
  let low = 0;
  let high = offsets.length - 1;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((offsets[mid] as number) < unit) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Expands `$&`, `$1`, `$<name>` and `$$` in a replacement string, as String.prototype.replace does. */
function expand(replacement: string, match: RegExpExecArray): string {
  return replacement.replace(/\$(\$|&|\d{1,2}|<[^>]*>)/g, (whole, token: string) => {
    if (token === "$") return "$";
    if (token === "&") return match[0];
    if (token.startsWith("<")) return match.groups?.[token.slice(1, -1)] ?? "";
    const group = Number(token);
    return group > 0 && group < match.length ? (match[group] ?? "") : whole;
  });
}

/** An re2-wasm pattern with RegExp's UTF-16 offsets. */
export class WasmRegex {
  readonly #re: WasmRE2;
  #offsetsFor: string | undefined;
  #offsets: Int32Array = new Int32Array(1);
  lastIndex = 0;

  constructor(pattern: string, flags: string) {
    this.#re = new RE2(pattern, flags);
  }

  get source(): string {
    return this.#re.source;
  }

  get flags(): string {
    return this.#re.flags;
  }

  get global(): boolean {
    return this.#re.global;
  }

  #table(input: string): Int32Array {
    if (this.#offsetsFor !== input) {
      this.#offsets = codePointOffsets(input);
      this.#offsetsFor = input;
    }
    return this.#offsets;
  }

  exec(input: string): RegExpExecArray | null {
    const stateful = this.#re.global || this.#re.sticky;
    if (!SURROGATE.test(input)) {
      this.#re.lastIndex = this.lastIndex;
      const match = this.#re.exec(input);
      if (stateful) this.lastIndex = this.#re.lastIndex;
      return match;
    }
    const offsets = this.#table(input);
    this.#re.lastIndex = stateful ? codePointIndex(offsets, this.lastIndex) : 0;
    const match = this.#re.exec(input);
    if (match) match.index = offsets[match.index] as number;
    // re2-wasm's own lastIndex mixes units (a code-point index plus a UTF-16 length): derive it.
    if (stateful) this.lastIndex = match ? match.index + match[0].length : 0;
    return match;
  }

  test(input: string): boolean {
    return this.exec(input) !== null;
  }

  [Symbol.replace](input: string, replacement: string): string {
    // re2-wasm's own global replace never ends once the pattern matches an empty string (`x*`,
    // `\b`), which no probe can rule out: global replaces go through exec here.
    if (!SURROGATE.test(input) && !this.#re.global) {
      this.#re.lastIndex = 0;
      return this.#re.replace(input, replacement);
    }
    let out = "";
    let copied = 0;
    this.lastIndex = 0;
    for (;;) {
      const match = this.exec(input);
      if (!match) break;
      out += input.slice(copied, match.index) + expand(replacement, match);
      copied = match.index + match[0].length;
      if (!this.#re.global) break;
      if (match[0] === "") {
        // An empty match must not repeat: step over one whole code point.
        const unit = input.charCodeAt(this.lastIndex);
        this.lastIndex += unit >= 0xd800 && unit <= 0xdbff ? 2 : 1;
        if (this.lastIndex > input.length) break;
      }
    }
    this.lastIndex = 0;
    return out + input.slice(copied);
  }
}
