/**
 * Where the checkable text of MCP traffic lives, and how a changed text is written back in place.
 * Tool input is every string value of a `tools/call`'s arguments; tool output is the text of a
 * result's `content` (text blocks and embedded text resources), every string value of its
 * `structuredContent`, the text contents of `resources/read` and the text of `prompts/get`
 * messages. A tool's description (and the descriptions inside its input schema) is read as input.
 * Images, audio and blobs carry no text a check could read.
 */

/** A path into a JSON value: object keys and array indexes. */
export type JsonPath = ReadonlyArray<string | number>;

/** One string of a message that belongs to the checked text. */
export interface TextSlot {
  path: JsonPath;
  text: string;
}

type Obj = Record<string, unknown>;

function isObject(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Bounds recursion on values a peer built; JSON bodies are depth-limited before they get here. */
const MAX_DEPTH = 64;

/** Every string value inside a JSON value, depth first, in key order (keys themselves are not read). */
export function stringSlots(value: unknown, path: JsonPath = [], into: TextSlot[] = [], depth = 0): TextSlot[] {
  if (depth > MAX_DEPTH) return into;
  if (typeof value === "string") into.push({ path, text: value });
  else if (Array.isArray(value)) value.forEach((item, index) => stringSlots(item, [...path, index], into, depth + 1));
  else if (isObject(value)) for (const key of Object.keys(value)) stringSlots(value[key], [...path, key], into, depth + 1);
  return into;
}

/** The checked text of `tools/call` params: the string values of its arguments. */
export function callArgumentSlots(params: unknown): TextSlot[] {
  return isObject(params) ? stringSlots(params.arguments, ["arguments"]) : [];
}

/** Slots of one content block (a tool result's or a prompt message's). */
function contentBlockSlots(block: unknown, path: JsonPath, into: TextSlot[]): void {
  if (!isObject(block)) return;
  if (block.type === "text" && typeof block.text === "string") into.push({ path: [...path, "text"], text: block.text });
  else if (block.type === "resource" && isObject(block.resource) && typeof block.resource.text === "string") {
    into.push({ path: [...path, "resource", "text"], text: block.resource.text });
  }
}

/** The checked text of a `tools/call` result: content text, embedded text resources, structuredContent. */
export function callResultSlots(result: unknown): TextSlot[] {
  if (!isObject(result)) return [];
  const slots: TextSlot[] = [];
  if (Array.isArray(result.content))
    result.content.forEach((block, index) => contentBlockSlots(block, ["content", index], slots));
  if (result.structuredContent !== undefined) stringSlots(result.structuredContent, ["structuredContent"], slots);
  return slots;
}

/** The checked text of a `resources/read` result: each text content. */
export function resourceSlots(result: unknown): TextSlot[] {
  if (!isObject(result) || !Array.isArray(result.contents)) return [];
  const slots: TextSlot[] = [];
  result.contents.forEach((content, index) => {
    if (isObject(content) && typeof content.text === "string")
      slots.push({ path: ["contents", index, "text"], text: content.text });
  });
  return slots;
}

/** The checked text of a `prompts/get` result: its description and each message's text. */
export function promptSlots(result: unknown): TextSlot[] {
  if (!isObject(result)) return [];
  const slots: TextSlot[] = [];
  if (typeof result.description === "string") slots.push({ path: ["description"], text: result.description });
  if (Array.isArray(result.messages)) {
    result.messages.forEach((message, index) => {
      if (isObject(message)) contentBlockSlots(message.content, ["messages", index, "content"], slots);
    });
  }
  return slots;
}

/** Strings under `description` keys of an input schema, where tool poisoning hides as readily as in the tool's own. */
function schemaDescriptionSlots(value: unknown, path: JsonPath, into: TextSlot[], depth = 0): void {
  if (depth > MAX_DEPTH) return;
  if (Array.isArray(value)) value.forEach((item, index) => schemaDescriptionSlots(item, [...path, index], into, depth + 1));
  else if (isObject(value)) {
    for (const key of Object.keys(value)) {
      const item = value[key];
      if ((key === "description" || key === "title") && typeof item === "string") into.push({ path: [...path, key], text: item });
      else schemaDescriptionSlots(item, [...path, key], into, depth + 1);
    }
  }
}

/** The checked text of one listed tool: its title, description and the descriptions in its input schema. */
export function toolDescriptionSlots(tool: unknown): TextSlot[] {
  if (!isObject(tool)) return [];
  const slots: TextSlot[] = [];
  if (typeof tool.title === "string") slots.push({ path: ["title"], text: tool.title });
  if (typeof tool.description === "string") slots.push({ path: ["description"], text: tool.description });
  schemaDescriptionSlots(tool.inputSchema, ["inputSchema"], slots);
  return slots;
}

/**
 * A copy of `value` with each slot's string replaced by the text at the same index, where it
 * changed; everything else is shared with the original. The value is never mutated.
 */
export function writeSlots<T>(value: T, slots: readonly TextSlot[], texts: readonly string[]): T {
  let out: unknown = value;
  slots.forEach((slot, index) => {
    const text = texts[index];
    if (text !== undefined && text !== slot.text) out = setAt(out, slot.path, 0, text);
  });
  return out as T;
}

function setAt(node: unknown, path: JsonPath, at: number, text: string): unknown {
  if (at === path.length) return text;
  const key = path[at]!;
  if (Array.isArray(node) && typeof key === "number") {
    const copy = [...node];
    copy[key] = setAt(node[key], path, at + 1, text);
    return copy;
  }
  if (isObject(node) && typeof key === "string") return { ...node, [key]: setAt(node[key], path, at + 1, text) };
  return node;
}
