/**
 * An OpenAI chat request as a Gemini `GenerateContentRequest` (Gemini API and Vertex AI share
 * it): system messages become `systemInstruction`, the others `contents` of role `user` or
 * `model`, a tool result a `functionResponse` part named after the call it answers, and the
 * sampling fields `generationConfig`. Gemini fetches no URL of the client's: an image is sent as
 * inline base64 data, or, on Vertex AI, as a `gs://` file reference.
 */
import { isObject } from "../../../../core/internal.js";
import { GatewayError } from "../../../errors.js";
import type { Json } from "../../kind.js";
import { geminiSchema } from "./schema.js";

/** The OpenAI chat fields this backend honours; any other is refused by the translation, naming it. */
export const CHAT_PARAMETERS: ReadonlySet<string> = new Set([
  "model",
  "messages",
  "max_tokens",
  "max_completion_tokens",
  "temperature",
  "top_p",
  // Not OpenAI's, but what the Anthropic client codec keeps of `top_k`: Gemini has it.
  "top_k",
  "stop",
  "n",
  "seed",
  "presence_penalty",
  "frequency_penalty",
  "response_format",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
]);

/** What differs between the two services' requests. */
export interface RequestFlavour {
  /** Whether `gs://` URIs may be sent as file references (Vertex AI reads Cloud Storage). */
  cloudStorage: boolean;
}

type Part = Json;
interface Content {
  role: "user" | "model";
  parts: Part[];
}

function unsupported(where: string, problem: string): never {
  throw new GatewayError("unsupported_content", `${where}: ${problem}`);
}

/** A request field's value Gemini has no equivalent of: refused like a field it lacks. */
function unsupportedParameter(where: string, problem: string): never {
  throw new GatewayError("unsupported_parameter", `${where}: ${problem}`);
}

function invalid(where: string, problem: string): never {
  throw new GatewayError("invalid_request", `${where}: ${problem}`);
}

/** The Gemini request body for an OpenAI chat request. */
export function generateContentBody(chat: Json, flavour: RequestFlavour): Json {
  const messages = chat.messages;
  if (!Array.isArray(messages) || messages.length === 0) invalid("messages", "must be a non-empty array");
  const system: Part[] = [];
  const contents: Content[] = [];
  // Gemini names a function response after its function; OpenAI names the call's id.
  const callNames = new Map<string, string>();
  messages.forEach((message: unknown, i) => {
    const where = `messages[${i}]`;
    if (!isObject(message)) invalid(where, "must be an object");
    const role = message.role;
    if (role === "system" || role === "developer") {
      system.push(...textParts(message.content, `${where}.content`));
      return;
    }
    if (role === "user") push(contents, "user", userParts(message.content, `${where}.content`, flavour));
    else if (role === "assistant") push(contents, "model", assistantParts(message, where, callNames));
    else if (role === "tool") push(contents, "user", [toolResult(message, where, callNames)]);
    else unsupported(`${where}.role`, `Gemini has no "${String(role)}" messages; send tool results with role "tool"`);
  });
  if (contents.length === 0) invalid("messages", "needs a user message besides the system messages");

  const body: Json = { contents };
  if (system.length) body.systemInstruction = { parts: system };
  const generationConfig = generationConfigOf(chat);
  if (Object.keys(generationConfig).length) body.generationConfig = generationConfig;
  if (chat.tools !== undefined) body.tools = toolsOf(chat.tools);
  if (chat.tool_choice !== undefined) body.toolConfig = { functionCallingConfig: toolChoiceOf(chat.tool_choice) };
  // Gemini may call several functions in one turn and has no switch against it: only the default is honoured.
  if (chat.parallel_tool_calls === false) {
    unsupportedParameter("parallel_tool_calls", "Gemini cannot be held to one function call per turn; leave it out or true");
  }
  return body;
}

/** Adds parts under a role; consecutive messages of one role share a content, as Gemini turns alternate. */
function push(contents: Content[], role: Content["role"], parts: Part[]): void {
  if (parts.length === 0) return;
  const last = contents.at(-1);
  if (last?.role === role) last.parts.push(...parts);
  else contents.push({ role, parts });
}

function textParts(content: unknown, where: string): Part[] {
  if (typeof content === "string") return content ? [{ text: content }] : [];
  if (!Array.isArray(content)) invalid(where, "must be a string or an array of parts");
  return content.map((part: unknown, i) => {
    if (!isObject(part) || part.type !== "text" || typeof part.text !== "string") {
      unsupported(`${where}[${i}]`, "only text parts are taken here");
    }
    return { text: part.text };
  });
}

function userParts(content: unknown, where: string, flavour: RequestFlavour): Part[] {
  if (typeof content === "string") return content ? [{ text: content }] : [];
  if (!Array.isArray(content)) invalid(where, "must be a string or an array of parts");
  return content.map((part: unknown, i) => {
    const at = `${where}[${i}]`;
    if (!isObject(part)) invalid(at, "must be an object");
    if (part.type === "text" && typeof part.text === "string") return { text: part.text };
    if (part.type === "image_url") {
      const url = isObject(part.image_url) ? part.image_url.url : undefined;
      if (typeof url !== "string") invalid(`${at}.image_url.url`, "must be a string");
      return mediaPart(url, `${at}.image_url.url`, flavour);
    }
    if (part.type === "input_audio") {
      const audio = isObject(part.input_audio) ? part.input_audio : {};
      const mimeType = AUDIO_TYPES[String(audio.format)];
      if (!mimeType) unsupported(`${at}.input_audio.format`, `"${String(audio.format)}" is not wav or mp3`);
      if (typeof audio.data !== "string") invalid(`${at}.input_audio.data`, "must be base64 text");
      return { inlineData: { mimeType, data: audio.data } };
    }
    if (part.type === "file") {
      const data = isObject(part.file) ? part.file.file_data : undefined;
      if (typeof data !== "string") {
        unsupported(`${at}.file`, "Gemini takes a file as its data (file_data, a data: URL), not an OpenAI file_id");
      }
      return mediaPart(data, `${at}.file.file_data`, flavour);
    }
    return unsupported(at, `Gemini takes no "${String(part.type)}" parts`);
  });
}

const AUDIO_TYPES: Readonly<Record<string, string>> = { wav: "audio/wav", mp3: "audio/mp3" };

/** Media types of Cloud Storage objects, by extension: Gemini needs the type of a file it reads. */
const FILE_TYPES: Readonly<Record<string, string>> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  webp: "image/webp",
  gif: "image/gif",
  heic: "image/heic",
  pdf: "application/pdf",
  mp3: "audio/mp3",
  wav: "audio/wav",
  mp4: "video/mp4",
  txt: "text/plain",
};

/** A data URL as inline data; a `gs://` URI as a file reference where the service reads Cloud Storage. */
function mediaPart(url: string, where: string, flavour: RequestFlavour): Part {
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (data) return { inlineData: { mimeType: data[1], data: data[2] } };
  if (url.startsWith("gs://")) {
    if (!flavour.cloudStorage) unsupported(where, "gs:// URIs are read by Vertex AI only; send the file as a base64 data: URL");
    const extension = /\.([a-z0-9]+)$/i.exec(url)?.[1]?.toLowerCase();
    const mimeType = extension ? FILE_TYPES[extension] : undefined;
    if (!mimeType) unsupported(where, "the media type of this gs:// object cannot be told from its extension");
    return { fileData: { mimeType, fileUri: url } };
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1] ?? "this";
  return unsupported(
    where,
    `Gemini does not fetch ${scheme} URLs for the gateway, and the gateway does not fetch them either; send the image as a base64 data: URL${flavour.cloudStorage ? " or a gs:// URI" : ""}`,
  );
}

function assistantParts(message: Json, where: string, callNames: Map<string, string>): Part[] {
  const parts: Part[] =
    message.content === null || message.content === undefined ? [] : textParts(message.content, `${where}.content`);
  const calls = message.tool_calls;
  if (calls === undefined || calls === null) return parts;
  if (!Array.isArray(calls)) invalid(`${where}.tool_calls`, "must be an array");
  calls.forEach((call: unknown, i) => {
    const at = `${where}.tool_calls[${i}]`;
    const fn = isObject(call) && isObject(call.function) ? call.function : undefined;
    if (!isObject(call) || !fn || typeof fn.name !== "string") invalid(at, "must be a function call with a name");
    if (typeof call.id === "string") callNames.set(call.id, fn.name);
    parts.push({ functionCall: { name: fn.name, args: argumentsOf(fn.arguments, `${at}.function.arguments`) } });
  });
  return parts;
}

function argumentsOf(text: unknown, where: string): Json {
  if (text === undefined || text === "") return {};
  let value: unknown;
  try {
    value = typeof text === "string" ? JSON.parse(text) : text;
  } catch {
    invalid(where, "is not valid JSON");
  }
  if (!isObject(value)) invalid(where, "must be a JSON object");
  return value;
}

function toolResult(message: Json, where: string, callNames: Map<string, string>): Part {
  const id = message.tool_call_id;
  const name = typeof id === "string" ? callNames.get(id) : undefined;
  if (!name) {
    invalid(`${where}.tool_call_id`, "names no tool call of an earlier assistant message; Gemini needs the function's name");
  }
  const text =
    typeof message.content === "string"
      ? message.content
      : textParts(message.content, `${where}.content`)
          .map((p) => p.text)
          .join("");
  // Gemini's response is an object: a JSON object result is sent as it is, anything else under `content`.
  let response: Json = { content: text };
  try {
    const parsed = JSON.parse(text) as unknown;
    if (isObject(parsed)) response = parsed;
  } catch {
    // Plain text stays under `content`.
  }
  return { functionResponse: { name, response } };
}

function generationConfigOf(chat: Json): Json {
  const config: Json = {};
  const maxTokens = chat.max_completion_tokens ?? chat.max_tokens;
  if (maxTokens !== undefined && maxTokens !== null) config.maxOutputTokens = maxTokens;
  if (chat.temperature !== undefined && chat.temperature !== null) config.temperature = chat.temperature;
  if (chat.top_p !== undefined && chat.top_p !== null) config.topP = chat.top_p;
  if (chat.top_k !== undefined && chat.top_k !== null) config.topK = chat.top_k;
  if (chat.stop !== undefined && chat.stop !== null)
    config.stopSequences = typeof chat.stop === "string" ? [chat.stop] : chat.stop;
  if (chat.n !== undefined && chat.n !== null) config.candidateCount = chat.n;
  if (chat.seed !== undefined && chat.seed !== null) config.seed = chat.seed;
  if (chat.presence_penalty !== undefined && chat.presence_penalty !== null) config.presencePenalty = chat.presence_penalty;
  if (chat.frequency_penalty !== undefined && chat.frequency_penalty !== null) config.frequencyPenalty = chat.frequency_penalty;
  const format = chat.response_format;
  if (format !== undefined && format !== null) {
    if (!isObject(format)) invalid("response_format", "must be an object");
    if (format.type === "json_object") config.responseMimeType = "application/json";
    else if (format.type === "json_schema") {
      const schema = isObject(format.json_schema) ? format.json_schema.schema : undefined;
      if (schema === undefined) invalid("response_format.json_schema.schema", "is required");
      config.responseMimeType = "application/json";
      config.responseSchema = geminiSchema(schema, "response_format.json_schema.schema");
    } else if (format.type !== "text")
      unsupportedParameter("response_format.type", `Gemini has no "${String(format.type)}" format`);
  }
  return config;
}

function toolsOf(tools: unknown): Json[] {
  if (!Array.isArray(tools)) invalid("tools", "must be an array");
  if (tools.length === 0) return [];
  const declarations = tools.map((tool: unknown, i) => {
    const where = `tools[${i}]`;
    if (!isObject(tool) || tool.type !== "function" || !isObject(tool.function)) {
      unsupportedParameter(where, "Gemini takes function tools only");
    }
    const fn = tool.function;
    if (typeof fn.name !== "string") invalid(`${where}.function.name`, "must be a string");
    const declaration: Json = { name: fn.name };
    if (typeof fn.description === "string") declaration.description = fn.description;
    // A function without arguments has no parameters: Gemini refuses an OBJECT without properties.
    const parameters = fn.parameters;
    const empty = isObject(parameters) && (!isObject(parameters.properties) || Object.keys(parameters.properties).length === 0);
    if (parameters !== undefined && !empty) declaration.parameters = geminiSchema(parameters, `${where}.function.parameters`);
    return declaration;
  });
  return [{ functionDeclarations: declarations }];
}

function toolChoiceOf(choice: unknown): Json {
  if (choice === "auto") return { mode: "AUTO" };
  if (choice === "none") return { mode: "NONE" };
  if (choice === "required") return { mode: "ANY" };
  if (isObject(choice) && choice.type === "function" && isObject(choice.function) && typeof choice.function.name === "string") {
    return { mode: "ANY", allowedFunctionNames: [choice.function.name] };
  }
  return unsupportedParameter("tool_choice", 'Gemini takes "auto", "none", "required" or one function by name');
}
