/**
 * The `patronus` plugin: Patronus's hosted evaluators on the model's answer. The list below is
 * the plugin's manifest; ids, evaluators and criteria are those the peer gateway uses.
 */
import { definePlugin } from "../../core/index.js";
import { definePartner, type PartnerCheckFacts } from "../partner-kit/index.js";
import { type EvaluatorSpec, evaluatorCheck, PATRONUS_CREDENTIALS } from "./evaluator-check.js";

/** A plain, polite answer: what every evaluator but the detectors passes. */
const PLAIN = { text: "The meeting moved to Thursday at ten.", verdict: true };

const judge = (id: string, name: string, criterion: string, description: string, example = PLAIN): EvaluatorSpec => ({
  id,
  name,
  description,
  evaluator: "judge",
  criteria: `patronus:${criterion}`,
  example,
});

const EVALUATORS: EvaluatorSpec[] = [
  {
    id: "phi",
    name: "Detect PHI",
    description: "Protected health information in the answer.",
    evaluator: "phi",
    spans: "PHI",
    example: { text: "Write to jane.doe@example.com for the refund.", verdict: false },
  },
  {
    id: "pii",
    name: "Detect PII",
    description: "Personally identifiable information in the answer.",
    evaluator: "pii",
    spans: "PII",
    example: { text: "Write to jane.doe@example.com for the refund.", verdict: false },
  },
  judge("isConcise", "Is concise", "is-concise", "The answer is clear and concise."),
  judge("isHelpful", "Is helpful", "is-helpful", "The answer is helpful in tone."),
  judge("isPolite", "Is polite", "is-polite", "The answer is polite.", { text: "Only an idiot would ask that.", verdict: false }),
  judge("noApologies", "No apologies", "no-apologies", "The answer does not apologise."),
  judge("noGenderBias", "No gender bias", "no-gender-bias", "The answer holds no gender stereotypes."),
  judge("noRacialBias", "No racial bias", "no-racial-bias", "The answer holds no racial stereotypes."),
  {
    id: "retrievalAnswerRelevance",
    name: "Answer relevance",
    description: "The answer is on topic for the question (not whether it is correct).",
    evaluator: "answer-relevance",
    example: PLAIN,
  },
  {
    id: "retrievalHallucination",
    name: "Hallucination",
    description: "The answer does not make up facts (Lynx).",
    evaluator: "hallucination",
    criteria: "patronus:hallucination",
    example: PLAIN,
  },
  {
    id: "toxicity",
    name: "Toxicity",
    description: "Abusive or hateful language in the answer.",
    evaluator: "toxicity",
    example: { text: "Only an idiot would ask that.", verdict: false },
  },
  {
    id: "custom",
    name: "Custom criteria",
    description: "A judge with your own criteria, by name.",
    evaluator: "judge",
    criteriaParameter: true,
    example: PLAIN,
  },
];

function facts(spec: EvaluatorSpec): PartnerCheckFacts {
  const by = spec.criteriaParameter
    ? "the judge with the given `criteria`"
    : `\`${spec.evaluator}\`${spec.criteria ? ` (\`${spec.criteria}\`)` : ""}`;
  return {
    verdict: `${by} does not pass (\`evaluation_result.pass\` false)${spec.spans ? ", unless `redact`" : ""}`,
    ...(spec.spans && { redaction: `the spans Patronus found (\`additional_info.positions\`), as \`[${spec.spans}]\`` }),
  };
}

/** The plugin with the facts the partner reference is generated from. */
export const partner = definePartner({
  vendor: "Patronus",
  reference:
    "Patronus Evaluate API (`POST /v1/evaluate`), as the OpenAPI description behind Patronus's official clients (patronus-api-node) gives it",
  plugin: definePlugin({
    id: "patronus",
    name: "Patronus",
    description: "Patronus AI's evaluators (PII, PHI, toxicity, judges of tone, bias and relevance) on the model's answer.",
    class: "PARTNER",
    apiVersion: 1,
    credentials: PATRONUS_CREDENTIALS,
    checks: EVALUATORS.map(evaluatorCheck),
  }),
  checks: Object.fromEntries(EVALUATORS.map((spec) => [spec.id, facts(spec)])),
});

/** The plugin itself: what the engine loads from this module. */
export default partner.plugin;
