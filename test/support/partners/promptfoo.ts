/**
 * Contract fake of promptfoo's hosted guardrails API (`POST https://api.promptfoo.dev/v1/guard`,
 * `/v1/pii`, `/v1/harm`, no key), after promptfoo's guardrails documentation: a body `{input}`, an
 * answer `{model, results: [{categories, category_scores, flagged, payload?}]}`, where PII results
 * carry `payload.pii: [{entity_type, start, end, pii}]`.
 *
 * Triggers: an instruction override is a jailbreak; an insult is harassment; an e-mail address is
 * PII.
 */
import type { ReceivedRequest } from "../http-server.js";
import { jsonBody, type PartnerFake, startPartnerFake } from "./fake.js";
import { emails, INJECTION, TOXIC } from "./triggers.js";

function result(kind: string, input: string) {
  if (kind === "guard") {
    const jailbreak = INJECTION.test(input);
    return {
      categories: { prompt_injection: false, jailbreak },
      category_scores: { prompt_injection: 0.1, jailbreak: jailbreak ? 0.99 : 0.01 },
      flagged: jailbreak,
    };
  }
  if (kind === "harm") {
    const harassment = TOXIC.test(input);
    return {
      categories: { harassment, violent_crimes: false },
      category_scores: { harassment: harassment ? 0.9 : 0.01, violent_crimes: 0 },
      flagged: harassment,
    };
  }
  const found = emails(input);
  return {
    categories: { pii: found.length > 0 },
    category_scores: { pii: found.length > 0 ? 1 : 0 },
    flagged: found.length > 0,
    payload: { pii: found.map((f) => ({ entity_type: "email", start: f.start, end: f.end, pii: f.value })) },
  };
}

function answer(request: ReceivedRequest) {
  const match = /^\/v1\/(guard|pii|harm)$/.exec(request.url);
  if (request.method !== "POST" || !match) return { status: 404, body: { error: "Not Found" } };
  const input = (jsonBody(request) as { input?: unknown } | undefined)?.input;
  if (typeof input !== "string") return { status: 400, body: { error: "input is required" } };
  return { status: 200, body: { model: `promptfoo-${match[1]}`, results: [result(match[1] as string, input)] } };
}

/** Starts the fake; the service takes no key. */
export function startPromptfooFake(): Promise<PartnerFake> {
  return startPartnerFake({ authorized: () => true, errorBody: (_status, message) => ({ error: message }), answer });
}
