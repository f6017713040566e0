/**
 * Contract fake of Aporia Guardrails' REST API, after Aporia's documentation
 * (gr-docs.aporia.com, "REST API": `POST https://gr-prd.aporia.com/<PROJECT_ID>/validate`):
 * `X-APORIA-API-KEY` header; a body with OpenAI-style `messages`, `validation_target` (`prompt`,
 * `response` or `both`), `response` (required when the target includes the response), `explain`;
 * an answer with `action` (`passthrough`, `block`, `modify`, `rephrase`), `revised_response`,
 * `explain_log` and `policy_execution_result`.
 *
 * Triggers: an instruction override is blocked; an insult makes the policy rephrase.
 */
import { header, INJECTION, startVendorFake, TOXIC, type VendorFake } from "./vendor-fake.js";

/** The key and project the fake accepts. */
export const APORIA_KEY = "aporia-fake-key-9012";
export const APORIA_PROJECT = "proj-1234";

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (p as { text?: string }).text ?? "").join("\n");
  return "";
}

/** Starts the fake. */
export function startAporiaFake(): Promise<VendorFake> {
  return startVendorFake({
    authorized: (request) => header(request, "x-aporia-api-key") === APORIA_KEY,
    unauthorized: { status: 401, body: { detail: "Unauthorized" } },
    routes: {
      "POST /*": (raw, _request, path) => {
        if (path !== `/${APORIA_PROJECT}/validate`) return { status: 404, body: { detail: "Project not found" } };
        const body = raw as {
          messages?: Array<{ role?: string; content?: unknown }>;
          validation_target?: string;
          response?: string;
        };
        if (!Array.isArray(body?.messages) || !["prompt", "response", "both"].includes(String(body.validation_target))) {
          return { status: 422, body: { detail: [{ loc: ["body"], msg: "messages and validation_target are required" }] } };
        }
        if (body.validation_target !== "prompt" && typeof body.response !== "string") {
          return { status: 422, body: { detail: "response is required when validation_target includes the response" } };
        }
        const text = body.validation_target === "prompt" ? textOf(body.messages.at(-1)?.content) : (body.response ?? "");
        const target = body.validation_target === "prompt" ? "prompt" : "response";
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
    },
  });
}
