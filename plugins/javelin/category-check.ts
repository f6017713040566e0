/**
 * Javelin's category guardrails (trust & safety, prompt injection) as checks: Javelin scores each
 * category against the threshold and the check fails when any category is flagged.
 */
import { type CheckDefinition, defineCheck } from "../../core/index.js";
import { nothingToEvaluate, PARTNER_DATA, partnerNotes, requiredField, TIMEOUT_PARAMETER } from "../partner-kit/index.js";
import { applyGuardrail, JAVELIN } from "./guardrail-call.js";

interface Parameters {
  threshold: number;
  timeout: number;
}

/** Builds the check of one category guardrail. */
export function categoryCheck(
  id: string,
  name: string,
  description: string,
  threshold: number,
  example: { text: string; verdict: boolean },
): CheckDefinition<Parameters> {
  return defineCheck<Parameters>({
    id,
    name,
    description,
    sides: ["input", "output"],
    kind: "network",
    parameters: {
      type: "object",
      properties: {
        threshold: {
          type: "number",
          minimum: 0,
          maximum: 1,
          default: threshold,
          description: "The score at which Javelin flags a category.",
        },
        timeout: TIMEOUT_PARAMETER,
      },
      additionalProperties: false,
    },
    data: {
      ...PARTNER_DATA,
      flaggedCategories: { type: "string[]", description: "The categories Javelin flagged." },
      categoryScores: { type: "object", description: "Javelin's score per category." },
      thresholdUsed: { type: "number", description: "The threshold Javelin applied." },
    },
    examples: [{ parameters: { threshold }, description: "The peer gateway's default threshold.", ...example }],
    notes: partnerNotes(
      JAVELIN.name,
      JAVELIN.id,
      `Posts \`{input: {text}, config: {threshold}}\` to \`https://<domain>/v1/guardrail/${id}/apply\`; the check
fails when any category of \`results.categories\` is true.`,
    ),
    async run(context, p) {
      if (context.text.trim() === "") return nothingToEvaluate(JAVELIN.name);
      const { assessment, latencyMs, requestId } = await applyGuardrail(context, id, { threshold: p.threshold }, p.timeout);
      const categories =
        (assessment.categories as Record<string, unknown> | undefined) ??
        requiredField(JAVELIN, assessment, ["results", "categories"], "object");
      const scores = (assessment.category_scores ??
        (assessment.results as { category_scores?: unknown } | undefined)?.category_scores) as
        Record<string, unknown> | undefined;
      const flagged = Object.entries(categories)
        .filter(([, on]) => on === true)
        .map(([category]) => category);
      const used = (assessment.config as { threshold_used?: unknown } | undefined)?.threshold_used;
      return {
        verdict: flagged.length === 0,
        data: {
          verdict: flagged.length === 0,
          explanation: flagged.length === 0 ? "Javelin flagged nothing" : `Javelin flagged ${flagged.join(", ")}`,
          flaggedCategories: flagged,
          categoryScores: scores ?? {},
          ...(typeof used === "number" && { thresholdUsed: used }),
          ...(requestId && { requestId }),
          latencyMs,
        },
      };
    },
  });
}
