/**
 * Regular expressions on user-supplied patterns, always through RE2 so that no pattern can stall
 * the service (linear time, no backtracking). The native `re2` binding is used when it loads;
 * `re2-wasm` is the portable fallback (30–70x slower on large texts, see the design notes).
 * JavaScript's RegExp is never used on a user pattern.
 */
import { createRequire } from "node:module";
import { LRUCache } from "lru-cache";
import { WasmRegex } from "./regex-wasm.js";

/** The subset of RegExp both RE2 builds implement, as guardgate uses it. */
export interface Regex {
  readonly source: string;
  readonly flags: string;
  readonly global: boolean;
  lastIndex: number;
  exec(input: string): RegExpExecArray | null;
  test(input: string): boolean;
  [Symbol.replace](input: string, replacement: string): string;
}

/** Which RE2 build compiles patterns. */
export type RegexEngineName = "re2" | "re2-wasm";

type RegexConstructor = new (pattern: string, flags?: string) => Regex;

interface LoadedEngine {
  name: RegexEngineName;
  create: RegexConstructor;
  /** re2-wasm insists on the `u` flag; the native binding always works in Unicode. */
  requiredFlags: string;
}

const require = createRequire(import.meta.url);
const CACHE_SIZE = 1_000;
const ALLOWED_FLAGS = /^[dgimsuy]*$/;

let engine: LoadedEngine | undefined;
// Checks call compileRegex on every run, most with no flags: those are keyed by the pattern itself,
// a string whose hash V8 keeps, so a hit builds no key. Flagged patterns are keyed `flags\0pattern`
// (flags never hold a NUL, so the key is unambiguous). The engine is not in the keys: switching
// it clears both caches.
const plain = new LRUCache<string, Regex | SyntaxError>({ max: CACHE_SIZE });
const flagged = new LRUCache<string, Regex | SyntaxError>({ max: CACHE_SIZE });

function load(name: RegexEngineName): LoadedEngine {
  if (name === "re2") return { name, create: require("re2") as RegexConstructor, requiredFlags: "" };
  return { name, create: WasmRegex as unknown as RegexConstructor, requiredFlags: "u" };
}

function current(): LoadedEngine {
  if (engine) return engine;
  const wanted = process.env.GUARDGATE_REGEX_ENGINE;
  if (wanted === "re2-wasm" || wanted === "wasm") {
    engine = load("re2-wasm");
    return engine;
  }
  try {
    engine = load("re2");
  } catch {
    // The native addon did not build or load on this platform: the WASM build always does.
    engine = load("re2-wasm");
  }
  return engine;
}

/** The RE2 build in use. */
export function regexEngine(): RegexEngineName {
  return current().name;
}

/** Switches the RE2 build (tests and benchmarks compare both); clears the pattern cache. */
export function useRegexEngine(name: RegexEngineName): void {
  engine = load(name);
  plain.clear();
  flagged.clear();
}

function withFlags(flags: string, required: string): string {
  let out = flags;
  for (const flag of required) if (!out.includes(flag)) out += flag;
  return out;
}

/**
 * Compiles a pattern with RE2, from a bounded cache. An invalid pattern (or one using a feature
 * RE2 does not have, like backreferences or lookaround) throws a `SyntaxError` carrying RE2's
 * message. Callers that use `lastIndex` (global patterns) must reset it: instances are shared.
 */
export function compileRegex(pattern: string, flags = ""): Regex {
  const cache = flags === "" ? plain : flagged;
  const key = flags === "" ? pattern : `${flags}\u0000${pattern}`;
  const cached = cache.get(key);
  if (cached instanceof SyntaxError) throw cached;
  if (cached) return cached;
  if (!ALLOWED_FLAGS.test(flags)) throw new SyntaxError(`Invalid regular expression flags: "${flags}"`);
  const { create, requiredFlags } = current();
  try {
    const compiled = new create(pattern, withFlags(flags, requiredFlags));
    cache.set(key, compiled);
    return compiled;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // The two builds word their messages differently; both name the pattern here.
    const syntax = new SyntaxError(
      message.startsWith("Invalid regular expression") ? message : `Invalid regular expression: /${pattern}/: ${message}`,
    );
    cache.set(key, syntax);
    throw syntax;
  }
}

/**
 * Reads a rule written either as a plain pattern or as `/pattern/flags`. The literal form is only
 * taken when what follows the last slash is a valid set of flags.
 */
export function parseRegexRule(rule: string): { pattern: string; flags: string } {
  if (rule.length >= 2 && rule.startsWith("/")) {
    const end = rule.lastIndexOf("/");
    const flags = rule.slice(end + 1);
    if (end > 0 && ALLOWED_FLAGS.test(flags)) return { pattern: rule.slice(1, end), flags };
  }
  return { pattern: rule, flags: "" };
}

/** First match of a compiled pattern in a text, from the start, whatever its flags. */
export function firstMatch(regex: Regex, text: string): RegExpExecArray | null {
  regex.lastIndex = 0;
  const match = regex.exec(text);
  regex.lastIndex = 0;
  return match;
}

/**
 * Every match of a pattern in a text, in order, from the start. Prefer this to driving
 * `lastIndex` by hand: the native binding misplaces a search started at a non-zero `lastIndex`
 * in a text with astral characters, while a run from 0 is exact in both builds.
 */
export function* allMatches(regex: Regex, text: string): Generator<RegExpExecArray> {
  const global = regex.global ? regex : compileRegex(regex.source, `${regex.flags}g`);
  global.lastIndex = 0;
  try {
    for (;;) {
      const match = global.exec(text);
      if (!match) return;
      if (match[0] === "") {
        // An empty match must not repeat: step over one whole code point.
        const unit = text.charCodeAt(global.lastIndex);
        const next = global.lastIndex + (unit >= 0xd800 && unit <= 0xdbff ? 2 : 1);
        if (next > text.length) {
          yield match;
          return;
        }
        global.lastIndex = next;
      }
      yield match;
    }
  } finally {
    global.lastIndex = 0;
  }
}

/** Replaces the matches of a compiled pattern (all of them when it has the `g` flag). */
export function replaceMatches(regex: Regex, text: string, replacement: string): string {
  regex.lastIndex = 0;
  const out = regex[Symbol.replace](text, replacement);
  regex.lastIndex = 0;
  return out;
}
