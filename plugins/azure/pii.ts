/**
 * `azure.pii`: personal data detection by Azure AI Language. The check fails when Azure finds
 * personal data; with `redact`, it replaces the text by Azure's redacted text and passes.
 */
import { defineCheck } from "../../core/index.js";
import {
  callFacts,
  decisionData,
  nothingToEvaluate,
  optionalField,
  PARTNER_DATA,
  PartnerError,
  partnerNotes,
  REDACT_PARAMETER,
  redactionOutcome,
  requiredField,
  TIMEOUT_PARAMETER,
} from "../partner-kit/index.js";
import { apiVersionParameter, callAzure, LANGUAGE, LANGUAGE_API_VERSION } from "./service.js";

interface Parameters {
  domain: "none" | "phi";
  modelVersion: string;
  language: string;
  piiCategories?: string[];
  redact: boolean;
  apiVersion: string;
  timeout: number;
}

const NOTES = `
**The call.** \`POST {endpoint}/language/:analyze-text?api-version=…\` with \`{kind:
"PiiEntityRecognition", parameters: {domain, modelVersion, piiCategories}, analysisInput:
{documents: [{id: "0", language, text}]}}\` (Azure AI Language; the same resource key when it is a
multi-service resource, else the \`pii\` credentials group). Azure takes up to 5,120 characters
per document; a longer text is Azure's error, a check error.

**The verdict.** The check fails when \`results.documents[0].entities\` is not empty. A document
error in \`results.errors\` is a check error.

**Redaction.** With \`redact: true\`, entities found are replaced by Azure's \`redactedText\` (each
character masked with \`*\`) and the check passes; the request or response keeps its shape.
\`data\` keeps each entity's category, subcategory, offset, length and confidence, never its text.
`;

export default defineCheck<Parameters>({
  id: "pii",
  name: "Azure PII detection",
  description: "Fails when Azure AI Language finds personal data in the text; with redact, masks it instead.",
  sides: ["input", "output"],
  kind: "network",
  transforms: true,
  parameters: {
    type: "object",
    properties: {
      domain: { enum: ["none", "phi"], default: "none", description: "`phi` adds protected health information." },
      modelVersion: { type: "string", minLength: 1, default: "latest", description: "Azure's model version." },
      language: { type: "string", minLength: 2, default: "en", description: "Language of the text (ISO 639-1)." },
      piiCategories: {
        type: "array",
        items: { type: "string", minLength: 1 },
        minItems: 1,
        description: "Only these entity categories (Azure's names, e.g. Email, PhoneNumber); all when absent.",
      },
      redact: REDACT_PARAMETER,
      apiVersion: apiVersionParameter(LANGUAGE_API_VERSION),
      timeout: TIMEOUT_PARAMETER,
    },
    additionalProperties: false,
  },
  data: {
    ...PARTNER_DATA,
    entities: { type: "Array<{category, subcategory, offset, length, confidenceScore}>", description: "What Azure found." },
    categories: { type: "string[]", description: "The categories found." },
    redacted: { type: "boolean", description: "Whether the text was replaced by Azure's redacted text." },
    modelVersion: { type: "string", description: "The model version that answered." },
  },
  examples: [
    {
      parameters: { redact: true, piiCategories: ["Email", "PhoneNumber"] },
      description: "Mask emails and phone numbers.",
      text: "Write to jane.doe@example.com for the refund.",
      verdict: true,
    },
  ],
  notes: partnerNotes(LANGUAGE.name, "azure", NOTES),
  async run(context, p) {
    if (context.text.trim() === "") return nothingToEvaluate(LANGUAGE.name);
    const answer = await callAzure(
      context,
      LANGUAGE,
      "pii",
      "/language/:analyze-text",
      p.apiVersion,
      {
        kind: "PiiEntityRecognition",
        parameters: {
          domain: p.domain,
          modelVersion: p.modelVersion,
          ...(p.piiCategories && { piiCategories: p.piiCategories }),
        },
        analysisInput: { documents: [{ id: "0", language: p.language, text: context.text }] },
      },
      p.timeout,
    );
    const failed = optionalField(LANGUAGE, answer.body, ["results", "errors", 0, "error"], "object");
    if (failed) {
      const code = typeof failed.code === "string" ? failed.code : "error";
      const message = typeof failed.message === "string" ? failed.message.slice(0, 200) : "";
      throw new PartnerError(
        "partner_answer_invalid",
        `${LANGUAGE.name} could not analyse the text: ${code}${message ? `: ${message}` : ""}`,
      );
    }
    const document = ["results", "documents", 0];
    const entities = requiredField(LANGUAGE, answer.body, [...document, "entities"], "array").map((_, i) => ({
      category: requiredField(LANGUAGE, answer.body, [...document, "entities", i, "category"], "string"),
      subcategory: optionalField(LANGUAGE, answer.body, [...document, "entities", i, "subcategory"], "string") ?? null,
      offset: optionalField(LANGUAGE, answer.body, [...document, "entities", i, "offset"], "number") ?? null,
      length: optionalField(LANGUAGE, answer.body, [...document, "entities", i, "length"], "number") ?? null,
      confidenceScore: optionalField(LANGUAGE, answer.body, [...document, "entities", i, "confidenceScore"], "number") ?? null,
    }));
    const found = entities.length > 0;
    const redacted = p.redact && found;
    const masked = redacted ? requiredField(LANGUAGE, answer.body, [...document, "redactedText"], "string") : context.text;
    const categories = [...new Set(entities.map((e) => e.category))];
    const verdict = !found || redacted;
    const modelVersion = optionalField(LANGUAGE, answer.body, ["results", "modelVersion"], "string");
    return {
      verdict,
      data: decisionData(
        {
          verdict,
          explanation: !found
            ? `${LANGUAGE.name} found no personal data.`
            : `${LANGUAGE.name} found ${entities.length} item${entities.length === 1 ? "" : "s"} of personal data (${categories.join(", ")})${redacted ? "; they were redacted, so the check passes" : ""}.`,
          entities,
          categories,
          redacted,
          ...(modelVersion !== undefined && { modelVersion }),
          ...callFacts(answer),
        },
        context.text,
      ),
      ...(redacted ? redactionOutcome(context, masked) : {}),
    };
  },
});
