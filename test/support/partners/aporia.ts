/**
 * Contract fake of Aporia Guardrails' REST API, after Aporia's documentation
 * (gr-docs.aporia.com/fundamentals/integration/rest-api, `POST https://gr-prd.aporia.com/<PROJECT_ID>/validate`):
 * `X-APORIA-API-KEY` header; a body with OpenAI-style `messages`, `validation_target` (`prompt`,
 * `response` or `both`), `response` (required when the target includes the response), `explain`;
 * an answer with `action` (`passthrough`, `block`, `modify`, `rephrase`), `revised_response`,
 * `explain_log` and `policy_execution_result`.
 *
 * Triggers: an instruction override is blocked; an insult makes the policy rephrase.
 */
import { jsonBody, type PartnerFake, startPartnerFake } from "./fake.js";
import { header, INJECTION, TOXIC } from "./triggers.js";

/** The key and project the fake accepts. */
export const APORIA_KEY = "aporia-fake-key-9012";
export const APORIA_PROJECT = "proj-1234";

/** The projects that exist: the tests' own, and the one the check's documented example names. */
const PROJECTS = [APORIA_PROJECT, "a1b2c3d4"];

interface Validate {
  messages?: Array<{ role?: string; content?: unknown }>;
  validation_target?: string;
  response?: string;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (p as { text?: string }).text ?? "").join("\n");
  return "";
}

/** Starts the fake. */
export function startAporiaFake(): Promise<PartnerFake> {
  return startPartnerFake({
    authorized: (request) => header(request.headers, "x-aporia-api-key") === APORIA_KEY,
    errorBody: (_status, message) => ({ detail: message }),
    answer: (request) => {
      if (request.method !== "POST" || !PROJECTS.some((project) => request.url === `/${project}/validate`)) {
        return { status: 404, body: { detail: "Project not found" } };
      }
      const body = jsonBody(request) as Validate | undefined;
      if (!Array.isArray(body?.messages) || !["prompt", "response", "both"].includes(String(body.validation_target))) {
        return { status: 422, body: { detail: "messages and validation_target are required" } };
      }
      if (body.validation_target !== "prompt" && typeof body.response !== "string") {
        return { status: 422, body: { detail: "response is required when validation_target includes the response" } };
      }
      const target = body.validation_target === "prompt" ? "prompt" : "response";
      const text = target === "prompt" ? textOf(body.messages.at(-1)?.content) : (body.response ?? "");
      const action = INJECTION.test(text) ? "block" : TOXIC.test(text) ? "rephrase" : "passthrough";
      const policy = action === "block" ? "prompt_injection" : "toxicity";
      const revised =
        action === "block" ? "Sorry, I can't help with that." : action === "rephrase" ? "Let's keep it friendly." : null;
      return {
        status: 200,
        body: {
          action,
          revised_response: revised,
          explain_log: [
            { policy_id: `${policy}-001`, target, result: action === "passthrough" ? "passed" : "issue_detected", details: {} },
          ],
          policy_execution_result: {
            policy_log: [{ policy_id: `${policy}-001`, policy_type: policy, target }],
            action: { type: action, revised_message: revised },
          },
        },
      };
    },
  });
}
