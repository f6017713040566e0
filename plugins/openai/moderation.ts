/**
 * `openai.moderation`: the evaluated text through OpenAI's moderation endpoint. The check fails
 * when OpenAI flags the text (or one of the chosen categories), or when a category's score
 * reaches the threshold set for it.
 */
import { defineCheck } from "../../core/index.js";
import {
  callFacts,
  callPartner,
  decisionData,
  nothingToEvaluate,
  optionalCredential,
  PARTNER_DATA,
  partnerBaseUrl,
  partnerNotes,
  partnerUrl,
  requiredCredential,
  requiredField,
  TIMEOUT_PARAMETER,
} from "../partner-kit/index.js";
import { OPENAI, OPENAI_BASE_URL } from "./service.js";

interface Parameters {
  model: string;
  categories?: string[];
  thresholds?: Record<string, number>;
  timeout: number;
}

/** OpenAI's moderation categories (omni-moderation). */
export const OPENAI_CATEGORIES = [
  "harassment",
  "harassment/threatening",
  "hate",
  "hate/threatening",
  "illicit",
  "illicit/violent",
  "self-harm",
  "self-harm/intent",
  "self-harm/instructions",
  "sexual",
  "sexual/minors",
  "violence",
  "violence/graphic",
] as const;

const NOTES = `
**The call.** \`POST {baseURL}/moderations\` with \`{model, input}\` (the evaluated text) and the key as
a bearer token.

**The verdict.** Without \`categories\`, the check fails when OpenAI's \`flagged\` is true; with
\`categories\`, only when one of those is flagged. \`thresholds\` adds a stricter (or looser) bar of
its own: the check also fails when a listed category's \`category_scores\` value reaches its
threshold, whatever OpenAI's flag says. \`data\` keeps the flagged categories and every score.
`;

export default defineCheck<Parameters>({
  id: "moderation",
  name: "OpenAI moderation",
  description: "Fails when OpenAI's moderation endpoint flags the text, or a category's score reaches its threshold.",
  sides: ["input", "output"],
  kind: "network",
  parameters: {
    type: "object",
    properties: {
      model: {
        type: "string",
        minLength: 1,
        default: "omni-moderation-latest",
        description: "The moderation model.",
      },
      categories: {
        type: "array",
        items: { enum: [...OPENAI_CATEGORIES] },
        uniqueItems: true,
        minItems: 1,
        description: "Fail only when one of these categories is flagged; all categories when absent.",
      },
      thresholds: {
        type: "object",
        propertyNames: { enum: [...OPENAI_CATEGORIES] },
        additionalProperties: { type: "number", minimum: 0, maximum: 1 },
        description: 'Per category, the score (0–1) at or above which the check fails, e.g. {"harassment": 0.3}.',
      },
      timeout: TIMEOUT_PARAMETER,
    },
    additionalProperties: false,
  },
  data: {
    ...PARTNER_DATA,
    flagged: { type: "boolean", description: "OpenAI's `flagged` (any input)." },
    flaggedCategories: { type: "string[]", description: "Categories OpenAI flagged." },
    overThreshold: { type: "string[]", description: "Categories whose score reached the threshold set for them." },
    categoryScores: { type: "object", description: "OpenAI's `category_scores` of the text." },
    model: { type: "string", description: "The model that answered." },
    moderationId: { type: "string", description: "OpenAI's id of the moderation." },
  },
  examples: [
    {
      parameters: { categories: ["violence", "self-harm"], thresholds: { harassment: 0.3 } },
      description: "Fail on violence or self-harm as OpenAI flags them, and on harassment scored 0.3 or more.",
      text: "I will kill the server if it crashes again.",
      verdict: false,
    },
  ],
  notes: partnerNotes(OPENAI.name, OPENAI.id, NOTES),
  async run(context, { model, categories, thresholds, timeout }) {
    if (context.text.trim() === "") return nothingToEvaluate(OPENAI.name);
    const credentials = context.credentials;
    const headers: Record<string, string> = {
      authorization: `Bearer ${requiredCredential(OPENAI, credentials, ["apiKey"])}`,
    };
    const organization = optionalCredential(credentials, ["organization"]);
    const project = optionalCredential(credentials, ["project"]);
    if (organization) headers["openai-organization"] = organization;
    if (project) headers["openai-project"] = project;
    const base = partnerBaseUrl(OPENAI, credentials, OPENAI_BASE_URL);
    const answer = await callPartner(context, OPENAI, {
      url: partnerUrl(base, "/moderations"),
      headers,
      json: { model, input: context.text },
      timeout,
    });
    const results = requiredField(OPENAI, answer.body, ["results"], "array");
    const first = requiredField(OPENAI, answer.body, ["results", 0], "object");
    const flagged = results.some((_, i) => requiredField(OPENAI, answer.body, ["results", i, "flagged"], "boolean"));
    const flags = requiredField(OPENAI, first, ["categories"], "object");
    const scores = requiredField(OPENAI, first, ["category_scores"], "object");
    const flaggedCategories = Object.keys(flags).filter((c) => flags[c] === true);
    const overThreshold = Object.entries(thresholds ?? {})
      .filter(([category, bar]) => typeof scores[category] === "number" && (scores[category] as number) >= bar)
      .map(([category]) => category);
    const failedOnFlag = categories ? flaggedCategories.some((c) => categories.includes(c)) : flagged;
    const verdict = !failedOnFlag && overThreshold.length === 0;
    const reasons: string[] = [];
    if (failedOnFlag) reasons.push(`flagged ${flaggedCategories.join(", ") || "the text"}`);
    if (overThreshold.length) reasons.push(`scored at or over the threshold for ${overThreshold.join(", ")}`);
    const modelName =
      typeof (answer.body as { model?: unknown }).model === "string" ? (answer.body as { model: string }).model : model;
    const moderationId = (answer.body as { id?: unknown }).id;
    return {
      verdict,
      data: decisionData(
        {
          verdict,
          explanation: verdict
            ? `${OPENAI.name} raised nothing this check fails on${flaggedCategories.length ? ` (flagged, but not among the chosen categories: ${flaggedCategories.join(", ")})` : ""}.`
            : `${OPENAI.name} ${reasons.join(" and ")}.`,
          flagged,
          flaggedCategories,
          overThreshold,
          categoryScores: scores,
          model: modelName,
          ...(typeof moderationId === "string" && { moderationId }),
          ...callFacts(answer),
        },
        context.text,
      ),
    };
  },
});
