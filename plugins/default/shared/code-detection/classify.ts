/**
 * Finds code in a text and names its formats.
 *
 * 1. Fenced blocks: a tag that names a format decides (`py`, `c++`, `yml`…); a block with no tag,
 *    or a tag like `text`, is judged by its content; a tag naming a language outside the list is
 *    code of no listed format.
 * 2. Outside fences, lines are grouped: a run of lines that are not prose (blank lines inside a
 *    run are kept, a line of prose ends it). Each line votes with the signals it matches
 *    (signals.ts); a group's format is the one with the highest total, if that total reaches a
 *    threshold. JSON is confirmed by parsing, YAML by parsing and by the share of its lines that
 *    are keys or list items; Markdown is only ever found inside fences.
 *
 * Cost: one pass over the lines. A line's hints are found in one scan (Aho–Corasick), and only the
 * signals whose hints it contains run, on at most its first 2,000 characters; the votes of a line
 * seen before are reused. JSON and YAML are parsed once per group and only up to 256 KB and 64 KB.
 * Linear in the text.
 */
import { parse as parseYaml } from "yaml";
import { compileRegex, type Regex } from "../../../../core/index.js";
import { findFences } from "./fences.js";
import { CODE_FORMATS, type CodeFormat, formatNamed, PLAIN_TAGS } from "./formats.js";
import { HintIndex } from "./hint-index.js";
import { SIGNALS, type Signal } from "./signals.js";

/** Where code was found. */
export interface CodeEvidence {
  /** The format; null for a fence tagged with a language outside the list. */
  format: CodeFormat | null;
  /** `fence`: a fenced block (its tag or its content decided); `text`: unfenced lines. */
  source: "fence" | "text";
  /** The fence's tag, when it had one. */
  tag?: string;
  /** How the format was decided: the fence tag, or the content. */
  by: "tag" | "content";
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
}

const MAX_LINE = 2_000;
const MAX_JSON = 256 * 1024;
const MAX_YAML = 64 * 1024;
/** Score a group of unfenced lines needs; one strong signal, or two characteristic ones. */
const TEXT_THRESHOLD = 4;
/** Score an untagged fence needs: the fence already says "code". */
const FENCE_THRESHOLD = 2;
/** A prose-looking line still counts as code when it matches a signal this strong. */
const PROSE_OVERRIDE = 5;

const INDEX = new Map<CodeFormat, number>(CODE_FORMATS.map((f, i) => [f, i]));
/** On equal scores the more general format of a family wins (a JavaScript file is valid TypeScript). */
const TIE_ORDER: readonly CodeFormat[] = [
  "JavaScript",
  "TypeScript",
  "C",
  "C++",
  "Java",
  "C#",
  "Kotlin",
  "Scala",
  "JSON",
  "YAML",
];
const tieRank = (f: CodeFormat) => {
  const at = TIE_ORDER.indexOf(f);
  return at >= 0 ? at : TIE_ORDER.length + (INDEX.get(f) ?? 0);
};

interface CompiledSignal extends Signal {
  regex: Regex;
  votes: Array<[number, number]>;
  /** Ids of its hints in the hint index (lower case). */
  hintIds: number[];
}

interface Compiled {
  signals: CompiledSignal[];
  index: HintIndex;
  hintCount: number;
}

let compiled: Compiled | undefined;

function compile(): Compiled {
  if (compiled) return compiled;
  const ids = new Map<string, number>();
  const signals = SIGNALS.map((signal) => ({
    ...signal,
    regex: compileRegex(signal.pattern, signal.ci ? "i" : ""),
    votes: Object.entries(signal.weights).map(
      ([f, w]) => [INDEX.get(f as CodeFormat) as number, w as number] as [number, number],
    ),
    hintIds: signal.hints.map((hint) => {
      const key = hint.toLowerCase();
      let id = ids.get(key);
      if (id === undefined) {
        id = ids.size;
        ids.set(key, id);
      }
      return id;
    }),
  }));
  compiled = { signals, index: new HintIndex([...ids.keys()]), hintCount: ids.size };
  return compiled;
}

/** The votes of one line: [format index, weight] pairs, and the strongest single weight. */
interface LineVotes {
  votes: Array<[number, number]>;
  strongest: number;
}

const NO_VOTES: LineVotes = { votes: [], strongest: 0 };
const CACHE_LIMIT = 4_096;

/** Scores lines, remembering the votes of lines seen before (code repeats `}`, `end`, `fi`). */
class LineScorer {
  readonly #cache = new Map<string, LineVotes>();
  readonly #found: Uint8Array;

  constructor() {
    this.#found = new Uint8Array(compile().hintCount);
  }

  votes(line: string, fenced: boolean): LineVotes {
    if (line.trim() === "") return NO_VOTES;
    const key = fenced ? `F${line}` : `T${line}`;
    const cached = this.#cache.get(key);
    if (cached) return cached;
    const result = this.#score(line.length > MAX_LINE ? line.slice(0, MAX_LINE) : line, fenced);
    if (this.#cache.size >= CACHE_LIMIT) this.#cache.clear();
    this.#cache.set(key, result);
    return result;
  }

  #score(text: string, fenced: boolean): LineVotes {
    const { signals, index } = compile();
    const found = this.#found;
    found.fill(0);
    index.search(text.toLowerCase(), found);
    const votes: Array<[number, number]> = [];
    let strongest = 0;
    for (const signal of signals) {
      if (signal.fencedOnly && !fenced) continue;
      if (signal.hintIds.length) {
        let present = false;
        for (let i = 0; i < signal.hintIds.length && !present; i++) {
          // The index matched lower case; a case-sensitive hint must also be there as written.
          present = found[signal.hintIds[i] as number] === 1 && (signal.ci === true || text.includes(signal.hints[i] as string));
        }
        if (!present) continue;
      }
      signal.regex.lastIndex = 0;
      if (!signal.regex.test(text)) continue;
      for (const vote of signal.votes) {
        votes.push(vote);
        if (vote[1] > strongest) strongest = vote[1];
      }
    }
    return { votes, strongest };
  }
}

function addVotes(scores: Float64Array, { votes }: LineVotes): void {
  for (const [format, weight] of votes) scores[format] = (scores[format] as number) + weight;
}

const CODE_CHARS = "{}[]();=<>$|&\\`";
const COMMENT_STARTS = ["#", "//", "/*", "*", "--", "<!--", ";"];

function isWordToken(token: string): boolean {
  let letters = 0;
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    const letter = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c > 0x7f;
    if (letter) letters++;
    else if (!".,;:!?'\"’()-".includes(token[i] as string)) return false;
  }
  return letters > 0;
}

/** A label that introduces what follows ("Query:", "The API responds with:"): capitalised words ending with a colon. */
function isLabel(t: string, tokens: readonly string[]): boolean {
  const first = t.charCodeAt(0);
  if (!t.endsWith(":") || !(first >= 0x41 && first <= 0x5a)) return false;
  return tokens.every((token) => isWordToken(token));
}

/**
 * Whether a line reads as prose (or is a label that introduces code): five or more tokens, three quarters of them words, and few of
 * the characters code is made of. Comment lines are never prose (they belong to their code).
 */
export function isProse(line: string): boolean {
  const t = line.trim();
  if (COMMENT_STARTS.some((start) => t.startsWith(start))) return false;
  const tokens = t.split(" ").filter((token) => token.length > 0);
  if (isLabel(t, tokens)) return true;
  if (t.length < 16 || tokens.length < 5) return false;
  let words = 0;
  for (const token of tokens) if (isWordToken(token)) words++;
  if (words / tokens.length < 0.75) return false;
  let code = 0;
  for (let i = 0; i < t.length; i++) if (CODE_CHARS.includes(t[i] as string)) code++;
  return code / t.length < 0.04;
}

/** The best format of a score table, if it reaches the threshold. */
function winner(scores: Float64Array, threshold: number): CodeFormat | undefined {
  let best: CodeFormat | undefined;
  let bestScore = 0;
  for (const format of CODE_FORMATS) {
    const score = scores[INDEX.get(format) as number] as number;
    if (score > bestScore || (score === bestScore && best !== undefined && score > 0 && tieRank(format) < tieRank(best))) {
      best = format;
      bestScore = score;
    }
  }
  return bestScore >= threshold ? best : undefined;
}

/**
 * JSON: the lines from the first that opens a brace or bracket to the last that closes one parse as
 * an object, or as an array holding objects or arrays.
 */
function isJson(lines: readonly string[]): boolean {
  let first = 0;
  const opens = (line: string) => "[{".includes(line.trimStart()[0] ?? "_");
  const closes = (line: string) => "]}".includes(line.trimEnd().slice(-1) || "_");
  while (first < lines.length && !opens(lines[first] as string)) first++;
  let last = lines.length - 1;
  while (last >= first && !closes(lines[last] as string)) last--;
  if (last < first) return false;
  const t = lines
    .slice(first, last + 1)
    .join("\n")
    .trim();
  if (t.length < 2 || t.length > MAX_JSON) return false;
  const open = t[0];
  const close = t[t.length - 1];
  if (!((open === "{" && close === "}") || (open === "[" && close === "]"))) return false;
  try {
    const value = JSON.parse(t) as unknown;
    if (Array.isArray(value)) return value.some((v) => typeof v === "object" && v !== null);
    return typeof value === "object" && value !== null && Object.keys(value).length > 0;
  } catch {
    return false;
  }
}

function isYamlLine(line: string): boolean {
  const t = line.trim();
  if (t === "" || t === "---" || t.startsWith("#")) return true;
  if (t.startsWith("- ")) return true;
  const colon = t.indexOf(":");
  if (colon <= 0) return false;
  const key = t.slice(0, colon);
  const first = key.charCodeAt(0);
  const keyish = (first >= 0x61 && first <= 0x7a) || key.startsWith('"') || key.startsWith("'") || key.startsWith("- ");
  return keyish && !key.includes(" ") && (t.length === colon + 1 || t[colon + 1] === " ");
}

/** YAML: most lines are keys or list items, at least two keys, and the whole parses to a collection. */
function isYaml(lines: readonly string[]): boolean {
  const body = lines.join("\n");
  if (body.length > MAX_YAML) return false;
  let structured = 0;
  let keys = 0;
  let nonBlank = 0;
  for (const line of lines) {
    if (line.trim() === "") continue;
    nonBlank++;
    if (isYamlLine(line)) {
      structured++;
      if (line.includes(":")) keys++;
    }
  }
  if (keys < 2 || structured / nonBlank < 0.8) return false;
  try {
    const value = parseYaml(body, { maxAliasCount: 10 }) as unknown;
    return typeof value === "object" && value !== null;
  } catch {
    return false;
  }
}

/** Names the format of a scored group of lines (JSON and YAML confirmed), if it reaches `threshold`. */
function classify(lines: readonly string[], scores: Float64Array, threshold: number): CodeFormat | undefined {
  const json = INDEX.get("JSON") as number;
  const yaml = INDEX.get("YAML") as number;
  if (isJson(lines)) scores[json] = (scores[json] as number) + 10;
  for (;;) {
    const best = winner(scores, threshold);
    if (best !== "YAML" || isYaml(lines)) return best;
    scores[yaml] = 0;
  }
}

/** Finds the code of a text: every fenced block and every group of unfenced code lines, in order. */
export function findCode(text: string): CodeEvidence[] {
  const lines = text.split("\n").map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
  const fences = findFences(lines);
  const evidence: CodeEvidence[] = [];
  let next = 0;

  const scorer = new LineScorer();

  const scanText = (from: number, to: number) => {
    let start = -1;
    let lastCode = -1;
    let scores = new Float64Array(CODE_FORMATS.length);
    const close = () => {
      if (start >= 0 && lastCode >= start) {
        const format = classify(lines.slice(start, lastCode + 1), scores, TEXT_THRESHOLD);
        if (format) evidence.push({ format, source: "text", by: "content", startLine: start + 1, endLine: lastCode + 1 });
      }
      start = -1;
      lastCode = -1;
      scores = new Float64Array(CODE_FORMATS.length);
    };
    for (let n = from; n < to; n++) {
      const line = lines[n] as string;
      if (line.trim() === "") continue;
      const votes = scorer.votes(line, false);
      if (isProse(line) && votes.strongest < PROSE_OVERRIDE) {
        close();
        continue;
      }
      if (start < 0) start = n;
      lastCode = n;
      addVotes(scores, votes);
    }
    close();
  };

  for (const fence of fences) {
    scanText(next, fence.openLine);
    const body = lines.slice(fence.firstLine, fence.lastLine + 1);
    const named = formatNamed(fence.tag);
    const startLine = fence.openLine + 1;
    const endLine = Math.min(fence.lastLine + 2, lines.length);
    const tag = fence.tag === "" ? {} : { tag: fence.tag };
    if (named) {
      evidence.push({ format: named, source: "fence", ...tag, by: "tag", startLine, endLine });
    } else if (PLAIN_TAGS.has(fence.tag)) {
      const scores = new Float64Array(CODE_FORMATS.length);
      for (const line of body) addVotes(scores, scorer.votes(line, true));
      const format = classify(body, scores, FENCE_THRESHOLD);
      if (format) evidence.push({ format, source: "fence", ...tag, by: "content", startLine, endLine });
    } else {
      evidence.push({ format: null, source: "fence", ...tag, by: "tag", startLine, endLine });
    }
    next = fence.lastLine + 2;
  }
  scanText(next, lines.length);
  return evidence;
}
