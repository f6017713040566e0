/**
 * One Patronus evaluator as a check: every `patronus.*` check posts the prompt and the model's
 * answer to the Evaluate API (`POST /v1/evaluate`) with one evaluator, and Patronus's `pass`
 * decides. The checks differ only in the evaluator and criteria they name, so each is declared as
 * data (patronus/index.ts) and built here.
 */
import { locateText, type CheckContext, type CheckDefinition, defineCheck, type JsonSchema } from "../../core/index.js";
import {
  baseUrlCredential,
  callPartner,
  type LabelledSpan,
  maskSpans,
  nothingToEvaluate,
  PARTNER_DATA,
  PartnerError,
  type PartnerService,
  partnerBaseUrl,
  partnerNotes,
  REDACT_PARAMETER,
  redactionOutcome,
  requiredCredential,
  requiredField,
  TIMEOUT_PARAMETER,
} from "../partner-kit/index.js";

export const PATRONUS: PartnerService = { id: "patronus", name: "Patronus" };
const DEFAULT_BASE = "https://api.patronus.ai";

/** Credentials of the Patronus plugin. */
export const PATRONUS_CREDENTIALS: JsonSchema = {
  type: "object",
  properties: {
    apiKey: { type: "string", minLength: 1, description: "A Patronus API key (app.patronus.ai, API keys)." },
    baseURL: baseUrlCredential(DEFAULT_BASE),
  },
  required: ["apiKey"],
};

/** What distinguishes one evaluator check from another. */
export interface EvaluatorSpec {
  id: string;
  name: string;
  description: string;
  evaluator: string;
  /** The criteria Patronus parametrises the evaluator with, if any. */
  criteria?: string;
  /** The criteria come from the check's `criteria` parameter instead. */
  criteriaParameter?: boolean;
  /** The evaluator reports the spans it found (`additional_info.positions`), which `redact` masks. */
  spans?: string;
  /** The answer of the check's example, and the verdict Patronus gives on it. */
  example: { text: string; verdict: boolean };
}

interface Parameters {
  criteria?: string;
  profile?: string;
  redact?: boolean;
  timeout: number;
}

interface EvaluationResult {
  pass?: unknown;
  score_raw?: unknown;
  explanation?: unknown;
  id?: unknown;
  additional_info?: { positions?: unknown };
}

/** The spans of `additional_info.positions` (`[start, end]` pairs), labelled for masking. */
function spansOf(positions: unknown, label: string): LabelledSpan[] {
  if (!Array.isArray(positions)) return [];
  return positions
    .filter((p): p is [number, number] => Array.isArray(p) && p.length === 2 && Number.isInteger(p[0]) && Number.isInteger(p[1]))
    .map(([start, end]) => ({ start, end, label }));
}

async function evaluate(context: CheckContext, evaluator: string, criteria: string | undefined, timeout: number) {
  const key = requiredCredential(PATRONUS, context.credentials, ["apiKey"]);
  const answer = await callPartner(context, PATRONUS, {
    url: `${partnerBaseUrl(PATRONUS, context.credentials, DEFAULT_BASE)}/v1/evaluate`,
    headers: { "x-api-key": key },
    json: {
      evaluators: [{ evaluator, ...(criteria && { criteria }), explain_strategy: "always" }],
      task_input: locateText("input", context.requestType, context.request).text,
      task_output: context.text,
    },
    timeout,
  });
  const first = requiredField(PATRONUS, answer.body, ["results", 0], "object");
  if (first.status !== "success" || typeof first.error_message === "string") {
    throw new PartnerError(
      "partner_answer_invalid",
      `${PATRONUS.name} could not evaluate with ${evaluator}: ${String(first.error_message ?? first.status)}`,
    );
  }
  const pass = requiredField(PATRONUS, answer.body, ["results", 0, "evaluation_result", "pass"], "boolean");
  const result = first.evaluation_result as EvaluationResult;
  return { pass, result, evaluatorId: first.evaluator_id, latencyMs: answer.latencyMs, requestId: answer.requestId };
}

/** Builds the check for one evaluator. */
export function evaluatorCheck(spec: EvaluatorSpec): CheckDefinition<Parameters> {
  const properties: Record<string, unknown> = {};
  if (spec.criteriaParameter) {
    properties.criteria = {
      type: "string",
      minLength: 1,
      description: "The evaluator's criteria, e.g. patronus:is-concise or one of yours.",
    };
    properties.profile = { type: "string", minLength: 1, description: "Older name of `criteria`." };
  }
  if (spec.spans) {
    properties.redact = REDACT_PARAMETER;
  }
  properties.timeout = TIMEOUT_PARAMETER;
  return defineCheck<Parameters>({
    id: spec.id,
    name: spec.name,
    description: spec.description,
    sides: ["output"],
    kind: "model",
    ...(spec.spans && { transforms: true }),
    parameters: { type: "object", properties, additionalProperties: false },
    data: {
      ...PARTNER_DATA,
      evaluator: { type: "string", description: "The Patronus evaluator that ran." },
      criteria: { type: "string", description: "Its criteria." },
      pass: { type: "boolean", description: "Patronus's verdict." },
      score: { type: "number", description: "The evaluator's raw score." },
      ...(spec.spans && { spans: { type: "number", description: "How many spans the evaluator found." } }),
    },
    examples: [{ parameters: spec.criteriaParameter ? { criteria: "patronus:is-concise" } : {}, ...spec.example }],
    notes: partnerNotes(
      PATRONUS.name,
      PATRONUS.id,
      `Posts the request's last message (\`task_input\`) and the model's answer (\`task_output\`) to
Patronus's Evaluate API (\`POST /v1/evaluate\`) with the evaluator \`${spec.evaluator}\`${spec.criteria ? ` and the criteria \`${spec.criteria}\`` : ""}.
The check fails when \`results[0].evaluation_result.pass\` is false${spec.spans ? `; with \`redact\`, the spans in \`additional_info.positions\` are replaced by \`[${spec.spans}]\` and the check passes` : ""}.`,
    ),
    validate: (p) =>
      !spec.criteriaParameter || p.criteria || p.profile
        ? undefined
        : { parameter: "criteria", message: "is required: name the criteria to judge by" },
    async run(context, p) {
      if (context.text.trim() === "") return nothingToEvaluate(PATRONUS.name);
      const criteria = spec.criteria ?? p.criteria ?? p.profile;
      const { pass, result, evaluatorId, latencyMs, requestId } = await evaluate(context, spec.evaluator, criteria, p.timeout);
      const spans = spec.spans ? spansOf(result.additional_info?.positions, spec.spans) : [];
      const redacted = Boolean(p.redact) && !pass && spans.length > 0;
      const verdict = pass || redacted;
      const explanation = typeof result.explanation === "string" ? result.explanation : undefined;
      return {
        verdict,
        data: {
          verdict,
          ...(explanation && { explanation }),
          evaluator: typeof evaluatorId === "string" ? evaluatorId : spec.evaluator,
          ...(criteria && { criteria }),
          pass,
          ...(typeof result.score_raw === "number" && { score: result.score_raw }),
          ...(typeof result.id === "string" && { evaluationId: result.id }),
          ...(spec.spans && { spans: spans.length }),
          ...(requestId && { requestId }),
          latencyMs,
        },
        ...(redacted && redactionOutcome(context, maskSpans(context.text, spans))),
      };
    },
  });
}
