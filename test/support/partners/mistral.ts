/**
 * Contract fake of Mistral's moderation endpoints. Follows the public documentation,
 * https://docs.mistral.ai/capabilities/guardrailing/ and the API reference
 * (https://docs.mistral.ai/api/#tag/classifiers): `POST /v1/moderations` with `{model, input:
 * [text]}` and `POST /v1/chat/moderations` with `{model, input: [[{role, content}]]}`, the key as a
 * bearer token; the answer `{id, model, results: [{categories, category_scores}]}`; errors as
 * `{object: "error", message, type, code}` (401 as `{detail}`).
 *
 * The conversational endpoint classifies the last message. Decisions: "stupid people" is
 * hate_and_discrimination, "kill" violence_and_threats, a diagnosis question ("diagnose") health.
 */
import { jsonBody, type PartnerFake, startPartnerFake } from "./fake.js";

/** The key the fake accepts. */
export const MISTRAL_KEY = "mistral-fake-key-0123456789";

const CATEGORIES = [
  "sexual",
  "hate_and_discrimination",
  "violence_and_threats",
  "dangerous_and_criminal_content",
  "selfharm",
  "health",
  "financial",
  "law",
  "pii",
];

function classify(text: string) {
  const scores: Record<string, number> = Object.fromEntries(CATEGORIES.map((c) => [c, 0.001]));
  if (/stupid people/i.test(text)) scores.hate_and_discrimination = 0.83;
  if (/\bkill\b/i.test(text)) scores.violence_and_threats = 0.9;
  if (/diagnose/i.test(text)) scores.health = 0.7;
  return { categories: Object.fromEntries(CATEGORIES.map((c) => [c, (scores[c] ?? 0) > 0.5])), category_scores: scores };
}

/** Starts the fake. */
export function startMistralFake(): Promise<PartnerFake> {
  return startPartnerFake({
    authorized: (r) => r.headers.authorization === `Bearer ${MISTRAL_KEY}`,
    errorBody: (status, message) =>
      status === 401
        ? { detail: `Unauthorized: ${message}` }
        : { object: "error", message, type: "invalid_request_error", code: null },
    answer: (r) => {
      const body = jsonBody(r) as { model?: unknown; input?: unknown } | undefined;
      if (r.method !== "POST") return { status: 405, body: { detail: "Method Not Allowed" } };
      if (typeof body?.model !== "string")
        return {
          status: 422,
          body: { object: "error", message: "model: field required", type: "invalid_request_error", code: null },
        };
      let texts: string[];
      if (r.url === "/v1/moderations") {
        const input = typeof body.input === "string" ? [body.input] : body.input;
        if (!Array.isArray(input) || !input.every((i) => typeof i === "string")) {
          return {
            status: 422,
            body: {
              object: "error",
              message: "input: must be a string or a list of strings",
              type: "invalid_request_error",
              code: null,
            },
          };
        }
        texts = input;
      } else if (r.url === "/v1/chat/moderations") {
        const conversations = Array.isArray(body.input) && Array.isArray(body.input[0]) ? body.input : [body.input];
        const valid = conversations.every(
          (c) =>
            Array.isArray(c) && c.length > 0 && c.every((m) => typeof m?.role === "string" && typeof m?.content === "string"),
        );
        if (!valid)
          return {
            status: 422,
            body: {
              object: "error",
              message: "input: a list of messages is required",
              type: "invalid_request_error",
              code: null,
            },
          };
        texts = (conversations as Array<Array<{ content: string }>>).map((c) => c.at(-1)?.content ?? "");
      } else return { status: 404, body: { detail: "Not Found" } };
      return {
        status: 200,
        headers: { "x-request-id": "mistral-req-1" },
        body: { id: "mod-fake-1", model: body.model, results: texts.map(classify) },
      };
    },
  });
}
