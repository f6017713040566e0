import { type CheckContext, defineCheck, locateText, textExcerpt } from "../../../core/index.js";
import { isObject } from "../../../core/internal.js";

interface Parameters {
  not: boolean;
  allowToolCalls: boolean;
}

// White space, and characters that render as nothing (zero-width spaces, joiners, BOM, …).
const BLANK = /^[\p{White_Space}\p{Default_Ignorable_Code_Point}]*$/u;

const TOOL_BLOCKS = new Set(["tool_use", "server_tool_use", "mcp_tool_use"]);

/** What the evaluated message holds besides text: tool calls and non-text parts. */
interface NonText {
  toolCalls: number;
  nonTextParts: number;
}

function partsOf(content: unknown): NonText {
  if (!Array.isArray(content)) return { toolCalls: 0, nonTextParts: 0 };
  let toolCalls = 0;
  let nonTextParts = 0;
  for (const part of content) {
    if (isObject(part) && part.type === "text") continue;
    if (isObject(part) && TOOL_BLOCKS.has(part.type as string)) toolCalls++;
    else nonTextParts++;
  }
  return { toolCalls, nonTextParts };
}

/** An OpenAI-style message's tool calls (and the legacy function_call) plus its content's other parts. */
function messageNonText(message: unknown): NonText {
  if (!isObject(message)) return { toolCalls: 0, nonTextParts: 0 };
  const parts = partsOf(message.content);
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.length : 0;
  return { toolCalls: parts.toolCalls + calls + (isObject(message.function_call) ? 1 : 0), nonTextParts: parts.nonTextParts };
}

function lastMessage(body: unknown): unknown {
  if (!isObject(body) || !Array.isArray(body.messages)) return undefined;
  return body.messages[body.messages.length - 1];
}

/** Non-text content of the evaluated part of the body, per request type and side. */
function nonTextOf({ side, requestType, request, response }: CheckContext): NonText {
  if (side === "input") {
    if (requestType === "chatComplete" || requestType === "messages") return messageNonText(lastMessage(request));
    const list = isObject(request) ? (requestType === "complete" ? request.prompt : request.input) : undefined;
    // Token arrays (lists of numbers) are content, though not text.
    return { toolCalls: 0, nonTextParts: Array.isArray(list) ? list.filter((entry) => typeof entry !== "string").length : 0 };
  }
  if (!isObject(response)) return { toolCalls: 0, nonTextParts: 0 };
  if (requestType === "chatComplete") {
    const choice = Array.isArray(response.choices) ? response.choices[0] : undefined;
    return messageNonText(isObject(choice) ? choice.message : undefined);
  }
  if (requestType === "messages") return partsOf(response.content);
  return { toolCalls: 0, nonTextParts: 0 };
}

/**
 * Passes when the evaluated content has text that is not blank. A response that only calls tools
 * has no text: it fails unless `allowToolCalls`, and `data.toolCallsOnly` says so either way.
 */
export default defineCheck<Parameters>({
  id: "notNull",
  readsText: false,
  name: "Not null",
  description: "Checks that the content is present and not blank (white space and invisible characters only).",
  sides: ["input", "output"],
  // On a held stream, only the whole answer is blank or not.
  streamScope: "whole",
  parameters: {
    type: "object",
    properties: {
      not: { type: "boolean", default: false, description: "Invert the verdict: pass when the content is empty or blank." },
      allowToolCalls: {
        type: "boolean",
        default: false,
        description: "Pass a message or response that has no text but calls tools.",
      },
    },
    additionalProperties: false,
  },
  data: {
    isBlank: { type: "boolean", description: "Whether the text is empty or only white space and invisible characters." },
    textLength: { type: "number", description: "Length of the evaluated text (UTF-16 units)." },
    toolCalls: { type: "number", description: "Tool calls in the evaluated message or response." },
    toolCallsOnly: { type: "boolean", description: "Whether the content is tool calls with no text." },
    nonTextParts: {
      type: "number",
      description: "Parts that are neither text nor tool calls (images, audio, documents, token arrays).",
    },
    not: { type: "boolean", description: "Whether the verdict was inverted." },
    verdict: { type: "boolean", description: "The check's verdict." },
    explanation: { type: "string", description: "Why the check passed or failed." },
    textExcerpt: { type: "string", description: "The first 100 characters of the evaluated text." },
  },
  examples: [{ parameters: {}, text: "Here is your answer.", description: "The model must answer with text.", verdict: true }],
  notes: [
    "Blank means empty, or made only of Unicode white space and default-ignorable characters (zero-width spaces and joiners, BOM, soft hyphen, bidi marks): text a reader cannot see.",
    "",
    "`data` also describes what the content holds besides text, so an empty result can be told apart: `toolCalls` counts OpenAI `tool_calls` (and a legacy `function_call`) and Anthropic `tool_use` blocks, `toolCallsOnly` is true when there are tool calls and no text, and `nonTextParts` counts images, audio, documents and token arrays.",
    "A tool-call-only response fails unless `allowToolCalls` is true.",
  ].join("\n"),
  run(context, { not, allowToolCalls }) {
    // Tool-call arguments are not the message's text: a tool-call-only answer is still told apart.
    const text =
      context.side === "output"
        ? locateText("output", context.requestType, context.response, { toolArguments: false }).text
        : context.text;
    const isBlank = BLANK.test(text);
    const { toolCalls, nonTextParts } = nonTextOf(context);
    const toolCallsOnly = isBlank && toolCalls > 0;
    const present = !isBlank || (allowToolCalls && toolCallsOnly);
    const verdict = not ? !present : present;
    const found = !isBlank
      ? "The content has text"
      : toolCallsOnly
        ? `The content has no text, only ${toolCalls} tool call${toolCalls === 1 ? "" : "s"}${allowToolCalls ? ", which allowToolCalls accepts" : ""}`
        : text === ""
          ? "The content is empty"
          : "The content is blank";
    const inverted = not ? `; the check is inverted (not: true), so it ${verdict ? "passes" : "fails"}` : "";
    return {
      verdict,
      data: {
        isBlank,
        textLength: text.length,
        toolCalls,
        toolCallsOnly,
        nonTextParts,
        not,
        verdict,
        explanation: `${found}${inverted}.`,
        textExcerpt: textExcerpt(text),
      },
    };
  },
});
