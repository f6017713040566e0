/**
 * Contract fake of Patronus's Evaluate API, after the OpenAPI description that generates
 * Patronus's official clients (patronus-api-node, `src/resources/evaluations.ts`,
 * `POST /v1/evaluate`): `X-API-KEY` header; a body with `evaluators: [{evaluator, criteria?,
 * explain_strategy?}]` and `task_input` / `task_output`; an answer `{results: [{evaluator_id,
 * criteria, status, error_message, evaluation_result: {pass, score_raw, explanation,
 * additional_info: {positions, extra, confidence_interval}, ...}}]}`. A request with neither input
 * nor output is a 422, as the API documents; errors are FastAPI's `{detail}`.
 *
 * Triggers: `pii` and `phi` fail on an e-mail address (its span in `positions`); every other
 * evaluator fails on an insult.
 */
import { jsonBody, type PartnerFake, startPartnerFake } from "./fake.js";
import { emails, header, TOXIC } from "./triggers.js";

/** The key the fake accepts. */
export const PATRONUS_KEY = "patronus-fake-key-5678";

interface Evaluate {
  evaluators?: Array<{ evaluator?: string; criteria?: string | null }>;
  task_input?: string;
  task_output?: string;
}

/** Starts the fake. */
export function startPatronusFake(): Promise<PartnerFake> {
  return startPartnerFake({
    authorized: (request) => header(request.headers, "x-api-key") === PATRONUS_KEY,
    errorBody: (_status, message) => ({ detail: message }),
    answer: (request) => {
      if (request.method !== "POST" || request.url !== "/v1/evaluate") return { status: 404, body: { detail: "Not Found" } };
      const body = jsonBody(request) as Evaluate | undefined;
      if (!Array.isArray(body?.evaluators) || body.evaluators.length === 0) {
        return {
          status: 422,
          body: { detail: [{ loc: ["body", "evaluators"], msg: "field required", type: "value_error.missing" }] },
        };
      }
      if (body.task_input == null && body.task_output == null) {
        return { status: 422, body: { detail: "Either input or output must be specified" } };
      }
      const output = body.task_output ?? "";
      const results = body.evaluators.map((e, index) => {
        const findsSpans = e.evaluator === "pii" || e.evaluator === "phi";
        const spans = findsSpans ? emails(output) : [];
        const fails = findsSpans ? spans.length > 0 : TOXIC.test(output);
        return {
          evaluator_id: `${e.evaluator}-large-2024-05-16`,
          criteria: e.criteria ?? null,
          status: "success",
          error_message: null,
          evaluation_result: {
            id: `eval-${index + 1}`,
            pass: !fails,
            score_raw: fails ? 0 : 1,
            explanation: fails ? "The output does not meet the criterion." : "The output meets the criterion.",
            evaluated_model_input: body.task_input ?? null,
            evaluated_model_output: output,
            additional_info: { positions: spans.map((s) => [s.start, s.end]), extra: null, confidence_interval: null },
          },
        };
      });
      return { status: 200, body: { results } };
    },
  });
}
