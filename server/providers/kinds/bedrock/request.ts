/**
 * An OpenAI chat request as a Bedrock Converse request (Amazon Bedrock API Reference, Converse):
 * system and developer messages become `system` blocks; the other messages become user and
 * assistant turns of content blocks (text, image bytes, toolUse, toolResult), consecutive turns of
 * one role merged as Converse requires alternation; tools, tool_choice and the sampling fields
 * become `toolConfig` and `inferenceConfig`. What Converse cannot take is a 400 naming it.
 */
import { isObject } from "../../../../core/internal.js";
import { GatewayError } from "../../../errors.js";
import type { Json } from "../../kind.js";

/** The OpenAI chat fields a Converse request carries; the translation refuses any other. */
export const CHAT_PARAMETERS: ReadonlySet<string> = new Set([
  "model",
  "messages",
  "max_tokens",
  "max_completion_tokens",
  "temperature",
  "top_p",
  "stop",
  "tools",
  "tool_choice",
  "n",
]);

type Block = Json;
interface Turn {
  role: "user" | "assistant";
  content: Block[];
}

const IMAGE_FORMATS = new Set(["png", "jpeg", "gif", "webp"]);

function refuse(code: "unsupported_content" | "unsupported_parameter" | "invalid_request", message: string): never {
  throw new GatewayError(code, message);
}

/** Converse takes image bytes only: a data URL is decoded, a web URL is refused (it is never fetched). */
function imageBlock(part: Json, where: string): Block {
  const url = isObject(part.image_url) ? part.image_url.url : part.image_url;
  if (typeof url !== "string") refuse("invalid_request", `${where}.image_url.url: expected a string`);
  const data = /^data:image\/([a-z]+);base64,(.*)$/s.exec(url);
  if (!data) {
    refuse(
      "unsupported_content",
      `${where}.image_url: Amazon Bedrock takes images as bytes, not by URL; send the image as a base64 data: URL`,
    );
  }
  const format = data[1] === "jpg" ? "jpeg" : (data[1] as string);
  if (!IMAGE_FORMATS.has(format)) {
    refuse(
      "unsupported_content",
      `${where}.image_url: image/${format} is not a format Amazon Bedrock takes (png, jpeg, gif, webp)`,
    );
  }
  return { image: { format, source: { bytes: data[2] } } };
}

/** A message's content as blocks; empty text is left out, as Converse refuses blank text blocks. */
function contentBlocks(content: unknown, where: string, images: boolean): Block[] {
  if (content === null || content === undefined) return [];
  if (typeof content === "string") return content === "" ? [] : [{ text: content }];
  if (!Array.isArray(content)) refuse("invalid_request", `${where}: expected a string or an array of parts`);
  const blocks: Block[] = [];
  content.forEach((part: unknown, i) => {
    const at = `${where}[${i}]`;
    if (!isObject(part)) refuse("invalid_request", `${at}: expected an object`);
    if (part.type === "text") {
      if (typeof part.text !== "string") refuse("invalid_request", `${at}.text: expected a string`);
      if (part.text !== "") blocks.push({ text: part.text });
    } else if (part.type === "image_url" && images) blocks.push(imageBlock(part, at));
    else refuse("unsupported_content", `${at}: a "${String(part.type)}" part cannot be sent to Amazon Bedrock here`);
  });
  return blocks;
}

function textOf(content: unknown, where: string): string {
  return contentBlocks(content, where, false)
    .map((block) => block.text as string)
    .join("\n");
}

function toolUses(calls: unknown, where: string): Block[] {
  if (calls === undefined || calls === null) return [];
  if (!Array.isArray(calls)) refuse("invalid_request", `${where}: expected an array`);
  return calls.map((call: unknown, i) => {
    const at = `${where}[${i}]`;
    const fn = isObject(call) && isObject(call.function) ? call.function : undefined;
    if (!isObject(call) || typeof call.id !== "string" || !fn || typeof fn.name !== "string") {
      refuse("invalid_request", `${at}: expected {id, type: "function", function: {name, arguments}}`);
    }
    let input: unknown;
    try {
      input = JSON.parse(typeof fn.arguments === "string" && fn.arguments !== "" ? fn.arguments : "{}");
    } catch {
      refuse("invalid_request", `${at}.function.arguments: not valid JSON`);
    }
    // Converse's toolUse input is a JSON object.
    if (!isObject(input)) refuse("invalid_request", `${at}.function.arguments: Amazon Bedrock takes a JSON object`);
    return { toolUse: { toolUseId: call.id, name: fn.name, input } };
  });
}

/** The OpenAI messages as Converse's `system` and alternating turns. */
function conversation(messages: unknown): { system: Block[]; turns: Turn[] } {
  if (!Array.isArray(messages)) refuse("invalid_request", "messages: expected an array");
  const system: Block[] = [];
  const turns: Turn[] = [];
  const add = (role: Turn["role"], content: Block[]) => {
    if (content.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...content);
    else turns.push({ role, content });
  };
  messages.forEach((message: unknown, i) => {
    const where = `messages[${i}]`;
    if (!isObject(message)) refuse("invalid_request", `${where}: expected an object`);
    switch (message.role) {
      case "system":
      case "developer": {
        const text = textOf(message.content, `${where}.content`);
        if (text !== "") system.push({ text });
        break;
      }
      case "user":
        add("user", contentBlocks(message.content, `${where}.content`, true));
        break;
      case "assistant":
        add("assistant", [
          ...contentBlocks(message.content, `${where}.content`, false),
          ...toolUses(message.tool_calls, `${where}.tool_calls`),
        ]);
        break;
      case "tool": {
        if (typeof message.tool_call_id !== "string") refuse("invalid_request", `${where}.tool_call_id: expected a string`);
        const text = textOf(message.content, `${where}.content`);
        add("user", [{ toolResult: { toolUseId: message.tool_call_id, content: [{ text }] } }]);
        break;
      }
      default:
        refuse("unsupported_content", `${where}.role: "${String(message.role)}" messages cannot be sent to Amazon Bedrock`);
    }
  });
  return { system, turns };
}

function toolSpecs(tools: unknown): Block[] {
  if (!Array.isArray(tools)) refuse("invalid_request", "tools: expected an array");
  return tools.map((tool: unknown, i) => {
    const fn = isObject(tool) && isObject(tool.function) ? tool.function : undefined;
    if (!isObject(tool) || tool.type !== "function" || !fn || typeof fn.name !== "string") {
      refuse(
        "unsupported_content",
        `tools[${i}]: Amazon Bedrock takes function tools ({type: "function", function: {name, ...}})`,
      );
    }
    const schema = isObject(fn.parameters) ? fn.parameters : { type: "object", properties: {} };
    return {
      toolSpec: {
        name: fn.name,
        ...(typeof fn.description === "string" && { description: fn.description }),
        inputSchema: { json: schema },
      },
    };
  });
}

/** OpenAI's tool_choice as Converse's; "none" is "undefined": Converse has no such choice (see `converseRequest`). */
function toolChoice(choice: unknown): Block | undefined {
  if (choice === undefined || choice === "auto") return { auto: {} };
  if (choice === "required") return { any: {} };
  if (choice === "none") return undefined;
  if (isObject(choice) && isObject(choice.function) && typeof choice.function.name === "string") {
    return { tool: { name: choice.function.name } };
  }
  return refuse("invalid_request", 'tool_choice: expected "auto", "required", "none" or {type: "function", function: {name}}');
}

function hasToolBlocks(turns: Turn[]): boolean {
  return turns.some((turn) => turn.content.some((block) => block.toolUse !== undefined || block.toolResult !== undefined));
}

function inferenceConfig(chat: Json): Json {
  const config: Json = {};
  const maxTokens = chat.max_completion_tokens ?? chat.max_tokens;
  if (maxTokens !== undefined && maxTokens !== null) config.maxTokens = maxTokens;
  if (chat.temperature !== undefined && chat.temperature !== null) config.temperature = chat.temperature;
  if (chat.top_p !== undefined && chat.top_p !== null) config.topP = chat.top_p;
  if (typeof chat.stop === "string") config.stopSequences = [chat.stop];
  else if (Array.isArray(chat.stop) && chat.stop.length) config.stopSequences = chat.stop;
  return config;
}

/**
 * The Converse body for an OpenAI chat request whose fields are all in CHAT_PARAMETERS.
 * `tool_choice: "none"` sends no tools, so the model cannot call one; a conversation that already
 * holds tool calls needs its tools declared, so there "none" is refused rather than ignored.
 */
export function converseRequest(chat: Json, dropParams: boolean): Json {
  if (typeof chat.n === "number" && chat.n > 1 && !dropParams) {
    refuse(
      "unsupported_parameter",
      'n: Amazon Bedrock answers one choice per request; remove n, or set "drop_params": true in the config to get one',
    );
  }
  const { system, turns } = conversation(chat.messages);
  const body: Json = { messages: turns };
  if (system.length) body.system = system;
  const inference = inferenceConfig(chat);
  if (Object.keys(inference).length) body.inferenceConfig = inference;
  const tools = chat.tools === undefined || chat.tools === null ? [] : toolSpecs(chat.tools);
  if (tools.length) {
    const choice = toolChoice(chat.tool_choice);
    if (choice) body.toolConfig = { tools, toolChoice: choice };
    else if (hasToolBlocks(turns)) {
      refuse(
        "unsupported_parameter",
        'tool_choice: "none" cannot be honoured by Amazon Bedrock in a conversation holding tool calls (their tools must be declared, and Converse has no "none")',
      );
    }
  }
  return body;
}
