/**
 * The evaluated content of a request or response: where its text lives in the body, and how a
 * transformed text is written back without changing the body's shape. Only the last turn of a
 * request is evaluated (spec §1.3, §8.1, read as the messages the model has not answered yet: the
 * last message and the tool results sent with it), every block of it that carries text. On the
 * output side everything the client receives is: every choice (`n > 1`), and with it the tool-call
 * arguments (the string values of `tool_calls[].function.arguments` and of the legacy
 * `function_call.arguments`, decoded as the application's `JSON.parse` decodes them, and the string
 * values inside an Anthropic `tool_use`
 * block's `input`), unless the guardrail opted out of tool arguments.
 */
import diff from "fast-diff";
import { type JsonStringSpan, jsonStringSpans, replaceJsonStrings } from "./json-strings.js";
import { isObject } from "./plain-data.js";
import type { RequestType, Side } from "./types.js";

/** A path into a JSON body: object keys and array indexes. */
export type BodyPath = ReadonlyArray<string | number>;

/** One string of the body that belongs to the evaluated text. */
export interface TextSlot {
  path: BodyPath;
  text: string;
  /**
   * Set when the string at `path` is JSON text (tool-call arguments) and this slot is one string
   * value inside it, decoded: `raw` is that JSON text, `span` where the value's literal sits.
   */
  encoded?: { raw: string; span: JsonStringSpan };
}

/** The evaluated text and the slots it was joined from. */
export interface EvaluatedText {
  text: string;
  slots: TextSlot[];
}

/** Text parts (content parts, content blocks, prompt entries) are joined with a newline. */
export const PART_SEPARATOR = "\n";

const REQUEST_TYPES: readonly RequestType[] = ["chatComplete", "complete", "embed", "messages", "responses"];

/** The endpoint kind of a request type, with the `stream-` prefix removed. */
export function baseRequestType(type: string): RequestType | undefined {
  const base = type.startsWith("stream-") ? type.slice("stream-".length) : type;
  return REQUEST_TYPES.includes(base as RequestType) ? (base as RequestType) : undefined;
}

type Obj = Record<string, unknown>;

/** Slots of a `content` that is a string or an array of typed parts with a `text` field. */
function contentSlots(content: unknown, path: BodyPath): TextSlot[] {
  if (typeof content === "string") return [{ path, text: content }];
  if (!Array.isArray(content)) return [];
  const slots: TextSlot[] = [];
  content.forEach((part, index) => {
    if (isObject(part) && part.type === "text" && typeof part.text === "string") {
      slots.push({ path: [...path, index, "text"], text: part.text });
    }
  });
  return slots;
}

/** Slots of a string or an array whose string entries are texts (prompts, embedding inputs). */
function stringListSlots(value: unknown, path: BodyPath): TextSlot[] {
  if (typeof value === "string") return [{ path, text: value }];
  if (!Array.isArray(value)) return [];
  const slots: TextSlot[] = [];
  value.forEach((entry, index) => {
    if (typeof entry === "string") slots.push({ path: [...path, index], text: entry });
  });
  return slots;
}

/** Roles whose messages belong to the last turn: what the model has not answered yet. */
const TURN_ROLES: ReadonlySet<unknown> = new Set(["user", "tool", "function"]);

/** Nesting of blocks read on the input side (a tool result holding a document holding text blocks is three). */
const MAX_BLOCK_DEPTH = 16;

/**
 * Slots of an input `content`: a string, or an array of parts and blocks of any type, each read
 * for every text it carries: its `text`, a `tool_result`'s content, a `document`'s title, context
 * and text or content source, a `search_result`'s title and content. Images and base64 documents
 * carry no text a check could read.
 */
function inputContentSlots(content: unknown, path: BodyPath, into: TextSlot[], depth = 0, toolResults = true): void {
  if (typeof content === "string") into.push({ path, text: content });
  else if (Array.isArray(content) && depth < MAX_BLOCK_DEPTH) {
    content.forEach((part, index) => blockSlots(part, [...path, index], into, depth + 1, toolResults));
  }
}

function blockSlots(block: unknown, path: BodyPath, into: TextSlot[], depth: number, toolResults: boolean): void {
  if (!isObject(block)) return;
  if (block.type === "tool_result" && !toolResults) return;
  const field = (name: string) => {
    if (typeof block[name] === "string") into.push({ path: [...path, name], text: block[name] });
  };
  field("text");
  if (block.type === "tool_result") inputContentSlots(block.content, [...path, "content"], into, depth);
  else if (block.type === "document") {
    field("title");
    field("context");
    const source = block.source;
    if (isObject(source) && source.type === "text" && typeof source.data === "string") {
      into.push({ path: [...path, "source", "data"], text: source.data });
    } else if (isObject(source) && source.type === "content") {
      inputContentSlots(source.content, [...path, "source", "content"], into, depth);
    }
  } else if (block.type === "search_result") {
    field("title");
    inputContentSlots(block.content, [...path, "content"], into, depth);
  }
}

/**
 * Slots of the last turn: the last message and, before it, every message back to the previous
 * assistant (or system, developer) message. An agent answering a tool call sends each tool's
 * result as a message of its own, and may add a user message after them: all are new to the
 * model, so all are read.
 */
function lastTurnSlots(body: Obj, toolResults: boolean): TextSlot[] {
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return [];
  let first = messages.length - 1;
  while (first > 0 && isObject(messages[first - 1]) && TURN_ROLES.has((messages[first - 1] as Obj).role)) first--;
  const slots: TextSlot[] = [];
  for (let index = first; index < messages.length; index++) {
    const message = messages[index];
    if (!isObject(message) || (!toolResults && (message.role === "tool" || message.role === "function"))) continue;
    inputContentSlots(message.content, ["messages", index, "content"], slots, 0, toolResults);
  }
  return slots;
}

/** Whether a Responses input item is a message of the user (an item without a type is an easy input message). */
function isUserItem(item: unknown): boolean {
  return isObject(item) && (item.type === undefined || item.type === "message") && item.role === "user";
}

/**
 * Slots of a Responses request's input: a string input whole; of an item list, the user messages
 * the model has not answered yet (those after its last output item) and every
 * `function_call_output` item (tool results, the path injected instructions take), in order.
 */
function responsesInputSlots(body: Obj, toolResults: boolean): TextSlot[] {
  const input = body.input;
  if (typeof input === "string") return [{ path: ["input"], text: input }];
  if (!Array.isArray(input)) return [];
  let first = input.length;
  while (first > 0 && (isUserItem(input[first - 1]) || (input[first - 1] as Obj | undefined)?.type === "function_call_output"))
    first--;
  const slots: TextSlot[] = [];
  input.forEach((item, index) => {
    if (!isObject(item)) return;
    if (item.type === "function_call_output") {
      if (toolResults) inputContentSlots(item.output, ["input", index, "output"], slots);
    } else if (index >= first && isUserItem(item)) inputContentSlots(item.content, ["input", index, "content"], slots);
  });
  return slots;
}

function requestSlots(type: RequestType, body: Obj, toolResults: boolean): TextSlot[] {
  switch (type) {
    case "chatComplete":
    case "messages":
      return lastTurnSlots(body, toolResults);
    case "responses":
      return responsesInputSlots(body, toolResults);
    case "complete":
      return stringListSlots(body.prompt, ["prompt"]);
    case "embed":
      return stringListSlots(body.input, ["input"]);
  }
}

/** Whether a prompt or input entry is token ids (a number, or an array of numbers). */
function isTokenIds(value: unknown): boolean {
  return typeof value === "number" || (Array.isArray(value) && value.some((item) => typeof item === "number"));
}

/**
 * The field of a request whose input is token ids (a completions `prompt`, an embeddings
 * `input`), which no check can read; undefined when the input is text.
 */
export function tokenIdInput(type: RequestType, body: unknown): "prompt" | "input" | undefined {
  if (!isObject(body) || (type !== "complete" && type !== "embed")) return undefined;
  const field = type === "complete" ? "prompt" : "input";
  const value = body[field];
  if (isTokenIds(value) || (Array.isArray(value) && value.some(isTokenIds))) return field;
  return undefined;
}

/** What of a response is read besides its text. */
export interface LocateOptions {
  /** Tool-call arguments (default true): a guardrail's `tool_arguments: false` leaves them out. */
  toolArguments?: boolean;
  /** Tool results of a request (default true): a guardrail's `tool_results: false` leaves them out. */
  toolResults?: boolean;
}

/** Slots of every string inside a JSON value (an Anthropic tool input), depth first, in key order. */
function jsonStringSlots(value: unknown, path: BodyPath, into: TextSlot[], depth = 0): void {
  // The body came through JSON.parse, whose own depth the server bounds; this bound keeps a
  // hand-built body from exhausting the stack.
  if (depth > 256) return;
  if (typeof value === "string") into.push({ path, text: value });
  else if (Array.isArray(value)) value.forEach((item, index) => jsonStringSlots(item, [...path, index], into, depth + 1));
  else if (isObject(value)) for (const key of Object.keys(value)) jsonStringSlots(value[key], [...path, key], into, depth + 1);
}

/**
 * Slots of tool-call arguments as the application reads them: the decoded string values of the
 * JSON they are, or the raw text when it is not JSON.
 */
function argumentSlots(raw: string, path: BodyPath, into: TextSlot[]): void {
  const spans = jsonStringSpans(raw);
  if (!spans) into.push({ path, text: raw });
  else for (const span of spans) into.push({ path, text: span.value, encoded: { raw, span } });
}

/** Slots of one chat choice: its content, then its tool calls' arguments. */
function chatChoiceSlots(choice: Obj, index: number, toolArguments: boolean): TextSlot[] {
  const message = choice.message;
  if (!isObject(message)) return [];
  const slots = contentSlots(message.content, ["choices", index, "message", "content"]);
  if (!toolArguments) return slots;
  if (Array.isArray(message.tool_calls)) {
    message.tool_calls.forEach((call, k) => {
      const fn = isObject(call) ? call.function : undefined;
      if (isObject(fn) && typeof fn.arguments === "string") {
        argumentSlots(fn.arguments, ["choices", index, "message", "tool_calls", k, "function", "arguments"], slots);
      }
    });
  }
  const legacy = message.function_call;
  if (isObject(legacy) && typeof legacy.arguments === "string") {
    argumentSlots(legacy.arguments, ["choices", index, "message", "function_call", "arguments"], slots);
  }
  return slots;
}

/**
 * The writes that put new texts into the slots they were read from: a plain slot's string is
 * replaced, and the values of encoded slots are written back as literals into their JSON text,
 * one write per JSON text, the rest of it untouched.
 */
export function slotWrites(slots: readonly TextSlot[], texts: readonly string[]): Array<{ path: BodyPath; value: string }> {
  const writes: Array<{ path: BodyPath; value: string }> = [];
  const encoded = new Map<
    string,
    { path: BodyPath; raw: string; replacements: Array<{ span: JsonStringSpan; value: string }> }
  >();
  slots.forEach((slot, index) => {
    const text = texts[index] as string;
    if (text === slot.text) return;
    if (!slot.encoded) {
      writes.push({ path: slot.path, value: text });
      return;
    }
    const key = JSON.stringify(slot.path);
    const entry = encoded.get(key) ?? { path: slot.path, raw: slot.encoded.raw, replacements: [] };
    entry.replacements.push({ span: slot.encoded.span, value: text });
    encoded.set(key, entry);
  });
  for (const { path, raw, replacements } of encoded.values()) writes.push({ path, value: replaceJsonStrings(raw, replacements) });
  return writes;
}

function responseSlots(type: RequestType, body: Obj, toolArguments: boolean): TextSlot[] {
  switch (type) {
    case "chatComplete":
    case "complete": {
      if (!Array.isArray(body.choices)) return [];
      const slots: TextSlot[] = [];
      body.choices.forEach((choice, index) => {
        if (!isObject(choice)) return;
        if (type === "chatComplete") slots.push(...chatChoiceSlots(choice, index, toolArguments));
        else if (typeof choice.text === "string") slots.push({ path: ["choices", index, "text"], text: choice.text });
      });
      return slots;
    }
    case "messages": {
      if (!Array.isArray(body.content)) return [];
      const slots: TextSlot[] = [];
      body.content.forEach((block, index) => {
        if (!isObject(block)) return;
        if (block.type === "text" && typeof block.text === "string")
          slots.push({ path: ["content", index, "text"], text: block.text });
        else if (toolArguments && block.type === "tool_use") jsonStringSlots(block.input, ["content", index, "input"], slots);
      });
      return slots;
    }
    case "responses":
      return responsesOutputSlots(body, toolArguments);
    case "embed":
      // Embedding vectors carry no text to evaluate.
      return [];
  }
}

/**
 * Slots of a Responses answer: every `output_text` of its messages, every `function_call`'s
 * arguments (decoded as chat's tool-call arguments are), and an `mcp_call`'s arguments and output
 * (its output is what the tool said, read whatever `tool_arguments` says).
 */
function responsesOutputSlots(body: Obj, toolArguments: boolean): TextSlot[] {
  if (!Array.isArray(body.output)) return [];
  const slots: TextSlot[] = [];
  body.output.forEach((item, index) => {
    if (!isObject(item)) return;
    if (item.type === "message" && Array.isArray(item.content)) {
      item.content.forEach((part, k) => {
        if (isObject(part) && part.type === "output_text" && typeof part.text === "string")
          slots.push({ path: ["output", index, "content", k, "text"], text: part.text });
      });
    } else if (item.type === "function_call" || item.type === "mcp_call") {
      if (toolArguments && typeof item.arguments === "string")
        argumentSlots(item.arguments, ["output", index, "arguments"], slots);
      if (item.type === "mcp_call" && typeof item.output === "string" && item.output)
        slots.push({ path: ["output", index, "output"], text: item.output });
    }
  });
  return slots;
}

/** Finds the evaluated text of a request (input side) or response (output side). */
export function locateText(side: Side, requestType: RequestType, body: unknown, options: LocateOptions = {}): EvaluatedText {
  if (!isObject(body)) return { text: "", slots: [] };
  const slots =
    side === "input"
      ? requestSlots(requestType, body, options.toolResults !== false)
      : responseSlots(requestType, body, options.toolArguments !== false);
  return { text: slots.map((s) => s.text).join(PART_SEPARATOR), slots };
}

/** Returns a copy of `body` with the value at `path` replaced; only the objects on the path are copied. */
export function setAtPath(body: unknown, path: BodyPath, value: unknown): unknown {
  if (path.length === 0) return value;
  const [key, ...rest] = path as [string | number, ...Array<string | number>];
  if (Array.isArray(body)) {
    const copy = body.slice();
    copy[key as number] = setAtPath(body[key as number], rest, value);
    return copy;
  }
  const source = isObject(body) ? body : {};
  return { ...source, [key]: setAtPath(source[key as string], rest, value) };
}

/** Longest middle (after common prefix and suffix) that is mapped through a character diff. */
const DIFF_LIMIT = 20_000;

function countNewlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/**
 * Splits a transformed text back over the slots it was joined from, so a redaction inside one
 * text part changes that part only; separators between parts are structure, never removed.
 *
 * In linear time in the usual cases: when the transform kept the number of lines (redactions
 * within lines), lines map one to one; otherwise the changed middle (after the common prefix and
 * suffix) is mapped through a character diff. A diff costs the product of length and edits, so a
 * middle longer than 20,000 characters goes whole to the part where it starts instead, the parts
 * it covered left empty: still every character of the transformed text, in order.
 */
export function splitOverSlots(slots: readonly TextSlot[], original: string, transformed: string): string[] {
  if (slots.length === 1) return [transformed];
  if (countNewlines(original) === countNewlines(transformed)) {
    const lines = transformed.split("\n");
    let next = 0;
    return slots.map((slot) => {
      const take = countNewlines(slot.text) + 1;
      const part = lines.slice(next, next + take).join("\n");
      next += take;
      return part;
    });
  }
  const starts: number[] = [];
  let offset = 0;
  for (const slot of slots) {
    starts.push(offset);
    offset += slot.text.length + PART_SEPARATOR.length;
  }
  const slotAt = (pos: number): number => {
    let k = 0;
    while (k + 1 < slots.length && (starts[k + 1] as number) <= pos) k++;
    return k;
  };
  let prefix = 0;
  const shortest = Math.min(original.length, transformed.length);
  while (prefix < shortest && original.charCodeAt(prefix) === transformed.charCodeAt(prefix)) prefix++;
  let suffix = 0;
  while (
    suffix < shortest - prefix &&
    original.charCodeAt(original.length - 1 - suffix) === transformed.charCodeAt(transformed.length - 1 - suffix)
  ) {
    suffix++;
  }
  const middle = transformed.slice(prefix, transformed.length - suffix);
  const ops: Array<[number, string]> =
    original.length - prefix - suffix <= DIFF_LIMIT && middle.length <= DIFF_LIMIT
      ? diff(original.slice(prefix, original.length - suffix), middle)
      : [
          [diff.DELETE, original.slice(prefix, original.length - suffix)],
          [diff.INSERT, middle],
        ];
  ops.unshift([diff.EQUAL, original.slice(0, prefix)]);
  ops.push([diff.EQUAL, original.slice(original.length - suffix)]);

  const out = slots.map(() => "");
  let pos = 0;
  for (const [op, chunk] of ops) {
    if (op === diff.INSERT) {
      out[slotAt(pos)] += chunk;
      continue;
    }
    if (op === diff.EQUAL) {
      for (let k = slotAt(pos); k < slots.length && (starts[k] as number) < pos + chunk.length; k++) {
        const start = starts[k] as number;
        const end = start + (slots[k] as TextSlot).text.length;
        const from = Math.max(pos, start);
        const to = Math.min(pos + chunk.length, end);
        if (from < to) out[k] += chunk.slice(from - pos, to - pos);
      }
    }
    pos += chunk.length;
  }
  return out;
}

/**
 * Writes a transformed evaluated text back into a copy of the body, keeping its shape: parts stay
 * parts, blocks stay blocks, and an empty string is a valid result. The caller's body is never
 * mutated. A body with no text slot is returned as it is.
 */
export function writeText(body: unknown, located: EvaluatedText, transformed: string): unknown {
  if (located.slots.length === 0 || transformed === located.text) return body;
  const texts = splitOverSlots(located.slots, located.text, transformed);
  let out = body;
  for (const write of slotWrites(located.slots, texts)) out = setAtPath(out, write.path, write.value);
  return out;
}
