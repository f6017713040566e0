/**
 * Contract fake of Patronus's Evaluate API, after the OpenAPI description that generates
 * Patronus's official clients (patronus-api-node, `src/resources/evaluations.ts`:
 * `POST /v1/evaluate`): `X-API-KEY` header; a body with `evaluators: [{evaluator, criteria?,
 * explain_strategy?}]` and `task_input` / `task_output` / `task_context`; an answer
 * `{results: [{evaluator_id, criteria, status, error_message, evaluation_result: {pass, score_raw,
 * explanation, additional_info: {positions, extra, confidence_interval}, ...}}]}`. A request with
 * neither input nor output is a 422, as the API documents.
 *
 * Triggers: `pii`/`phi` fail on an e-mail address (its span in `positions`); `toxicity` and the
 * judge criteria fail on an insult.
 */
import { emails, header, startVendorFake, TOXIC, type VendorFake } from "./vendor-fake.js";

/** The key the fake accepts. */
export const PATRONUS_KEY = "patronus-fake-key-5678";

interface Evaluator {
  evaluator?: string;
  criteria?: string | null;
}

/** Starts the fake. */
export function startPatronusFake(): Promise<VendorFake> {
  return startVendorFake({
    authorized: (request) => header(request, "x-api-key") === PATRONUS_KEY,
    unauthorized: { status: 401, body: { detail: "Invalid API key" } },
    routes: {
      "POST /v1/evaluate": (raw) => {
        const body = raw as { evaluators?: Evaluator[]; task_input?: string; task_output?: string };
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
          if (e.evaluator === "broken") {
            return {
              evaluator_id: "broken",
              criteria: null,
              status: "failure",
              error_message: "evaluator unavailable",
              evaluation_result: null,
            };
          }
          const spans = e.evaluator === "pii" || e.evaluator === "phi" ? emails(output) : [];
          const fails = e.evaluator === "pii" || e.evaluator === "phi" ? spans.length > 0 : TOXIC.test(output);
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
              additional_info: {
                positions: spans.map((s) => [s.start, s.end]),
                extra: null,
                confidence_interval: null,
              },
            },
          };
        });
        return { status: 200, body: { results } };
      },
    },
  });
}
