/**
 * Contract fake of Javelin's guardrail API (`POST https://<domain>/v1/guardrail/<guardrail>/apply`
 * with an `x-javelin-apikey` header and an optional `x-javelin-application`), as Javelin's
 * guardrails documentation and the peer gateway's plugin give it: a body `{input: {text}, config:
 * {threshold?}}`, an answer `{assessments: [{<guardrail>: {results: {categories, category_scores} |
 * {lang, prob}, config: {threshold_used}, request_reject}}]}`.
 *
 * Triggers: an insult is violence-free hate speech; an instruction override is a jailbreak; a
 * text starting "Hola" is Spanish.
 */
import { jsonBody, type PartnerFake, startPartnerFake } from "./fake.js";
import { header, INJECTION, TOXIC } from "./triggers.js";

/** The key the fake accepts. */
export const JAVELIN_KEY = "javelin-fake-key-8080";

function assessment(guardrail: string, text: string, threshold: number) {
  if (guardrail === "lang_detector") {
    const spanish = text.startsWith("Hola");
    return { results: { lang: spanish ? "es" : "en", prob: 0.97 }, request_reject: false };
  }
  const scores =
    guardrail === "trustsafety"
      ? {
          violence: 0.01,
          weapons: 0,
          hate_speech: TOXIC.test(text) ? 0.91 : 0.02,
          crime: 0,
          sexual: 0,
          profanity: TOXIC.test(text) ? 0.8 : 0,
        }
      : { prompt_injection: INJECTION.test(text) ? 0.6 : 0.05, jailbreak: INJECTION.test(text) ? 0.97 : 0.01 };
  const categories = Object.fromEntries(Object.entries(scores).map(([k, v]) => [k, v >= threshold]));
  return {
    results: { categories, category_scores: scores },
    config: { threshold_used: threshold },
    request_reject: Object.values(categories).some(Boolean),
  };
}

/** Starts the fake. */
export function startJavelinFake(): Promise<PartnerFake> {
  return startPartnerFake({
    authorized: (request) => header(request.headers, "x-javelin-apikey") === JAVELIN_KEY,
    errorBody: (_status, message) => ({ detail: message }),
    answer: (request) => {
      const match = /^\/v1\/guardrail\/(trustsafety|promptinjectiondetection|lang_detector)\/apply$/.exec(request.url);
      if (request.method !== "POST" || !match) return { status: 404, body: { detail: "Not Found" } };
      const body = jsonBody(request) as { input?: { text?: unknown }; config?: { threshold?: number } } | undefined;
      if (typeof body?.input?.text !== "string") return { status: 422, body: { detail: "input.text is required" } };
      const guardrail = match[1] as string;
      return {
        status: 200,
        body: { assessments: [{ [guardrail]: assessment(guardrail, body.input.text, body.config?.threshold ?? 0.5) }] },
      };
    },
  });
}
