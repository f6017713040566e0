/**
 * An Anthropic Messages request as an OpenAI chat request. The system prompt becomes the first
 * message; text and image blocks become content parts; an assistant's tool_use blocks become its
 * tool_calls and a user's tool_result blocks become tool messages, placed first as the OpenAI API
 * wants them right after the call. Fields the chat form has no word for (`top_k`, `thinking`, …)
 * keep their names, so the translation refuses them by name unless the config drops them.
 */
import type { Json, ProviderCall } from "../kind.js";
import { dropOrRefuse, invalidRequest, isJson } from "../translate.js";

/** Fields read here; any other is passed on under its own name for the translation to judge (translate.ts, `keptParameters`). */
const MAPPED = new Set([
  "model",
  "messages",
  "system",
  "max_tokens",
  "temperature",
  "top_p",
  "stop_sequences",
  "tools",
  "tool_choice",
  "metadata",
  "stream",
  "service_tier",
]);

/** The request as an OpenAI chat request. */
export function chatOfMessages(body: Json, call: ProviderCall): Json {
  const messages: Json[] = [];
  const system = systemText(body.system, call);
  if (system !== undefined) messages.push({ role: "system", content: system });
  if (!Array.isArray(body.messages)) throw invalidRequest("messages", "must be an array");
  body.messages.forEach((message, i) => {
    if (!isJson(message)) throw invalidRequest(`messages[${i}]`, "must be an object");
    messages.push(...chatMessages(message, `messages[${i}]`, call));
  });

  const chat: Json = { model: body.model, messages };
  if (body.max_tokens !== undefined) chat.max_tokens = body.max_tokens;
  if (body.temperature !== undefined) chat.temperature = body.temperature;
  if (body.top_p !== undefined) chat.top_p = body.top_p;
  if (Array.isArray(body.stop_sequences) && body.stop_sequences.length) chat.stop = body.stop_sequences;
  if (Array.isArray(body.tools) && body.tools.length) chat.tools = body.tools.map((tool, i) => chatTool(tool, `tools[${i}]`));
  if (body.tool_choice !== undefined) Object.assign(chat, chatToolChoice(body.tool_choice));
  if (isJson(body.metadata)) {
    const { user_id: user, ...rest } = body.metadata;
    if (typeof user === "string") chat.user = user;
    for (const key of Object.keys(rest)) dropOrRefuse(call, `metadata.${key}`, "the provider has no such metadata");
  }
  // Anthropic's "auto" is what an OpenAI-format provider does unasked; its other tiers have no match there.
  if (body.service_tier !== undefined && body.service_tier !== "auto") {
    dropOrRefuse(call, "service_tier", `"${String(body.service_tier)}" has no match at an OpenAI-format provider`);
  }
  for (const [name, value] of Object.entries(body)) if (!MAPPED.has(name) && value !== undefined) chat[name] = value;
  return chat;
}

function systemText(system: unknown, call: ProviderCall): string | undefined {
  if (system === undefined || system === null) return undefined;
  if (typeof system === "string") return system || undefined;
  if (!Array.isArray(system)) throw invalidRequest("system", "must be a string or an array of text blocks");
  const texts: string[] = [];
  system.forEach((block, i) => {
    if (isJson(block) && block.type === "text" && typeof block.text === "string") texts.push(block.text);
    else dropOrRefuse(call, `system[${i}]`, "only text blocks can be sent as a system message");
  });
  // Blocks of one system prompt are read as one text, as core/content.ts reads them.
  return texts.length ? texts.join("\n") : undefined;
}

/** One Anthropic message as one or more chat messages. */
function chatMessages(message: Json, where: string, call: ProviderCall): Json[] {
  const role = message.role;
  if (role !== "user" && role !== "assistant") throw invalidRequest(`${where}.role`, 'must be "user" or "assistant"');
  if (typeof message.content === "string") return [{ role, content: message.content }];
  if (!Array.isArray(message.content)) throw invalidRequest(`${where}.content`, "must be a string or an array of blocks");
  return role === "user"
    ? userMessages(message.content, `${where}.content`, call)
    : [assistantMessage(message.content, `${where}.content`, call)];
}

function userMessages(blocks: unknown[], where: string, call: ProviderCall): Json[] {
  const tools: Json[] = [];
  const parts: Json[] = [];
  blocks.forEach((block, i) => {
    const at = `${where}[${i}]`;
    if (!isJson(block)) throw invalidRequest(at, "must be an object");
    if (block.type === "tool_result") tools.push(toolMessage(block, at, call));
    else if (block.type === "text") parts.push({ type: "text", text: String(block.text ?? "") });
    else if (block.type === "image") parts.push(imagePart(block, at));
    else dropOrRefuse(call, at, `a "${String(block.type)}" block cannot be sent to an OpenAI-format provider`);
  });
  return parts.length ? [...tools, { role: "user", content: parts }] : tools;
}

function imagePart(block: Json, where: string): Json {
  const source = isJson(block.source) ? block.source : {};
  if (source.type === "base64" && typeof source.media_type === "string" && typeof source.data === "string") {
    return { type: "image_url", image_url: { url: `data:${source.media_type};base64,${source.data}` } };
  }
  if (source.type === "url" && typeof source.url === "string") return { type: "image_url", image_url: { url: source.url } };
  throw invalidRequest(`${where}.source`, "must be a base64 source (media_type, data) or a url source");
}

/** A tool_result block as a tool message, whose content the OpenAI API takes as text only. */
function toolMessage(block: Json, where: string, call: ProviderCall): Json {
  if (typeof block.tool_use_id !== "string") throw invalidRequest(`${where}.tool_use_id`, "must be a string");
  let content = "";
  if (typeof block.content === "string") content = block.content;
  else if (Array.isArray(block.content)) {
    const texts: string[] = [];
    block.content.forEach((part, i) => {
      if (isJson(part) && part.type === "text" && typeof part.text === "string") texts.push(part.text);
      else dropOrRefuse(call, `${where}.content[${i}]`, "a tool message of an OpenAI-format provider holds text only");
    });
    content = texts.join("\n");
  }
  return { role: "tool", tool_call_id: block.tool_use_id, content };
}

function assistantMessage(blocks: unknown[], where: string, call: ProviderCall): Json {
  const texts: string[] = [];
  const calls: Json[] = [];
  blocks.forEach((block, i) => {
    const at = `${where}[${i}]`;
    if (!isJson(block)) throw invalidRequest(at, "must be an object");
    if (block.type === "text") texts.push(String(block.text ?? ""));
    else if (block.type === "tool_use") {
      calls.push({
        id: block.id,
        type: "function",
        function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
      });
    } else dropOrRefuse(call, at, `a "${String(block.type)}" block cannot be sent to an OpenAI-format provider`);
  });
  const message: Json = { role: "assistant", content: texts.length ? texts.join("") : null };
  if (calls.length) message.tool_calls = calls;
  return message;
}

function chatTool(tool: unknown, where: string): Json {
  // Server tools (web search, code execution, …) have a versioned `type` and run at Anthropic only.
  if (!isJson(tool) || typeof tool.name !== "string" || (tool.type !== undefined && tool.type !== "custom")) {
    throw invalidRequest(where, "only custom tools (name, description, input_schema) can be sent to an OpenAI-format provider");
  }
  const fn: Json = { name: tool.name, parameters: tool.input_schema ?? { type: "object", properties: {} } };
  if (typeof tool.description === "string") fn.description = tool.description;
  return { type: "function", function: fn };
}

function chatToolChoice(choice: unknown): Json {
  if (!isJson(choice)) throw invalidRequest("tool_choice", "must be an object");
  const chat: Json = {};
  if (choice.type === "auto") chat.tool_choice = "auto";
  else if (choice.type === "any") chat.tool_choice = "required";
  else if (choice.type === "none") chat.tool_choice = "none";
  else if (choice.type === "tool" && typeof choice.name === "string") {
    chat.tool_choice = { type: "function", function: { name: choice.name } };
  } else throw invalidRequest("tool_choice", 'must have a type "auto", "any", "tool" (with a name) or "none"');
  if (choice.disable_parallel_tool_use === true) chat.parallel_tool_calls = false;
  return chat;
}
