/**
 * The escalation cascade of `model.promptInjection`: a text whose local score falls in an
 * uncertain band is handed to a second stage (an ONNX classifier folder, or an LLM judge), whose
 * verdict then decides. Texts scored clearly benign or clearly hostile never pay for the second
 * stage, which is the point: the local model is cheap, the second stage is not.
 */
import classifier from "../checks/classifier.js";
import llmJudge from "../checks/llmJudge.js";
import type { CheckContext, CheckKind, CheckOutcome, JsonSchema, ParameterProblem } from "../../../core/index.js";

/** The second stage: exactly one of the two. */
export interface Escalation {
  /** Scores from `band[0]` (inclusive) to `band[1]` (exclusive) go to the second stage. */
  band: [number, number];
  classifier?: { model: string; failLabels: string[]; threshold: number; maxTokens: number };
  llmJudge?: { model: string; provider?: string; maxTextChars: number };
}

/** One stage's say, as the result reports it. */
export interface StageResult {
  stage: "model.promptInjection" | "model.classifier" | "model.llmJudge";
  score: number;
  verdict: boolean;
  /** The model folder or `@slug/model` of a second stage. */
  model?: string;
  /** The second stage's own result data (labels, windows, the judge's reason and usage). */
  data?: Record<string, unknown>;
}

/**
 * Where the band lies by default: below 0.3 the local model's benign calls are rarely wrong, and
 * at 0.95 or above its injection calls rarely are (docs/models.md, "Escalation"), so only the
 * texts in between pay for the second stage.
 */
export const DEFAULT_BAND: readonly [number, number] = [0.3, 0.95];

/** The JSON Schema of the `escalate` parameter. */
export const ESCALATE_SCHEMA: JsonSchema = {
  type: "object",
  description:
    "Send texts whose score falls in an uncertain band to a second stage, whose verdict decides: an ONNX text classifier (`classifier`, as model.classifier) or an LLM judge (`llmJudge`, the promptInjection rubric). Give exactly one; docs/models-escalation.md has the details and measured traffic.",
  properties: {
    band: {
      type: "array",
      items: { type: "number", minimum: 0, maximum: 1 },
      minItems: 2,
      maxItems: 2,
      default: [...DEFAULT_BAND],
      description:
        "[from, to]: a score at or above `from` and below `to` is escalated; below `from` the text passes, at or above `to` it fails, without a second stage. The threshold must lie inside.",
    },
    classifier: {
      type: "object",
      description: "A model.classifier folder as the second stage.",
      properties: {
        model: {
          type: "string",
          minLength: 1,
          description: "A model folder (a path with a `/`) or a name declared under `models:` in the gateway config file.",
        },
        failLabels: {
          type: "array",
          items: { type: "string", minLength: 1 },
          minItems: 1,
          uniqueItems: true,
          description: 'Labels of the model that mean injection, e.g. `["MALICIOUS"]` (Prompt Guard 2) or `["INJECTION"]`.',
        },
        threshold: { type: "number", minimum: 0, maximum: 1, default: 0.5, description: "A fail label's score that fails." },
        maxTokens: { type: "integer", minimum: 8, maximum: 8192, default: 512, description: "Longest window fed to the model." },
      },
      required: ["model", "failLabels"],
      additionalProperties: false,
    },
    llmJudge: {
      type: "object",
      description: "A model.llmJudge call with the promptInjection rubric as the second stage.",
      properties: {
        model: { type: "string", minLength: 1, description: "`@<provider_slug>/<model>`, or a model name with `provider`." },
        provider: { type: "string", pattern: "^@[A-Za-z0-9][A-Za-z0-9_.-]*$", description: "`@<provider_slug>` of the judge." },
        maxTextChars: {
          type: "integer",
          minimum: 1,
          maximum: 1_000_000,
          default: 32_000,
          description: "Longest text sent to the judge; a longer escalated text is a check error.",
        },
      },
      required: ["model"],
      additionalProperties: false,
    },
  },
  additionalProperties: false,
};

/** What is wrong with an `escalate` parameter, for the check's load-time validation. */
export function escalationProblem(escalate: Escalation, threshold: number | undefined): ParameterProblem | undefined {
  const [from, to] = escalate.band;
  if (from >= to) return { parameter: "escalate", message: `band: from (${from}) must be below to (${to})` };
  if (threshold !== undefined && (threshold < from || threshold > to)) {
    return { parameter: "threshold", message: `${threshold} lies outside escalate.band [${from}, ${to}]; the band must hold it` };
  }
  if ((escalate.classifier === undefined) === (escalate.llmJudge === undefined)) {
    return { parameter: "escalate", message: "give exactly one second stage: classifier or llmJudge" };
  }
  if (escalate.llmJudge) {
    const problem = llmJudge.validate?.(judgeParameters(escalate.llmJudge));
    if (problem) return { parameter: "escalate", message: `llmJudge.${problem.parameter ?? "model"}: ${problem.message}` };
  }
  return undefined;
}

/** What an escalating check becomes: a model's kind and a worker thread, or a network call. */
export function escalationProfile(escalate: Escalation | undefined): { kind: CheckKind; runsInPool?: boolean } | undefined {
  if (escalate?.classifier) return { kind: "model", runsInPool: true };
  if (escalate?.llmJudge) return { kind: "network" };
  return undefined;
}

function judgeParameters(judge: NonNullable<Escalation["llmJudge"]>) {
  return {
    rubric: "promptInjection" as const,
    model: judge.model,
    ...(judge.provider !== undefined && { provider: judge.provider }),
    maxTokens: 256,
    maxTextChars: judge.maxTextChars,
    cache: true,
  };
}

/** Runs the second stage on the text; its verdict and its score for injection. */
async function secondStage(context: CheckContext, escalate: Escalation): Promise<StageResult> {
  if (escalate.classifier) {
    const stage = escalate.classifier;
    const outcome = await classifier.run(context, stage);
    const scores = (outcome.data?.scores ?? {}) as Record<string, number>;
    const score = Math.max(...stage.failLabels.map((label) => scores[label] ?? 0));
    return { stage: "model.classifier", model: stage.model, score, verdict: outcome.verdict, data: stageData(outcome) };
  }
  const judge = escalate.llmJudge as NonNullable<Escalation["llmJudge"]>;
  const outcome = await llmJudge.run(context, judgeParameters(judge));
  return {
    stage: "model.llmJudge",
    model: String(outcome.data?.model),
    score: Number(outcome.data?.score),
    verdict: outcome.verdict,
    data: stageData(outcome),
  };
}

/** A second stage's data without what the first stage's result already holds. */
function stageData(outcome: CheckOutcome): Record<string, unknown> {
  const { textExcerpt: _excerpt, ...rest } = outcome.data ?? {};
  return rest;
}

/**
 * The first stage's outcome when its score lies outside the band, else the second stage's
 * verdict; either way the data says which stage decided (`decidedBy`) and each stage's score
 * (`stages`). A second stage that cannot decide throws: an escalated text is never passed on
 * the first stage's word alone.
 */
export async function escalateUncertain(context: CheckContext, first: CheckOutcome, escalate: Escalation): Promise<CheckOutcome> {
  const data = first.data ?? {};
  const score = Number(data.score);
  const [from, to] = escalate.band;
  const local: StageResult = { stage: "model.promptInjection", score, verdict: first.verdict };
  if (score < from || score >= to) {
    // Outside the band its edges decide. They agree with the threshold when it lies inside the
    // band: the default band holds the shipped threshold, and an explicit one is held to it.
    const verdict = score < from;
    return {
      ...first,
      verdict,
      data: {
        ...data,
        label: verdict ? "benign" : "injection",
        verdict,
        escalated: false,
        decidedBy: local.stage,
        stages: [{ ...local, verdict }],
        explanation: `${String(data.explanation)} Outside the escalation band [${from}, ${to}): ${verdict ? "passed" : "failed"} on this score alone.`,
      },
    };
  }
  const second = await secondStage(context, escalate);
  const who = second.stage === "model.classifier" ? `${second.stage} (${second.model})` : `${second.stage} ${second.model}`;
  return {
    ...first,
    verdict: second.verdict,
    data: {
      ...data,
      label: second.verdict ? "benign" : "injection",
      verdict: second.verdict,
      escalated: true,
      decidedBy: second.stage,
      stages: [local, second],
      explanation: `Prompt-injection score ${score.toFixed(3)} is in the escalation band [${from}, ${to}); ${who} decided: ${String(second.data?.explanation)}`,
    },
  };
}
