/**
 * Qualifire's evaluations as checks: each posts the prompt (and, on the output side, the answer) to
 * `POST /api/evaluation/evaluate` with one evaluation switched on, and Qualifire's `status` decides
 * (`success` passes). The checks differ only in the switch, their sides and parameters, so they are
 * declared as data (qualifire/index.ts) and built here.
 */
import { locateText, type CheckDefinition, defineCheck, type JsonSchema, type Side } from "../../core/index.js";
import {
  baseUrlCredential,
  callFacts,
  callPartner,
  decisionData,
  nothingToEvaluate,
  PARTNER_DATA,
  type PartnerService,
  partnerBaseUrl,
  partnerNotes,
  requiredCredential,
  requiredField,
  TIMEOUT_PARAMETER,
} from "../partner-kit/index.js";

export const QUALIFIRE: PartnerService = { id: "qualifire", name: "Qualifire" };
const DEFAULT_BASE = "https://proxy.qualifire.ai";

/** Credentials of the Qualifire plugin. */
export const QUALIFIRE_CREDENTIALS: JsonSchema = {
  type: "object",
  properties: {
    apiKey: { type: "string", minLength: 1, description: "A Qualifire API key (app.qualifire.ai, settings, API keys)." },
    baseURL: baseUrlCredential(DEFAULT_BASE),
  },
  required: ["apiKey"],
};

/** One Qualifire evaluation. */
export interface EvaluationSpec {
  id: string;
  name: string;
  description: string;
  sides: readonly Side[];
  /** The body field that switches the evaluation on; `assertions` takes the `policies` parameter. */
  flag: string;
  /** The text of the check's example, and the verdict Qualifire gives on it. */
  example: { text: string; verdict: boolean };
}

interface Parameters {
  policies?: string[];
  timeout: number;
}

/** Builds the check of one evaluation. */
export function evaluationCheck(spec: EvaluationSpec): CheckDefinition<Parameters> {
  const policies = spec.flag === "assertions";
  return defineCheck<Parameters>({
    id: spec.id,
    name: spec.name,
    description: spec.description,
    sides: spec.sides,
    kind: "model",
    parameters: {
      type: "object",
      properties: {
        ...(policies && {
          policies: {
            type: "array",
            items: { type: "string", minLength: 1 },
            minItems: 1,
            description: "The policies to check against, e.g. 'The model cannot offer a discount'.",
          },
        }),
        timeout: TIMEOUT_PARAMETER,
      },
      ...(policies && { required: ["policies"] }),
      additionalProperties: false,
    },
    data: {
      ...PARTNER_DATA,
      status: { type: "string", description: "Qualifire's status: success or failed." },
      score: { type: "number", description: "Qualifire's overall score." },
      evaluations: { type: "object[]", description: "Qualifire's evaluation results, without the evaluated text." },
    },
    examples: [
      {
        parameters: policies ? { policies: ["The model cannot offer a discount"] } : {},
        description: spec.name,
        ...spec.example,
      },
    ],
    notes: partnerNotes(
      QUALIFIRE.name,
      QUALIFIRE.id,
      `Posts \`{input, output, ${policies ? "assertions: policies" : `${spec.flag}: true`}}\` to
\`https://proxy.qualifire.ai/api/evaluation/evaluate\` (\`output\` on the output side only). The check passes
when \`status\` is \`success\`.`,
    ),
    async run(context, p) {
      if (context.text.trim() === "") return nothingToEvaluate(QUALIFIRE.name);
      const key = requiredCredential(QUALIFIRE, context.credentials, ["apiKey"]);
      const output = context.side === "output";
      const answer = await callPartner(context, QUALIFIRE, {
        url: `${partnerBaseUrl(QUALIFIRE, context.credentials, DEFAULT_BASE)}/api/evaluation/evaluate`,
        headers: { "x-qualifire-api-key": key },
        json: {
          input: output ? locateText("input", context.requestType, context.request).text : context.text,
          ...(output && { output: context.text }),
          [spec.flag]: policies ? p.policies : true,
        },
        timeout: p.timeout,
      });
      const status = requiredField(QUALIFIRE, answer.body, ["status"], "string");
      const body = answer.body as { score?: unknown; evaluationResults?: unknown };
      const verdict = status === "success";
      return {
        verdict,
        data: {
          verdict,
          explanation: verdict ? `Qualifire's ${spec.name} passed` : `Qualifire's ${spec.name} failed`,
          status,
          ...(typeof body.score === "number" && { score: body.score }),
          ...(Array.isArray(body.evaluationResults) && { evaluations: decisionData(body.evaluationResults, context.text) }),
          ...callFacts(answer),
        },
      };
    },
  });
}
