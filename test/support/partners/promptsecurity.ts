/**
 * Contract fake of Prompt Security's protection API (`POST https://<region>.prompt.security/api/protect`
 * with an `APP-ID` header, as Prompt Security's integration guides for NeMo Guardrails and
 * LiteLLM describe it; the full reference is for customers only). A body carries `prompt` or
 * `response` (with `system_prompt`, `policy`, `user`, `user_groups`, `monitor_only`); the answer is
 * `{status, reason, result: {action, conversation_id, latency, prompt|response: {action, passed,
 * violations, findings, modified_text}}}`, `action` being `log`, `modify` or `block`.
 *
 * Triggers: an instruction override is blocked; an e-mail address is sanitised (`modify`, with
 * `modified_text`).
 */
import { jsonBody, type PartnerFake, startPartnerFake } from "./fake.js";
import { emails, header, INJECTION, maskEmails } from "./triggers.js";

/** The application id the fake accepts. */
export const PROMPT_SECURITY_APP_ID = "7f1c2d3e-fake-app-id-0001";

/** Starts the fake. */
export function startPromptSecurityFake(): Promise<PartnerFake> {
  return startPartnerFake({
    authorized: (request) => header(request.headers, "app-id") === PROMPT_SECURITY_APP_ID,
    errorBody: (_status, message) => ({ status: "failed", reason: message }),
    answer: (request) => {
      if (request.method !== "POST" || request.url !== "/api/protect")
        return { status: 404, body: { status: "failed", reason: "Not Found" } };
      const body = jsonBody(request) as { prompt?: unknown; response?: unknown; monitor_only?: boolean } | undefined;
      const target = typeof body?.prompt === "string" ? "prompt" : typeof body?.response === "string" ? "response" : undefined;
      if (!body || !target) return { status: 400, body: { status: "failed", reason: "either prompt or response is required" } };
      const text = String(body[target]);
      const injection = target === "prompt" && INJECTION.test(text);
      const found = emails(text);
      let action = injection ? "block" : found.length > 0 ? "modify" : "log";
      if (body.monitor_only) action = "log";
      const violations = [...(injection ? ["Prompt Injection Engine"] : []), ...(found.length > 0 ? ["Sensitive Data"] : [])];
      return {
        status: 200,
        body: {
          status: "success",
          reason: null,
          result: {
            action,
            conversation_id: "c6191fbe-0000-4a20-a112-27f50891cab9",
            latency: 41,
            monitor_only: Boolean(body.monitor_only),
            [target]: {
              action,
              passed: violations.length === 0,
              violations,
              findings: {
                ...(injection && { "Prompt Injection Engine": [{ score: 0.97 }] }),
                ...(found.length > 0 && {
                  "Sensitive Data": found.map((f) => ({
                    entity_type: "EMAIL_ADDRESS",
                    entity: f.value,
                    sanitized_entity: "EMAIL_ADDRESS_1",
                  })),
                }),
              },
              modified_text: action === "modify" ? maskEmails(text, "EMAIL_ADDRESS_1") : null,
            },
          },
        },
      };
    },
  });
}
