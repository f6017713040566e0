/**
 * Contract fake of the OpenAI moderation endpoint. Follows the public API reference,
 * https://platform.openai.com/docs/api-reference/moderations/create: `POST /v1/moderations` with
 * `Authorization: Bearer <key>` and `{model, input}`; the answer `{id, model, results: [{flagged,
 * categories, category_scores, category_applied_input_types}]}`; errors as `{error: {message,
 * type, param, code}}`. Categories are decided from marker words in the input: "kill" is
 * violence (0.91), "idiot" is harassment (0.62), "worthless" is harassment (0.35, under
 * OpenAI's own flagging threshold).
 */
import { jsonBody, type PartnerFake, startPartnerFake } from "./fake.js";

/** The key the fake accepts. */
export const OPENAI_KEY = "sk-fake-openai-0123456789abcdef";

const CATEGORIES = [
  "harassment",
  "harassment/threatening",
  "hate",
  "hate/threatening",
  "illicit",
  "illicit/violent",
  "self-harm",
  "self-harm/intent",
  "self-harm/instructions",
  "sexual",
  "sexual/minors",
  "violence",
  "violence/graphic",
];

function error(message: string, type: string, code: string | null) {
  return { error: { message, type, param: null, code } };
}

function moderate(text: string) {
  const scores: Record<string, number> = Object.fromEntries(CATEGORIES.map((c) => [c, 0.0001]));
  if (/\bkill\b/i.test(text)) scores.violence = 0.91;
  if (/\bidiot\b/i.test(text)) scores.harassment = 0.62;
  if (/\bworthless\b/i.test(text)) scores.harassment = 0.35;
  const categories = Object.fromEntries(CATEGORIES.map((c) => [c, (scores[c] ?? 0) >= 0.5]));
  return {
    flagged: Object.values(categories).some(Boolean),
    categories,
    category_scores: scores,
    category_applied_input_types: Object.fromEntries(CATEGORIES.map((c) => [c, ["text"]])),
  };
}

/** Starts the fake. */
export function startOpenAIFake(): Promise<PartnerFake> {
  return startPartnerFake({
    authorized: (r) => r.headers.authorization === `Bearer ${OPENAI_KEY}`,
    errorBody: (status, message) =>
      status === 401
        ? error(`Incorrect API key provided. ${message}`, "invalid_request_error", "invalid_api_key")
        : status === 429
          ? error(`Rate limit reached. ${message}`, "requests", "rate_limit_exceeded")
          : error(message, status >= 500 ? "server_error" : "invalid_request_error", null),
    answer: (r) => {
      if (r.method !== "POST" || r.url !== "/v1/moderations") {
        return { status: 404, body: error(`Invalid URL (${r.method} ${r.url})`, "invalid_request_error", null) };
      }
      const body = jsonBody(r) as { model?: unknown; input?: unknown } | undefined;
      const inputs = typeof body?.input === "string" ? [body.input] : body?.input;
      if (!Array.isArray(inputs) || !inputs.every((i) => typeof i === "string")) {
        return { status: 400, body: error("'input' is a required property", "invalid_request_error", null) };
      }
      return {
        status: 200,
        headers: { "x-request-id": "req_fake_openai_1" },
        body: { id: "modr-fake-1", model: body?.model ?? "omni-moderation-latest", results: inputs.map((i) => moderate(i)) },
      };
    },
  });
}
