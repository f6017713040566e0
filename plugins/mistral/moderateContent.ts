/**
 * `mistral.moderateContent`: Mistral's moderation models. A conversation (chat and messages
 * requests) goes to the conversational endpoint, which classifies its last message in context;
 * any other text to the raw-text endpoint. The check fails when one of the chosen categories is
 * flagged.
 */
import { defineCheck, type JsonSchema } from "../../core/index.js";
import {
  baseUrlCredential,
  callFacts,
  callPartner,
  decisionData,
  nothingToEvaluate,
  optionalField,
  PARTNER_DATA,
  partnerBaseUrl,
  partnerNotes,
  type PartnerService,
  partnerUrl,
  requiredCredential,
  requiredField,
  TIMEOUT_PARAMETER,
} from "../partner-kit/index.js";

export const MISTRAL: PartnerService = { id: "mistral", name: "Mistral moderation" };
const DEFAULT_BASE = "https://api.mistral.ai";

/** Mistral's moderation categories. */
export const MISTRAL_CATEGORIES = [
  "sexual",
  "hate_and_discrimination",
  "violence_and_threats",
  "dangerous_and_criminal_content",
  "selfharm",
  "health",
  "financial",
  "law",
  "pii",
] as const;

interface Parameters {
  categories: string[];
  model: string;
  timeout: number;
}

/** Credentials of the mistral plugin. */
export const MISTRAL_CREDENTIALS: JsonSchema = {
  type: "object",
  properties: {
    apiKey: { type: "string", minLength: 1, description: "A Mistral API key." },
    baseURL: baseUrlCredential(DEFAULT_BASE),
  },
  required: ["apiKey"],
  additionalProperties: false,
};

const NOTES = `
**The call.** For chat and messages requests, \`POST {baseURL}/v1/chat/moderations\` with \`{model,
input: [conversation]}\`: the request's messages (text only; an Anthropic \`system\` first) and, on
the output side, the answer as the last \`assistant\` message, so Mistral judges the last message
in context. For completion and embedding requests, \`POST {baseURL}/v1/moderations\` with
\`{model, input: [text]}\`.

**The verdict.** The check fails when one of \`categories\` is true in \`results[0].categories\`.
\`data\` keeps every flagged category and the scores.
`;

type Message = { role: string; content: string };

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((p): p is { type: "text"; text: string } => p?.type === "text" && typeof p?.text === "string")
    .map((p) => p.text)
    .join("\n");
}

/** The request's conversation as Mistral takes it: roles and text, empty messages left out. */
function conversation(request: unknown): Message[] {
  const body = (request ?? {}) as { system?: unknown; messages?: unknown };
  const messages: Message[] = [];
  const system = textOf(body.system);
  if (system) messages.push({ role: "system", content: system });
  if (Array.isArray(body.messages)) {
    for (const m of body.messages as Array<{ role?: unknown; content?: unknown }>) {
      const role = m?.role === "developer" ? "system" : m?.role;
      const content = textOf(m?.content);
      if (typeof role === "string" && ["system", "user", "assistant", "tool"].includes(role) && content !== "") {
        messages.push({ role, content });
      }
    }
  }
  return messages;
}

export default defineCheck<Parameters>({
  id: "moderateContent",
  name: "Mistral moderation",
  description: "Fails when Mistral's moderation model flags one of the chosen categories.",
  sides: ["input", "output"],
  kind: "network",
  parameters: {
    type: "object",
    properties: {
      categories: {
        type: "array",
        items: { enum: [...MISTRAL_CATEGORIES] },
        uniqueItems: true,
        minItems: 1,
        description: "Categories that fail the check when Mistral flags them.",
      },
      model: { type: "string", minLength: 1, default: "mistral-moderation-latest", description: "The moderation model." },
      timeout: TIMEOUT_PARAMETER,
    },
    required: ["categories"],
    additionalProperties: false,
  },
  data: {
    ...PARTNER_DATA,
    failedCategories: { type: "string[]", description: "Chosen categories Mistral flagged." },
    flaggedCategories: { type: "string[]", description: "Every category Mistral flagged." },
    categoryScores: { type: "object", description: "Mistral's `category_scores`." },
    endpoint: { type: "string", description: "`chat` (a conversation) or `text`." },
    model: { type: "string", description: "The model that answered." },
  },
  examples: [
    {
      parameters: { categories: ["hate_and_discrimination", "violence_and_threats", "selfharm"] },
      text: "I will kill the server if it crashes again.",
      verdict: false,
    },
  ],
  notes: partnerNotes(MISTRAL.name, MISTRAL.id, NOTES),
  async run(context, { categories, model, timeout }) {
    if (context.text.trim() === "") return nothingToEvaluate(MISTRAL.name);
    const credentials = context.credentials;
    const apiKey = requiredCredential(MISTRAL, credentials, ["apiKey"]);
    const base = partnerBaseUrl(MISTRAL, credentials, DEFAULT_BASE);
    const chat = context.requestType === "chatComplete" || context.requestType === "messages";
    let input: unknown;
    if (chat) {
      const messages =
        context.side === "input"
          ? conversation(context.request)
          : [...conversation(context.request), { role: "assistant", content: context.text }];
      input = [messages];
    } else input = [context.text];
    const answer = await callPartner(context, MISTRAL, {
      url: partnerUrl(base, chat ? "/v1/chat/moderations" : "/v1/moderations"),
      headers: { authorization: `Bearer ${apiKey}` },
      json: { model, input },
      timeout,
    });
    const flags = requiredField(MISTRAL, answer.body, ["results", 0, "categories"], "object");
    const scores = optionalField(MISTRAL, answer.body, ["results", 0, "category_scores"], "object") ?? {};
    const flaggedCategories = Object.keys(flags).filter((c) => flags[c] === true);
    const failedCategories = flaggedCategories.filter((c) => categories.includes(c));
    const verdict = failedCategories.length === 0;
    const answeredModel = optionalField(MISTRAL, answer.body, ["model"], "string") ?? model;
    return {
      verdict,
      data: decisionData(
        {
          verdict,
          explanation: verdict
            ? `${MISTRAL.name} flagged none of the chosen categories${flaggedCategories.length ? ` (it flagged ${flaggedCategories.join(", ")})` : ""}.`
            : `${MISTRAL.name} flagged ${failedCategories.join(", ")}.`,
          failedCategories,
          flaggedCategories,
          categoryScores: scores,
          endpoint: chat ? "chat" : "text",
          model: answeredModel,
          ...callFacts(answer),
        },
        context.text,
      ),
    };
  },
});
