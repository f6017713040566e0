/**
 * Contract fake of Pangea's AI Guard and Redact services, after Pangea's API reference
 * (pangea.cloud/docs/api/ai-guard, `POST /v1/text/guard`; pangea.cloud/docs/api/redact,
 * `POST /v1/redact`): bearer token, the Pangea standard envelope (`request_id`, `request_time`,
 * `response_time`, `status`, `summary`, `result`), detectors keyed by name with `detected` and
 * `data`, the guarded text in `result.prompt_text`, and the redacted text in
 * `result.redacted_text`. Errors use the same envelope with a non-"Success" status and
 * `result.errors`.
 *
 * Triggers: an instruction override is a prompt injection (blocked); an e-mail address is PII,
 * which the recipe redacts to `<EMAIL_ADDRESS>`.
 */
import { emails, header, INJECTION, startVendorFake, type VendorFake } from "./vendor-fake.js";

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

/** A Pangea error answer, as every Pangea service sends it. */
export function pangeaError(
  status: string,
  summary: string,
  errors: Array<{ code: string; detail: string; source: string }> = [],
) {
  return envelope(status, summary, errors.length > 0 ? { errors } : null);
}

function redactEmails(text: string): string {
  return text.replace(/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, "<EMAIL_ADDRESS>");
}

/** Starts the fake; both services answer on one origin. */
export function startPangeaFake(): Promise<VendorFake> {
  return startVendorFake({
    authorized: (request) => header(request, "authorization") === `Bearer ${PANGEA_TOKEN}`,
    unauthorized: { status: 401, body: pangeaError("Unauthorized", "Not authorized to access this resource") },
    routes: {
      "POST /v1/text/guard": (body) => {
        const text = (body as { text?: unknown })?.text;
        if (typeof text !== "string" || text === "") {
          return {
            status: 400,
            body: pangeaError("ValidationError", "There was 1 error(s) in the given payload.", [
              { code: "RequiredField", detail: "'text' or 'messages' is required", source: "/" },
            ]),
          };
        }
        const injection = INJECTION.test(text);
        const found = emails(text);
        const redacted = redactEmails(text);
        const recipe = (body as { recipe?: string }).recipe ?? "pangea_prompt_guard";
        return {
          status: 200,
          body: envelope("Success", injection ? "Prompt Injection was detected and blocked." : "No detections.", {
            recipe,
            blocked: injection,
            transformed: found.length > 0,
            prompt_text: redacted,
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
      },
      "POST /v1/redact": (body) => {
        const text = (body as { text?: unknown })?.text;
        if (typeof text !== "string") {
          return {
            status: 400,
            body: pangeaError("ValidationError", "There was 1 error(s) in the given payload.", [
              { code: "RequiredField", detail: "'text' is required", source: "/" },
            ]),
          };
        }
        const found = emails(text);
        return {
          status: 200,
          body: envelope(
            "Success",
            found.length > 0 ? `Success. Redacted ${found.length} item(s) from text` : "Success. No items redacted",
            {
              redacted_text: redactEmails(text),
              count: found.length,
            },
          ),
        };
      },
    },
  });
}
