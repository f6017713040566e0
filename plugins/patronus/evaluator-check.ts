/**
 * One Patronus evaluator as a check: every `patronus.*` check posts the prompt and the model's
 * answer to the Evaluate API (`POST /v1/evaluate`) with one evaluator, and Patronus's `pass`
 * decides. The checks differ only in the evaluator and criteria they name, so each is declared as
 * data (patronus/index.ts) and built here.
 */
import { locateText } from "../../core/content.js";
import { type CheckDefinition, type CheckContext, defineCheck, type JsonSchema } from "../../core/plugin-api.js";
import { callVendor, missingField, VendorError } from "../partner-call-draft.js";

export const VENDOR = "Patronus";
const DEFAULT_BASE = "https://api.patronus.ai";

/** Credentials of the Patronus plugin. */
export const PATRONUS_CREDENTIALS: JsonSchema = {
  type: "object",
  properties: {
    apiKey: { type: "string", minLength: 1, description: "A Patronus API key (app.patronus.ai → API keys)." },
    baseURL: { type: "string", format: "uri", description: `Replaces ${DEFAULT_BASE}.` },
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
}

interface Parameters {
  criteria?: string;
  profile?: string;
  redact?: boolean;
}

interface EvaluationResult {
  pass?: unknown;
  score_raw?: unknown;
  explanation?: unknown;
  id?: unknown;
  additional_info?: { positions?: unknown };
}

/** The text with each [start, end) span replaced by `mask`, spans taken last to first. */
function maskSpans(text: string, spans: Array<[number, number]>, mask: string): string {
  let out = text;
  for (const [start, end] of [...spans].sort((a, b) => b[0] - a[0])) {
    if (start >= 0 && end <= out.length && start < end) out = `${out.slice(0, start)}${mask}${out.slice(end)}`;
  }
  return out;
}

function validSpans(positions: unknown): Array<[number, number]> {
  if (!Array.isArray(positions)) return [];
  return positions.filter(
    (p): p is [number, number] => Array.isArray(p) && p.length === 2 && Number.isInteger(p[0]) && Number.isInteger(p[1]),
  );
}

async function evaluate(context: CheckContext, evaluator: string, criteria: string | undefined) {
  const credentials = context.credentials as { apiKey: string; baseURL?: string };
  const base = (credentials.baseURL ?? DEFAULT_BASE).replace(/\/+$/, "");
  const input = locateText("input", context.requestType, context.request).text;
  const answer = await callVendor(context, {
    vendor: VENDOR,
    url: `${base}/v1/evaluate`,
    headers: { "x-api-key": credentials.apiKey },
    body: {
      evaluators: [{ evaluator, ...(criteria && { criteria }), explain_strategy: "always" }],
      task_input: input,
      task_output: context.text,
    },
  });
  const results = (answer.json as { results?: unknown })?.results;
  if (!Array.isArray(results) || results.length === 0) throw missingField(VENDOR, "results");
  const first = results[0] as {
    status?: unknown;
    error_message?: unknown;
    evaluator_id?: unknown;
    evaluation_result?: EvaluationResult | null;
  };
  if (first.status !== "success" || typeof first.error_message === "string") {
    throw new VendorError(
      "vendor_failed",
      `${VENDOR} could not evaluate with ${evaluator}: ${String(first.error_message ?? first.status)}`,
    );
  }
  const result = first.evaluation_result;
  if (!result || typeof result.pass !== "boolean") throw missingField(VENDOR, "results[0].evaluation_result.pass");
  return { result, evaluatorId: first.evaluator_id, latencyMs: answer.latencyMs };
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
    properties.redact = {
      type: "boolean",
      default: false,
      description: `Mask what the evaluator found with [${spec.spans}] and pass.`,
    };
  }
  return defineCheck<Parameters>({
    id: spec.id,
    name: spec.name,
    description: spec.description,
    sides: ["output"],
    kind: "model",
    ...(spec.spans && { transforms: true }),
    parameters: { type: "object", properties, additionalProperties: false },
    data: {
      evaluator: { type: "string", description: "The Patronus evaluator that ran." },
      criteria: { type: "string", description: "Its criteria." },
      pass: { type: "boolean", description: "Patronus's verdict." },
      score: { type: "number", description: "The evaluator's raw score." },
      explanation: { type: "string", description: "Patronus's explanation of the verdict." },
      ...(spec.spans && { spans: { type: "number", description: "How many spans the evaluator found." } }),
      latencyMs: { type: "number", description: "Time of the call to Patronus." },
    },
    validate: (p) =>
      !spec.criteriaParameter || p.criteria || p.profile
        ? undefined
        : { parameter: "criteria", message: "is required: name the criteria to judge by" },
    async run(context, p) {
      const criteria = spec.criteria ?? p.criteria ?? p.profile;
      const { result, evaluatorId, latencyMs } = await evaluate(context, spec.evaluator, criteria);
      const spans = validSpans(result.additional_info?.positions);
      const redacted = Boolean(spec.spans && p.redact && result.pass === false && spans.length > 0);
      return {
        verdict: result.pass === true || redacted,
        data: {
          evaluator: typeof evaluatorId === "string" ? evaluatorId : spec.evaluator,
          ...(criteria && { criteria }),
          pass: result.pass,
          ...(typeof result.score_raw === "number" && { score: result.score_raw }),
          ...(typeof result.explanation === "string" && { explanation: result.explanation }),
          ...(typeof result.id === "string" && { evaluationId: result.id }),
          ...(spec.spans && { spans: spans.length }),
          latencyMs,
        },
        ...(redacted && { transformedText: maskSpans(context.text, spans, `[${spec.spans}]`) }),
      };
    },
  });
}
