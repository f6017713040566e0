/**
 * The shape an inference body must have before any guardrail reads it: the field each route's
 * checks evaluate (spec §4) present and of a type the engine can read. A body without it would
 * have its guardrails judge an empty string and pass, so it is a 400 naming the field instead.
 * Nesting is bounded too, on the body's text before it is parsed, so neither the parser nor anything
 * downstream (serialising a log record) meets an absurd depth.
 */
import type { RequestType } from "../../core/index.js";
import { GatewayError } from "../errors.js";
import { isObject } from "../../core/internal.js";

/** Deepest nesting of objects and arrays a JSON body may have (a tool schema rarely passes 20). */
export const MAX_BODY_DEPTH = 64;

function refuse(field: string, problem: string): never {
  throw new GatewayError("invalid_request", `${field}: ${problem}`);
}

// Character codes of the JSON punctuation that opens and closes strings and levels.
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * The nesting depth of JSON text, read in one pass without parsing: brackets inside strings are
 * text. Stops at the first level past `limit`, so an absurd body costs no more than its first
 * `limit` brackets. Malformed text is left for the parser to refuse.
 */
export function jsonTextDepth(text: string, limit = MAX_BODY_DEPTH): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) depth--;
  }
  return deepest;
}

/**
 * Refuses JSON text nested deeper than MAX_BODY_DEPTH before it is parsed: JSON.parse on a few
 * megabytes of brackets holds the event loop for seconds, the scan for milliseconds.
 */
export function assertJsonTextDepth(text: string): void {
  if (jsonTextDepth(text) > MAX_BODY_DEPTH) {
    throw new GatewayError("body_too_deep", `the body nests objects and arrays deeper than ${MAX_BODY_DEPTH} levels`);
  }
}

function assertContent(content: unknown, field: string, last: boolean): void {
  if (typeof content === "string") return;
  if (Array.isArray(content)) {
    content.forEach((part, index) => {
      if (!isObject(part) || typeof part.type !== "string") refuse(`${field}[${index}]`, "must be a content part {type, ...}");
      if (part.type === "text" && typeof part.text !== "string") refuse(`${field}[${index}].text`, "must be a string");
    });
    return;
  }
  // An assistant turn that only calls tools has no content; the evaluated last message must have some.
  if ((content === null || content === undefined) && !last) return;
  refuse(
    field,
    last
      ? "must be a string or an array of content parts (the last message is what guardrails read)"
      : "must be a string, an array of content parts or null",
  );
}

function assertMessages(body: Record<string, unknown>): void {
  const messages = body.messages;
  if (messages === undefined) refuse("messages", "is required");
  if (!Array.isArray(messages) || messages.length === 0)
    refuse("messages", "must be a non-empty array of messages {role, content}");
  messages.forEach((message, index) => {
    const field = `messages[${index}]`;
    if (!isObject(message)) refuse(field, "must be an object {role, content}");
    if (typeof message.role !== "string" || message.role === "") refuse(`${field}.role`, "must be a non-empty string");
    assertContent(message.content, `${field}.content`, index === messages.length - 1);
  });
}

function assertTexts(body: Record<string, unknown>, field: "prompt" | "input"): void {
  const value = body[field];
  if (value === undefined) refuse(field, "is required");
  if (typeof value === "string") return;
  if (!Array.isArray(value) || value.length === 0) refuse(field, "must be a string or a non-empty array");
  // Token arrays (numbers) are valid for the upstream; guardrails read the string entries.
  if (!value.every((entry) => typeof entry === "string" || typeof entry === "number" || Array.isArray(entry))) {
    refuse(field, "must hold strings (or token arrays)");
  }
}

/**
 * A Responses request's `input`: a string, or a non-empty list of items, each an object; the
 * items guardrails read (messages, `function_call_output`) carry text as a string or typed parts.
 */
function assertResponsesInput(body: Record<string, unknown>): void {
  const input = body.input;
  if (input === undefined) refuse("input", "is required");
  if (typeof input === "string") return;
  if (!Array.isArray(input) || input.length === 0) refuse("input", "must be a string or a non-empty array of input items");
  input.forEach((item, index) => {
    const field = `input[${index}]`;
    if (!isObject(item)) refuse(field, "must be an input item object");
    if (item.type === "function_call_output") {
      if (typeof item.output !== "string" && !Array.isArray(item.output))
        refuse(`${field}.output`, "must be a string or an array of content parts");
    } else if ((item.type === undefined || item.type === "message") && item.content !== undefined) {
      if (typeof item.content !== "string" && !Array.isArray(item.content))
        refuse(`${field}.content`, "must be a string or an array of content parts");
    }
  });
}

/** Throws a 400 naming the field when a body does not have its route's shape. */
export function assertRequestShape(requestType: RequestType, body: Record<string, unknown>): void {
  if (body.model !== undefined && typeof body.model !== "string") refuse("model", "must be a string");
  if (body.stream !== undefined && typeof body.stream !== "boolean") refuse("stream", "must be a boolean");
  switch (requestType) {
    case "chatComplete":
      return assertMessages(body);
    case "messages":
      if (body.system !== undefined && typeof body.system !== "string" && !Array.isArray(body.system)) {
        refuse("system", "must be a string or an array of content blocks");
      }
      return assertMessages(body);
    case "complete":
      return assertTexts(body, "prompt");
    case "embed":
      return assertTexts(body, "input");
    case "responses":
      return assertResponsesInput(body);
  }
}
