/**
 * Contract fake of Pangea's AI Guard and Redact services, after Pangea's API reference
 * (pangea.cloud/docs/api/ai-guard, `POST /v1/text/guard`; pangea.cloud/docs/api/redact,
 * `POST /v1/redact`): bearer token, the Pangea standard envelope (`request_id`, `request_time`,
 * `response_time`, `status`, `summary`, `result`), detectors keyed by name with `detected` and
 * `data`, the guarded text in `result.prompt_text`, the redacted text in `result.redacted_text`.
 * Errors use the same envelope with a status other than "Success" and `result.errors`.
 *
 * Triggers: an instruction override is a prompt injection (blocked); an e-mail address is PII,
 * which the recipe redacts to `<EMAIL_ADDRESS>`.
 */
import type { ReceivedRequest } from "../http-server.js";
import { jsonBody, type PartnerFake, startPartnerFake } from "./fake.js";
import { emails, header, INJECTION, maskEmails } from "./triggers.js";

/** The token the fake accepts. */
export const PANGEA_TOKEN = "pts_fake_pangea_token_1234";

let sequence = 0;

function envelope(status: string, summary: string, result: unknown) {
  sequence++;
  return {
    request_id: `prq_fake${sequence}`,
    request_time: "2026-01-01T00:00:00.000Z",
    response_time: "2026-01-01T00:00:00.050Z",
    status,
    summary,
    result,
  };
}

const STATUS_NAMES: Record<number, string> = {
  400: "ValidationError",
  401: "Unauthorized",
  403: "Forbidden",
  429: "TooManyRequests",
};

function validationError(detail: string) {
  return {
    status: 400,
    body: envelope("ValidationError", "There was 1 error(s) in the given payload.", {
      errors: [{ code: "RequiredField", detail, source: "/" }],
    }),
  };
}

function guard(request: ReceivedRequest) {
  const body = jsonBody(request) as { text?: unknown; recipe?: string } | undefined;
  const text = body?.text;
  if (typeof text !== "string" || text === "") return validationError("'text' or 'messages' is required");
  const injection = INJECTION.test(text);
  const found = emails(text);
  return {
    status: 200,
    body: envelope("Success", injection ? "Prompt Injection was detected and blocked." : "No detections.", {
      recipe: body?.recipe ?? "pangea_prompt_guard",
      blocked: injection,
      transformed: found.length > 0,
      prompt_text: maskEmails(text, "<EMAIL_ADDRESS>"),
      detectors: {
        prompt_injection: {
          detected: injection,
          data: injection ? { action: "blocked", analyzer_responses: [{ analyzer: "PA4002", confidence: 0.98 }] } : null,
        },
        pii_entity: {
          detected: found.length > 0,
          data:
            found.length > 0
              ? {
                  entities: found.map((f) => ({
                    type: "EMAIL_ADDRESS",
                    value: f.value,
                    action: "redacted:replaced",
                    start_pos: f.start,
                  })),
                }
              : null,
        },
        malicious_entity: { detected: false, data: null },
      },
    }),
  };
}

function redact(request: ReceivedRequest) {
  const text = (jsonBody(request) as { text?: unknown } | undefined)?.text;
  if (typeof text !== "string") return validationError("'text' is required");
  const count = emails(text).length;
  return {
    status: 200,
    body: envelope("Success", count > 0 ? `Success. Redacted ${count} item(s) from text` : "Success. No items redacted", {
      redacted_text: maskEmails(text, "<EMAIL_ADDRESS>"),
      count,
    }),
  };
}

/** Starts the fake; both services answer on one origin. */
export function startPangeaFake(): Promise<PartnerFake> {
  return startPartnerFake({
    authorized: (request) => header(request.headers, "authorization") === `Bearer ${PANGEA_TOKEN}`,
    errorBody: (status, message) => envelope(STATUS_NAMES[status] ?? "InternalError", message, null),
    answer: (request) => {
      if (request.method === "POST" && request.url === "/v1/text/guard") return guard(request);
      if (request.method === "POST" && request.url === "/v1/redact") return redact(request);
      return { status: 404, body: envelope("NotFound", `no route ${request.method} ${request.url}`, null) };
    },
  });
}
