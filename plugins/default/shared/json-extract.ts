/**
 * Finding JSON in a model's text, for jsonSchema and jsonKeys. Candidates come in this order:
 *
 * 1. the contents of fenced code blocks tagged `json` or untagged (``` or ~~~, as CommonMark
 *    reads fences), in text order;
 * 2. JSON objects and arrays found by a balanced scan of the whole text, in text order: the
 *    outermost well-formed ones, and inside a region that is not JSON (prose in braces, an
 *    unclosed bracket) the well-formed ones nested in it.
 *
 * The scan is one pass over the text: a stack of open brackets, each with a small state machine
 * for the JSON grammar at its level, decides for every bracketed region whether it is well-formed
 * JSON. Nothing is re-scanned and no region is parsed unless it is a candidate; candidates never
 * overlap, so parsing them all costs at most one more pass.
 */

/** Where a candidate came from. */
export type JsonSource = "fenced" | "text";

/** A span of the text that may hold one JSON value. */
export interface JsonCandidate {
  source: JsonSource;
  /** UTF-16 offsets: `text.slice(start, end)` is the candidate. */
  start: number;
  end: number;
  /** Nesting depth of the value, when the scan measured it. */
  depth?: number;
}

/** A candidate that parsed. */
export interface ParsedJson extends JsonCandidate {
  value: unknown;
}

const BACKTICK = 0x60;
const TILDE = 0x7e;

/** Whether a fence's info string names JSON: `json` (any case) or nothing. */
function isJsonInfo(info: string): boolean {
  const word = info.trim().split(/\s+/, 1)[0] ?? "";
  return word === "" || word.toLowerCase() === "json";
}

/** Fenced blocks tagged `json` or untagged, as trimmed content spans. One pass over the lines. */
export function fencedJsonBlocks(text: string): JsonCandidate[] {
  const blocks: JsonCandidate[] = [];
  let open: { char: number; length: number; json: boolean; contentStart: number } | undefined;
  let lineStart = 0;
  while (lineStart <= text.length) {
    const newline = text.indexOf("\n", lineStart);
    const lineEnd = newline < 0 ? text.length : newline;
    let i = lineStart;
    while (i < lineEnd && i - lineStart < 4 && text.charCodeAt(i) === 0x20) i++;
    const char = text.charCodeAt(i);
    if (i - lineStart < 4 && (char === BACKTICK || char === TILDE)) {
      let run = i;
      while (run < lineEnd && text.charCodeAt(run) === char) run++;
      const length = run - i;
      const rest = text.slice(run, lineEnd);
      if (open) {
        if (char === open.char && length >= open.length && rest.trim() === "") {
          if (open.json) pushTrimmed(blocks, text, open.contentStart, lineStart);
          open = undefined;
        }
      } else if (length >= 3 && !(char === BACKTICK && rest.includes("`"))) {
        open = { char, length, json: isJsonInfo(rest), contentStart: newline < 0 ? text.length : newline + 1 };
      }
    }
    if (newline < 0) break;
    lineStart = newline + 1;
  }
  // An unclosed fence runs to the end of the text (CommonMark).
  if (open?.json) pushTrimmed(blocks, text, open.contentStart, text.length);
  return blocks;
}

function isJsonSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

function pushTrimmed(blocks: JsonCandidate[], text: string, start: number, end: number): void {
  let s = start;
  let e = end;
  while (s < e && isJsonSpace(text.charCodeAt(s))) s++;
  while (e > s && isJsonSpace(text.charCodeAt(e - 1))) e--;
  if (e > s) blocks.push({ source: "fenced", start: s, end: e });
}

// Grammar states of one open bracket.
enum State {
  ObjectStart, // after "{": a key or "}"
  ObjectKey, // after ",": a key
  ObjectColon, // after a key: ":"
  ObjectValue, // after ":": a value
  ObjectNext, // after a value: "," or "}"
  ArrayStart, // after "[": a value or "]"
  ArrayValue, // after ",": a value
  ArrayNext, // after a value: "," or "]"
}

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

function expectsValue(state: State): boolean {
  return state === State.ObjectValue || state === State.ArrayStart || state === State.ArrayValue;
}

function isTokenChar(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x61 && code <= 0x7a) ||
    code === 0x2b ||
    code === 0x2d ||
    code === 0x2e
  );
}

function isHex(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);
}

/** Regions of the balanced scan, as parallel arrays indexed by region id (ids in order of start). */
interface Regions {
  start: number[];
  end: number[];
  valid: boolean[];
  parent: number[];
  depth: number[];
}

/** One pass over the text: every bracketed region, whether it is well-formed JSON, and its parent. */
function scanRegions(text: string): Regions {
  const regions: Regions = { start: [], end: [], valid: [], parent: [], depth: [] };
  // The open regions, innermost last: id, opener, grammar state, validity so far, deepest child.
  const ids: number[] = [];
  const openers: number[] = [];
  const states: State[] = [];
  const valids: boolean[] = [];
  const childDepths: number[] = [];
  const length = text.length;
  let i = 0;

  /** Moves the innermost open region on after a value; a value where none may stand spoils it. */
  const afterValue = (ok: boolean) => {
    const top = states.length - 1;
    if (top < 0) return;
    const state = states[top] as State;
    if (!ok || !expectsValue(state)) valids[top] = false;
    states[top] = openers[top] === OPEN_BRACE ? State.ObjectNext : State.ArrayNext;
  };

  while (i < length) {
    const code = text.charCodeAt(i);
    const depth = ids.length;
    if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      const id = regions.start.length;
      regions.start.push(i);
      regions.end.push(-1);
      regions.valid.push(false);
      regions.parent.push(depth > 0 ? (ids[depth - 1] as number) : -1);
      regions.depth.push(0);
      if (depth > 0 && !expectsValue(states[depth - 1] as State)) valids[depth - 1] = false;
      ids.push(id);
      openers.push(code);
      states.push(code === OPEN_BRACE ? State.ObjectStart : State.ArrayStart);
      valids.push(true);
      childDepths.push(0);
      i++;
      continue;
    }
    if (depth === 0) {
      // Outside any bracket only an opening bracket matters; quotes in prose are not strings.
      i++;
      continue;
    }
    const top = depth - 1;
    const state = states[top] as State;
    if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      const opener = openers[top];
      if ((code === CLOSE_BRACE && opener !== OPEN_BRACE) || (code === CLOSE_BRACKET && opener !== OPEN_BRACKET)) {
        // A stray closer spoils the region it stands in; the region stays open.
        valids[top] = false;
        i++;
        continue;
      }
      const closable =
        code === CLOSE_BRACE
          ? state === State.ObjectStart || state === State.ObjectNext
          : state === State.ArrayStart || state === State.ArrayNext;
      const id = ids[top] as number;
      const valid = (valids[top] as boolean) && closable;
      const regionDepth = (childDepths[top] as number) + 1;
      regions.end[id] = i + 1;
      regions.valid[id] = valid;
      regions.depth[id] = regionDepth;
      ids.pop();
      openers.pop();
      states.pop();
      valids.pop();
      childDepths.pop();
      if (ids.length > 0) {
        const parent = ids.length - 1;
        if (regionDepth > (childDepths[parent] as number)) childDepths[parent] = regionDepth;
        afterValue(valid);
      }
      i++;
      continue;
    }
    if (isJsonSpace(code)) {
      i++;
      continue;
    }
    if (code === QUOTE) {
      // A string. JSON strings hold no raw line breaks: one that reaches a line break is prose
      // (a stray quote), so it ends there and spoils its region instead of swallowing the text.
      let ok = true;
      let j = i + 1;
      for (; j < length; j++) {
        const c = text.charCodeAt(j);
        if (c === QUOTE) break;
        if (c === 0x0a) {
          ok = false;
          break;
        }
        if (c < 0x20) ok = false;
        else if (c === BACKSLASH) {
          const e = text.charCodeAt(j + 1);
          if (e === 0x75) {
            if (!(
              isHex(text.charCodeAt(j + 2)) &&
              isHex(text.charCodeAt(j + 3)) &&
              isHex(text.charCodeAt(j + 4)) &&
              isHex(text.charCodeAt(j + 5))
            )) {
              ok = false;
            }
          } else if (!(
            e === QUOTE ||
            e === BACKSLASH ||
            e === 0x2f ||
            e === 0x62 ||
            e === 0x66 ||
            e === 0x6e ||
            e === 0x72 ||
            e === 0x74
          )) {
            ok = false;
          }
          // Skip the escaped character (a line break there still ends the string above).
          if (e !== 0x0a) j++;
        }
      }
      if (j >= length) ok = false;
      if (state === State.ObjectStart || state === State.ObjectKey) {
        if (!ok) valids[top] = false;
        states[top] = State.ObjectColon;
      } else {
        afterValue(ok);
      }
      i = j + 1;
      continue;
    }
    if (code === 0x3a) {
      if (state === State.ObjectColon) states[top] = State.ObjectValue;
      else valids[top] = false;
      i++;
      continue;
    }
    if (code === 0x2c) {
      if (state === State.ObjectNext) states[top] = State.ObjectKey;
      else if (state === State.ArrayNext) states[top] = State.ArrayValue;
      else valids[top] = false;
      i++;
      continue;
    }
    if (isTokenChar(code)) {
      let j = i + 1;
      while (j < length && isTokenChar(text.charCodeAt(j))) j++;
      const token = text.slice(i, j);
      afterValue(token === "true" || token === "false" || token === "null" || NUMBER.test(token));
      i = j;
      continue;
    }
    // Anything else cannot stand in JSON outside a string.
    valids[top] = false;
    i++;
  }
  return regions;
}

/**
 * Well-formed regions of the balanced scan that are candidates: those not nested in another
 * well-formed region (which would contain them as a value), in text order.
 */
export function balancedJsonRegions(text: string): JsonCandidate[] {
  const regions = scanRegions(text);
  const out: JsonCandidate[] = [];
  for (let id = 0; id < regions.start.length; id++) {
    if (!regions.valid[id]) continue;
    const parent = regions.parent[id] as number;
    if (parent >= 0 && regions.valid[parent]) continue;
    out.push({
      source: "text",
      start: regions.start[id] as number,
      end: regions.end[id] as number,
      depth: regions.depth[id] as number,
    });
  }
  return out;
}

/**
 * Every candidate in order: fenced blocks first, then the balanced scan (which runs only when the
 * fenced blocks did not satisfy the caller). A region of the scan that is exactly a fenced block
 * already offered is not offered again.
 */
export function* jsonCandidates(text: string): Generator<JsonCandidate> {
  const fenced = fencedJsonBlocks(text);
  const seen = new Set<string>();
  for (const block of fenced) {
    seen.add(`${block.start}:${block.end}`);
    yield block;
  }
  for (const region of balancedJsonRegions(text)) {
    if (!seen.has(`${region.start}:${region.end}`)) yield region;
  }
}

/** The candidates that parse as JSON, in order, parsed lazily. */
export function* parsedJson(text: string): Generator<ParsedJson> {
  for (const candidate of jsonCandidates(text)) {
    let value: unknown;
    try {
      value = JSON.parse(text.slice(candidate.start, candidate.end));
    } catch {
      continue;
    }
    yield { ...candidate, value };
  }
}

const MAX_REPORTED_LENGTH = 16_384;
const MAX_REPORTED_DEPTH = 64;

/** Nesting depth of a parsed value, counted up to `limit` (deep values stop the count early). */
function depthOf(value: unknown, limit: number): number {
  if (limit <= 0 || typeof value !== "object" || value === null) return 0;
  let deepest = 0;
  for (const child of Object.values(value)) {
    deepest = Math.max(deepest, depthOf(child, limit - 1));
    if (deepest >= limit - 1) break;
  }
  return deepest + 1;
}

/**
 * The value to put in a result's `matchedJson`: the JSON found, unless its text is longer than
 * 16 KB or it nests deeper than 64 levels (results are logged and cloned between threads, and a
 * deeply nested value would overflow the stack there); null then.
 */
export function reportableJson(found: ParsedJson): unknown {
  if (found.end - found.start > MAX_REPORTED_LENGTH) return null;
  const depth = found.depth ?? depthOf(found.value, MAX_REPORTED_DEPTH + 1);
  return depth > MAX_REPORTED_DEPTH ? null : found.value;
}
