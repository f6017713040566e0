/**
 * An OpenAI chat request as an Anthropic Messages request. System and developer messages become
 * the system prompt (Anthropic has one, ahead of the conversation); tool messages become
 * tool_result blocks of a user turn; an assistant's tool_calls become tool_use blocks. What
 * Anthropic cannot do is refused by name unless the config drops it: a JSON response format (it
 * has no JSON mode), several choices (`n`), audio and file parts.
 */
import type { Json, ProviderCall } from "../../kind.js";
import { dropOrRefuse, invalidRequest, isJson } from "../../translate.js";

/**
 * Anthropic requires `max_tokens`; the chat form does not. This is what a request without
 * `max_tokens` or `max_completion_tokens` asks for.
 */
export const DEFAULT_MAX_TOKENS = 4096;

/** The chat fields this backend reads; the translation refuses any other by name. */
export const ANTHROPIC_CHAT_PARAMETERS: ReadonlySet<string> = new Set([
  "model",
  "messages",
  "max_tokens",
  "max_completion_tokens",
  "temperature",
  "top_p",
  "top_k",
  "stop",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "user",
  "response_format",
  "n",
]);

/** The Messages request for a chat request whose fields are all in ANTHROPIC_CHAT_PARAMETERS. */
export function messagesOfChat(chat: Json, call: ProviderCall): Json {
  if (!Array.isArray(chat.messages)) throw invalidRequest("messages", "must be an array");
  const system: string[] = [];
  const messages: Json[] = [];
  chat.messages.forEach((message, i) => {
    const where = `messages[${i}]`;
    if (!isJson(message)) throw invalidRequest(where, "must be an object");
    if (message.role === "system" || message.role === "developer") system.push(textOf(message.content, where, call));
    else if (message.role === "user") push(messages, "user", userBlocks(message.content, `${where}.content`, call));
    else if (message.role === "assistant") push(messages, "assistant", assistantBlocks(message, where, call));
    else if (message.role === "tool") push(messages, "user", [toolResult(message, where, call)]);
    else throw invalidRequest(`${where}.role`, `"${String(message.role)}" cannot be sent to an Anthropic provider`);
  });

  const request: Json = {
    model: chat.model,
    messages,
    max_tokens: chat.max_completion_tokens ?? chat.max_tokens ?? DEFAULT_MAX_TOKENS,
  };
  if (system.length) request.system = system.join("\n");
  if (chat.temperature !== undefined && chat.temperature !== null) request.temperature = chat.temperature;
  if (chat.top_p !== undefined && chat.top_p !== null) request.top_p = chat.top_p;
  if (chat.top_k !== undefined && chat.top_k !== null) request.top_k = chat.top_k;
  const stop = typeof chat.stop === "string" ? [chat.stop] : Array.isArray(chat.stop) ? chat.stop : [];
  if (stop.length) request.stop_sequences = stop;
  if (typeof chat.user === "string") request.metadata = { user_id: chat.user };
  if (Array.isArray(chat.tools) && chat.tools.length)
    request.tools = chat.tools.map((tool, i) => anthropicTool(tool, `tools[${i}]`));
  const choice = toolChoice(chat.tool_choice, chat.parallel_tool_calls);
  if (choice && request.tools) request.tool_choice = choice;
  if (isJson(chat.response_format) && chat.response_format.type !== "text") {
    dropOrRefuse(call, "response_format", "Anthropic has no JSON mode");
  }
  if (typeof chat.n === "number" && chat.n > 1) dropOrRefuse(call, "n", "Anthropic answers one choice per request");
  if (chat.stream === true) request.stream = true;
  return request;
}

/** Adds blocks to the conversation; consecutive turns of one role are one Anthropic turn. */
function push(messages: Json[], role: "user" | "assistant", blocks: Json[]): void {
  if (!blocks.length) return;
  const last = messages.at(-1);
  if (last?.role === role) (last.content as Json[]).push(...blocks);
  else messages.push({ role, content: blocks });
}

/** The text of a system, developer or tool message: a string, or text parts. */
function textOf(content: unknown, where: string, call: ProviderCall): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const texts: string[] = [];
  content.forEach((part, i) => {
    if (isJson(part) && part.type === "text" && typeof part.text === "string") texts.push(part.text);
    else dropOrRefuse(call, `${where}.content[${i}]`, "only text parts can be sent here to an Anthropic provider");
  });
  return texts.join("\n");
}

function userBlocks(content: unknown, where: string, call: ProviderCall): Json[] {
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  if (!Array.isArray(content)) throw invalidRequest(where, "must be a string or an array of parts");
  const blocks: Json[] = [];
  content.forEach((part, i) => {
    const at = `${where}[${i}]`;
    if (!isJson(part)) throw invalidRequest(at, "must be an object");
    if (part.type === "text") blocks.push({ type: "text", text: String(part.text ?? "") });
    else if (part.type === "image_url") blocks.push(imageBlock(part, at));
    else dropOrRefuse(call, at, `a "${String(part.type)}" part cannot be sent to an Anthropic provider`);
  });
  return blocks;
}

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

function imageBlock(part: Json, where: string): Json {
  const url = isJson(part.image_url) ? part.image_url.url : undefined;
  if (typeof url !== "string") throw invalidRequest(`${where}.image_url.url`, "must be a string");
  const data = DATA_URL.exec(url);
  if (data) return { type: "image", source: { type: "base64", media_type: data[1], data: data[2] } };
  if (/^https?:\/\//i.test(url)) return { type: "image", source: { type: "url", url } };
  throw invalidRequest(`${where}.image_url.url`, "must be an http(s) URL or a base64 data URL");
}

function assistantBlocks(message: Json, where: string, call: ProviderCall): Json[] {
  const blocks: Json[] = [];
  const text = textOf(message.content, where, call);
  if (text) blocks.push({ type: "text", text });
  if (message.function_call !== undefined && message.function_call !== null) {
    dropOrRefuse(
      call,
      `${where}.function_call`,
      "the deprecated function_call cannot be sent to an Anthropic provider; use tool_calls",
    );
  }
  if (!Array.isArray(message.tool_calls)) return blocks;
  message.tool_calls.forEach((toolCall, i) => {
    const at = `${where}.tool_calls[${i}]`;
    const fn = isJson(toolCall) && isJson(toolCall.function) ? toolCall.function : undefined;
    if (!fn || typeof fn.name !== "string") throw invalidRequest(at, "must have a function with a name");
    blocks.push({
      type: "tool_use",
      id: toolCall.id,
      name: fn.name,
      input: argumentsOf(fn.arguments, `${at}.function.arguments`),
    });
  });
  return blocks;
}

/** A tool call's arguments as the object Anthropic takes as its input. */
function argumentsOf(args: unknown, where: string): Json {
  if (args === undefined || args === "") return {};
  try {
    const value = typeof args === "string" ? (JSON.parse(args) as unknown) : args;
    if (isJson(value)) return value;
  } catch {
    // Answered below.
  }
  throw invalidRequest(where, "must be a JSON object, which Anthropic takes as the tool's input");
}

function toolResult(message: Json, where: string, call: ProviderCall): Json {
  if (typeof message.tool_call_id !== "string") throw invalidRequest(`${where}.tool_call_id`, "must be a string");
  return { type: "tool_result", tool_use_id: message.tool_call_id, content: textOf(message.content, where, call) };
}

function anthropicTool(tool: unknown, where: string): Json {
  const fn = isJson(tool) && tool.type === "function" && isJson(tool.function) ? tool.function : undefined;
  if (!fn || typeof fn.name !== "string") throw invalidRequest(where, 'must be a tool of type "function" with a name');
  const out: Json = { name: fn.name, input_schema: fn.parameters ?? { type: "object", properties: {} } };
  if (typeof fn.description === "string") out.description = fn.description;
  return out;
}

function toolChoice(choice: unknown, parallel: unknown): Json | undefined {
  let out: Json | undefined;
  if (choice === "auto") out = { type: "auto" };
  else if (choice === "required") out = { type: "any" };
  else if (choice === "none") return { type: "none" };
  else if (isJson(choice) && isJson(choice.function) && typeof choice.function.name === "string") {
    out = { type: "tool", name: choice.function.name };
  } else if (choice !== undefined && choice !== null) {
    throw invalidRequest("tool_choice", 'must be "auto", "required", "none" or a function to call');
  }
  if (parallel === false) out = { ...(out ?? { type: "auto" }), disable_parallel_tool_use: true };
  return out;
}
