import { defineCheck, type RequestType } from "../../../core/index.js";
import { isObject } from "../../../core/internal.js";

type Role = "user" | "system" | "assistant";

interface Parameters {
  prefix: string;
  applyToRole: Role;
  addToExisting: boolean;
  onlyIfEmpty: boolean;
}

type Obj = Record<string, unknown>;

/** What was done, for `data.action`. */
type Action = "prefixed" | "insertedPart" | "insertedMessage" | "setSystem" | "skipped" | "notApplicable";

interface Applied {
  body: unknown;
  action: Action;
  /** Index of the message changed or inserted, when a message was. */
  messageIndex?: number;
  reason?: string;
}

/** The text of a content (string or parts), for the onlyIfEmpty test. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((part) => isObject(part) && part.type === "text" && typeof part.text === "string")
    .map((part) => (part as { text: string }).text)
    .join("");
}

/**
 * Prepends the prefix to a content, keeping its shape: a string stays a string; in a parts or
 * blocks array, a leading text part gets the prefix, and any other first part (an image, a
 * document, a tool result) gets a new text part in front of it. A missing content becomes the prefix.
 */
function prefixContent(content: unknown, prefix: string): { content: unknown; action: Action } {
  if (typeof content === "string") return { content: prefix + content, action: "prefixed" };
  if (Array.isArray(content)) {
    const first = content[0];
    if (isObject(first) && first.type === "text" && typeof first.text === "string") {
      return { content: [{ ...first, text: prefix + first.text }, ...content.slice(1)], action: "prefixed" };
    }
    return { content: [{ type: "text", text: prefix }, ...content], action: "insertedPart" };
  }
  return { content: prefix, action: "prefixed" };
}

/** Index of the message a role's prefix goes to: the first system message, the last user or assistant one. */
function targetIndex(messages: unknown[], role: Role): number {
  const matches = (m: unknown) => isObject(m) && (m.role === role || (role === "system" && m.role === "developer"));
  if (role === "system") return messages.findIndex(matches);
  return messages.findLastIndex(matches);
}

function applyToMessages(body: Obj, p: Parameters, requestType: RequestType): Applied {
  // The Messages API keeps the system prompt beside the messages, as a string or text blocks.
  if (requestType === "messages" && p.applyToRole === "system") {
    const system = body.system;
    const empty = contentText(system).trim() === "";
    if (p.onlyIfEmpty && !empty) return { body, action: "skipped", reason: "the system prompt is not empty" };
    if (system === undefined || system === null || (empty && typeof system === "string")) {
      return { body: { ...body, system: p.prefix }, action: "setSystem" };
    }
    if (!p.addToExisting && Array.isArray(system)) {
      return { body: { ...body, system: [{ type: "text", text: p.prefix }, ...system] }, action: "insertedPart" };
    }
    const { content, action } = prefixContent(system, p.prefix);
    return { body: { ...body, system: content }, action };
  }
  if (!Array.isArray(body.messages)) return { body, action: "notApplicable", reason: "the request has no messages array" };
  const messages = body.messages.slice();
  const index = targetIndex(messages, p.applyToRole);
  const target = index >= 0 ? (messages[index] as Obj) : undefined;
  if (p.onlyIfEmpty && target && contentText(target.content).trim() !== "") {
    return { body, action: "skipped", reason: `the ${p.applyToRole} message is not empty` };
  }
  const fresh = { role: p.applyToRole, content: p.prefix };
  if (!target) {
    // A system prompt goes first; a user or assistant message goes last.
    const at = p.applyToRole === "system" ? 0 : messages.length;
    messages.splice(at, 0, fresh);
    return { body: { ...body, messages }, action: "insertedMessage", messageIndex: at };
  }
  if (!p.addToExisting) {
    messages.splice(index, 0, fresh);
    return { body: { ...body, messages }, action: "insertedMessage", messageIndex: index };
  }
  const { content, action } = prefixContent(target.content, p.prefix);
  messages[index] = { ...target, content };
  return { body: { ...body, messages }, action, messageIndex: index };
}

/** Completions prompts and embedding inputs: a string, or a list whose string entries are each prefixed. */
function applyToList(body: Obj, key: "prompt" | "input", p: Parameters): Applied {
  const value = body[key];
  const blank = (s: string) => s.trim() === "";
  if (typeof value === "string") {
    if (p.onlyIfEmpty && !blank(value)) return { body, action: "skipped", reason: `the ${key} is not empty` };
    return { body: { ...body, [key]: p.prefix + value }, action: "prefixed" };
  }
  if (Array.isArray(value)) {
    let entries = 0;
    const list = value.map((entry) => {
      if (typeof entry !== "string" || (p.onlyIfEmpty && !blank(entry))) return entry;
      entries++;
      return p.prefix + entry;
    });
    if (entries === 0) return { body, action: "skipped", reason: `no ${key} entry could take the prefix` };
    return { body: { ...body, [key]: list }, action: "prefixed" };
  }
  return { body, action: "notApplicable", reason: `the request has no ${key} text` };
}

const EXPLAIN: Record<Action, (target: string) => string> = {
  prefixed: (target) => `The prefix was added to the ${target}.`,
  insertedPart: (target) => `The prefix was inserted as a new text part at the start of the ${target}.`,
  insertedMessage: (target) => `The prefix was inserted as a new ${target}.`,
  setSystem: () => "The request had no system prompt; the prefix became the system prompt.",
  skipped: () => "The prefix was not added",
  notApplicable: () => "The prefix could not be added",
};

/** What the prefix goes to, in words. */
function targetName(requestType: RequestType, role: Role): string {
  if (requestType === "complete") return "prompt";
  if (requestType === "embed") return "input";
  if (requestType === "messages" && role === "system") return "system prompt";
  return `${role} message`;
}

/**
 * Adds a prefix to the request: to a message of a role (chat completions and messages), to the
 * prompt (completions) or to each input (embeddings). Always passes; the change is a transform of
 * the whole request that keeps the body's shape.
 */
export default defineCheck<Parameters>({
  id: "addPrefix",
  name: "Add prefix",
  description: "Adds a prefix to the request: to a message of a role, to the completion prompt, or to each embedding input.",
  sides: ["input"],
  transforms: true,
  parameters: {
    type: "object",
    properties: {
      prefix: {
        type: "string",
        minLength: 1,
        description: "The text to add, as is (include a trailing space or newline if wanted).",
      },
      applyToRole: {
        type: "string",
        enum: ["user", "system", "assistant"],
        default: "user",
        description: "The role whose message gets the prefix (chat completions and messages).",
      },
      addToExisting: {
        type: "boolean",
        default: true,
        description:
          "Add the prefix to the existing message of the role; when false, insert it as a new message before that one.",
      },
      onlyIfEmpty: {
        type: "boolean",
        default: false,
        description: "Only add the prefix when the role has no message yet, or its message is empty.",
      },
    },
    required: ["prefix"],
    additionalProperties: false,
  },
  data: {
    prefix: { type: "string", description: "The prefix configured." },
    requestType: { type: "string", description: "The request type the prefix was applied to." },
    applyToRole: { type: "string", description: "The role applied to (chat completions and messages)." },
    addToExisting: { type: "boolean", description: "Whether an existing message was to be prefixed." },
    onlyIfEmpty: { type: "boolean", description: "Whether the prefix was only for an empty role." },
    applied: { type: "boolean", description: "Whether the request was changed." },
    action: {
      type: "string",
      description:
        "prefixed, insertedPart (a new text part at the start of the content: before a leading image or other non-text part, or a new first system block), insertedMessage, setSystem, skipped (onlyIfEmpty) or notApplicable (nothing to prefix).",
    },
    messageIndex: { type: "number | null", description: "Index of the message changed or inserted, when one was." },
    explanation: { type: "string", description: "What was done." },
  },
  examples: [
    {
      parameters: { prefix: "Answer in English. ", applyToRole: "user" },
      text: "Wie spät ist es?",
      description: "Prefix the user's message.",
      verdict: true,
      transformedText: "Answer in English. Wie spät ist es?",
    },
    {
      parameters: { prefix: "You are a careful assistant.", applyToRole: "system", onlyIfEmpty: true },
      description: "Add a system prompt when the request has none.",
      verdict: true,
      data: { action: "insertedMessage" },
    },
  ],
  notes: [
    "**Chat completions and messages.** The target is the first system message (or `developer` message) for `system`, and the **last** message of the role for `user` and `assistant`: the last user message is the one guardrails evaluate (the peer gateway takes the first message of the role). With `addToExisting` (the default) the prefix is added to that message; otherwise a new message holding the prefix is inserted before it. When the role has no message, one is created: a system message first, a user or assistant message last.",
    "For the Messages API, `system` means the top-level `system` field: a string gets the prefix, a list of text blocks gets it on its first block (or, with `addToExisting: false`, as a new first block), and a missing one is set to the prefix.",
    "",
    "**Shapes are kept.** A string content gets the prefix in front; in a content-parts or content-blocks array, a leading text part gets the prefix, and when the first part is not text (an image, a document, a tool result) a new text part is inserted before it, never a field on the image.",
    "",
    "**Completions and embeddings.** The prompt (or each string of a prompt list) gets the prefix, as does each embedding input (`query: ` prefixes for retrieval models); `applyToRole` and `addToExisting` do not apply. Token-array entries are left alone.",
    "",
    "`onlyIfEmpty` skips the change when the target already has non-blank text. The check always passes.",
  ].join("\n"),
  run({ request, requestType }, parameters) {
    const applied: Applied = !isObject(request)
      ? { body: request, action: "notApplicable", reason: "the request body is not an object" }
      : requestType === "complete"
        ? applyToList(request, "prompt", parameters)
        : requestType === "embed"
          ? applyToList(request, "input", parameters)
          : applyToMessages(request, parameters, requestType);
    const changed = applied.body !== request;
    const base = EXPLAIN[applied.action](targetName(requestType, parameters.applyToRole));
    const explanation = applied.reason ? `${base}: ${applied.reason}.` : base;
    return {
      verdict: true,
      data: {
        prefix: parameters.prefix,
        requestType,
        applyToRole: parameters.applyToRole,
        addToExisting: parameters.addToExisting,
        onlyIfEmpty: parameters.onlyIfEmpty,
        applied: changed,
        action: applied.action,
        messageIndex: applied.messageIndex ?? null,
        explanation,
      },
      ...(changed && { transformedRequest: applied.body }),
    };
  },
});
