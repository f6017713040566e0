/**
 * `javelin.lang_detector`: Javelin detects the text's language; the check fails when it is not one
 * of `allowed_languages` (when given) or when Javelin's confidence is below `min_confidence`.
 */
import { defineCheck } from "../../core/index.js";
import { nothingToEvaluate, PARTNER_DATA, partnerNotes, requiredField, TIMEOUT_PARAMETER } from "../partner-kit/index.js";
import { applyGuardrail, JAVELIN } from "./guardrail-call.js";

interface Parameters {
  allowed_languages?: string[];
  min_confidence: number;
  timeout: number;
}

export default defineCheck<Parameters>({
  id: "lang_detector",
  name: "Javelin language detection",
  description: "Javelin detects the text's language; fails on a language not allowed or a low confidence.",
  sides: ["input", "output"],
  kind: "network",
  parameters: {
    type: "object",
    properties: {
      allowed_languages: {
        type: "array",
        items: { type: "string" },
        description: "Allowed language codes (en, es, fr…); any when absent.",
      },
      min_confidence: {
        type: "number",
        minimum: 0,
        maximum: 1,
        default: 0.8,
        description: "The confidence below which the check fails.",
      },
      timeout: TIMEOUT_PARAMETER,
    },
    additionalProperties: false,
  },
  data: {
    ...PARTNER_DATA,
    language: { type: "string", description: "The language Javelin detected." },
    confidence: { type: "number", description: "Javelin's confidence in it." },
  },
  examples: [
    {
      parameters: { allowed_languages: ["en", "fr"] },
      description: "English or French only.",
      text: "Hola, ¿qué hora es en Madrid?",
      verdict: false,
    },
  ],
  notes: partnerNotes(
    JAVELIN.name,
    JAVELIN.id,
    `Posts the text to \`https://<domain>/v1/guardrail/lang_detector/apply\`; \`results.lang\` and \`results.prob\` decide.`,
  ),
  async run(context, { allowed_languages, min_confidence, timeout }) {
    if (context.text.trim() === "") return nothingToEvaluate(JAVELIN.name);
    const { assessment, latencyMs, requestId } = await applyGuardrail(context, "lang_detector", {}, timeout);
    const language = requiredField(JAVELIN, assessment, ["results", "lang"], "string");
    const confidence = requiredField(JAVELIN, assessment, ["results", "prob"], "number");
    const allowed = !allowed_languages?.length || allowed_languages.includes(language);
    const verdict = allowed && confidence >= min_confidence;
    return {
      verdict,
      data: {
        verdict,
        explanation: !allowed
          ? `Language ${language} is not allowed`
          : confidence < min_confidence
            ? `Confidence ${confidence} is below ${min_confidence}`
            : `Language ${language}`,
        language,
        confidence,
        ...(requestId && { requestId }),
        latencyMs,
      },
    };
  },
});
