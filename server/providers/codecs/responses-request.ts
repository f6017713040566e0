/**
 * A Responses request as an OpenAI chat request. `instructions` becomes the first message; message
 * items become messages with text and image parts; `function_call` items become an assistant's
 * tool_calls and `function_call_output` items tool messages; function tools, `tool_choice`,
 * `text.format` and `max_output_tokens` take their chat names. Fields the chat form has no word
 * for keep a chat name the adapter judges (`reasoning_effort`, `verbosity`) or are refused by name
 * here (built-in tools, reasoning items), unless the config drops them.
 */
import type { Json, ProviderCall } from "../kind.js";
import { dropOrRefuse, invalidRequest, isJson } from "../translate.js";

/** Fields the gateway answers itself on this path: the conversation store reads them, no provider does. */
const GATEWAY_FIELDS = new Set(["store", "previous_response_id", "stream", "stream_options", "include"]);

/** Fields read here; any other is passed on under its own name for the adapter to judge. */
const MAPPED = new Set([
  "model",
  "input",
  "instructions",
  "max_output_tokens",
  "temperature",
  "top_p",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "text",
  "reasoning",
  "metadata",
  "user",
  "safety_identifier",
  "truncation",
  "service_tier",
  "background",
]);

/** The request as an OpenAI chat request. */
export function chatOfResponses(body: Json, call: ProviderCall): Json {
  const messages: Json[] = [];
  if (typeof body.instructions === "string" && body.instructions) messages.push({ role: "system", content: body.instructions });
  else if (body.instructions !== undefined && body.instructions !== null && typeof body.instructions !== "string") {
    throw invalidRequest("instructions", "must be a string");
  }
  if (typeof body.input === "string") messages.push({ role: "user", content: body.input });
  else if (Array.isArray(body.input)) body.input.forEach((item, i) => addItem(messages, item, `input[${i}]`, call));
  else if (body.input !== undefined) throw invalidRequest("input", "must be a string or an array of items");

  const chat: Json = { model: body.model, messages };
  if (body.max_output_tokens !== undefined && body.max_output_tokens !== null) chat.max_tokens = body.max_output_tokens;
  if (body.temperature !== undefined && body.temperature !== null) chat.temperature = body.temperature;
  if (body.top_p !== undefined && body.top_p !== null) chat.top_p = body.top_p;
  if (Array.isArray(body.tools)) {
    const tools = body.tools.flatMap((tool, i) => chatTool(tool, `tools[${i}]`, call));
    if (tools.length) chat.tools = tools;
  }
  if (body.tool_choice !== undefined && body.tool_choice !== null) {
    const choice = chatToolChoice(body.tool_choice, call);
    if (choice !== undefined) chat.tool_choice = choice;
  }
  if (body.parallel_tool_calls !== undefined && body.parallel_tool_calls !== null)
    chat.parallel_tool_calls = body.parallel_tool_calls;
  if (isJson(body.text)) Object.assign(chat, textOptions(body.text));
  if (isJson(body.reasoning)) Object.assign(chat, reasoningOptions(body.reasoning, call));
  if (isJson(body.metadata) && Object.keys(body.metadata).length) chat.metadata = body.metadata;
  const user = typeof body.user === "string" ? body.user : body.safety_identifier;
  if (typeof user === "string") chat.user = user;
  // "disabled" is what a chat provider does unasked; "auto" (drop the middle of a long input) has no match.
  if (body.truncation !== undefined && body.truncation !== null && body.truncation !== "disabled") {
    dropOrRefuse(call, "truncation", `"${String(body.truncation)}" has no match at a provider reached through chat`);
  }
  if (body.service_tier !== undefined && body.service_tier !== null && body.service_tier !== "auto") {
    chat.service_tier = body.service_tier;
  }
  if (body.background === true)
    dropOrRefuse(call, "background", "a provider reached through chat answers in the foreground only");
  for (const [key, value] of Object.entries(body)) {
    if (!MAPPED.has(key) && !GATEWAY_FIELDS.has(key) && value !== undefined) chat[key] = value;
  }
  return chat;
}

/** Adds the chat messages of one input item. */
function addItem(messages: Json[], item: unknown, where: string, call: ProviderCall): void {
  if (!isJson(item)) throw invalidRequest(where, "must be an object");
  const type = item.type ?? "message";
  if (type === "message") {
    const message = chatMessage(item, where, call);
    if (message) messages.push(message);
  } else if (type === "function_call") {
    if (typeof item.call_id !== "string" || typeof item.name !== "string") {
      throw invalidRequest(where, "a function_call item needs a call_id and a name");
    }
    const toolCall = {
      id: item.call_id,
      type: "function",
      function: { name: item.name, arguments: typeof item.arguments === "string" ? item.arguments : "" },
    };
    // Calls made in one turn are one assistant message, as the chat form and the providers want them.
    const last = messages.at(-1);
    if (last?.role === "assistant") {
      last.tool_calls = [...(Array.isArray(last.tool_calls) ? last.tool_calls : []), toolCall];
    } else messages.push({ role: "assistant", content: null, tool_calls: [toolCall] });
  } else if (type === "function_call_output") {
    if (typeof item.call_id !== "string") throw invalidRequest(where, "a function_call_output item needs a call_id");
    messages.push({ role: "tool", tool_call_id: item.call_id, content: toolOutput(item.output, `${where}.output`, call) });
  } else if (type === "reasoning") {
    dropOrRefuse(call, where, "a reasoning item cannot be sent to a provider reached through chat");
  } else {
    dropOrRefuse(call, where, `a "${String(type)}" item has no match at a provider reached through chat`);
  }
}

const ROLES: Readonly<Record<string, string>> = { user: "user", assistant: "assistant", system: "system", developer: "system" };

function chatMessage(item: Json, where: string, call: ProviderCall): Json | undefined {
  const role = typeof item.role === "string" ? ROLES[item.role] : undefined;
  if (!role) throw invalidRequest(`${where}.role`, "must be user, assistant, system or developer");
  if (typeof item.content === "string") return { role, content: item.content };
  if (!Array.isArray(item.content)) throw invalidRequest(`${where}.content`, "must be a string or an array of parts");
  const parts: Json[] = [];
  item.content.forEach((part, i) => {
    const at = `${where}.content[${i}]`;
    const chatPart = contentPart(part, at, role, call);
    if (chatPart) parts.push(chatPart);
  });
  if (role !== "user") {
    // System and assistant messages hold text only in the chat form.
    const texts = parts.map((part) => (part.type === "text" ? String(part.text) : ""));
    if (parts.some((part) => part.type !== "text")) throw invalidRequest(`${where}.content`, `a ${role} message holds text only`);
    return { role, content: texts.join("") };
  }
  if (!parts.length) return undefined;
  return { role, content: parts };
}

function contentPart(part: unknown, where: string, role: string, call: ProviderCall): Json | undefined {
  if (!isJson(part)) throw invalidRequest(where, "must be an object");
  switch (part.type) {
    case "input_text":
    case "output_text":
      if (typeof part.text !== "string") throw invalidRequest(`${where}.text`, "must be a string");
      return { type: "text", text: part.text };
    case "refusal":
      return { type: "text", text: typeof part.refusal === "string" ? part.refusal : "" };
    case "input_image": {
      if (role !== "user") throw invalidRequest(where, `a ${role} message holds text only`);
      if (typeof part.image_url !== "string") {
        dropOrRefuse(call, where, "an image given by file_id cannot be sent to a provider reached through chat");
        return undefined;
      }
      const image: Json = { url: part.image_url };
      if (typeof part.detail === "string") image.detail = part.detail;
      return { type: "image_url", image_url: image };
    }
    default:
      dropOrRefuse(call, where, `a "${String(part.type)}" part has no match at a provider reached through chat`);
      return undefined;
  }
}

/** A function_call_output's output as a tool message's text: a tool message holds text only. */
function toolOutput(output: unknown, where: string, call: ProviderCall): string {
  if (typeof output === "string") return output;
  if (!Array.isArray(output)) throw invalidRequest(where, "must be a string or an array of parts");
  const texts: string[] = [];
  output.forEach((part, i) => {
    if (isJson(part) && part.type === "input_text" && typeof part.text === "string") texts.push(part.text);
    else dropOrRefuse(call, `${where}[${i}]`, "a tool message of a provider reached through chat holds text only");
  });
  return texts.join("");
}

function chatTool(tool: unknown, where: string, call: ProviderCall): Json[] {
  if (!isJson(tool)) throw invalidRequest(where, "must be an object");
  if (tool.type !== "function") {
    dropOrRefuse(
      call,
      where,
      `the built-in "${String(tool.type)}" tool runs at OpenAI only; a provider reached through chat takes function tools`,
    );
    return [];
  }
  if (typeof tool.name !== "string" || !tool.name) throw invalidRequest(`${where}.name`, "must be a non-empty string");
  const fn: Json = { name: tool.name };
  if (typeof tool.description === "string") fn.description = tool.description;
  if (isJson(tool.parameters)) fn.parameters = tool.parameters;
  if (typeof tool.strict === "boolean") fn.strict = tool.strict;
  return [{ type: "function", function: fn }];
}

function chatToolChoice(choice: unknown, call: ProviderCall): unknown {
  if (choice === "auto" || choice === "none" || choice === "required") return choice;
  if (isJson(choice) && choice.type === "function" && typeof choice.name === "string") {
    return { type: "function", function: { name: choice.name } };
  }
  const type = isJson(choice) ? String(choice.type) : JSON.stringify(choice);
  dropOrRefuse(call, "tool_choice", `"${type}" has no match at a provider reached through chat`);
  return undefined;
}

/** `text.format` as `response_format`; `text.verbosity` under its chat name. */
function textOptions(text: Json): Json {
  const out: Json = {};
  const format = text.format;
  if (isJson(format)) {
    if (format.type === "json_schema") {
      const schema: Json = { name: format.name, schema: format.schema };
      if (typeof format.description === "string") schema.description = format.description;
      if (typeof format.strict === "boolean") schema.strict = format.strict;
      out.response_format = { type: "json_schema", json_schema: schema };
    } else if (format.type === "json_object") out.response_format = { type: "json_object" };
    else if (format.type !== "text") throw invalidRequest("text.format.type", "must be text, json_schema or json_object");
  }
  if (text.verbosity !== undefined && text.verbosity !== null) out.verbosity = text.verbosity;
  return out;
}

/** `reasoning.effort` as `reasoning_effort`, which kinds with an effort honour and the adapter refuses for others. */
function reasoningOptions(reasoning: Json, call: ProviderCall): Json {
  if (reasoning.summary !== undefined && reasoning.summary !== null) {
    dropOrRefuse(call, "reasoning.summary", "a provider reached through chat writes no reasoning summary");
  }
  return reasoning.effort !== undefined && reasoning.effort !== null ? { reasoning_effort: reasoning.effort } : {};
}
