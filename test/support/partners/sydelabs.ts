/**
 * Contract fake of SydeLabs' SydeGuard (`POST https://guard.sydelabs.ai/api/v1/guard/generate-score`
 * with an `x-api-key` header), as SydeLabs' API example and the peer gateway's plugin give it: a
 * body `{prompt}`, an answer `{error, id, score, category_scores: [{error, category, score, risk}],
 * overall_risk}`.
 *
 * Triggers: an instruction override scores PROMPT_INJECT 0.84; an insult scores TOXIC 1.
 */
import { jsonBody, type PartnerFake, startPartnerFake } from "./fake.js";
import { header, INJECTION, TOXIC } from "./triggers.js";

/** The key the fake accepts. */
export const SYDELABS_KEY = "syde-fake-key-2323";

/** Starts the fake. */
export function startSydeLabsFake(): Promise<PartnerFake> {
  return startPartnerFake({
    authorized: (request) => header(request.headers, "x-api-key") === SYDELABS_KEY,
    errorBody: (_status, message) => ({ error: message }),
    answer: (request) => {
      if (request.method !== "POST" || request.url !== "/api/v1/guard/generate-score")
        return { status: 404, body: { error: "Not Found" } };
      const prompt = (jsonBody(request) as { prompt?: unknown } | undefined)?.prompt;
      if (typeof prompt !== "string") return { status: 422, body: { error: "prompt is required" } };
      const scores = {
        EVASION: 0.0008,
        PROMPT_INJECT: INJECTION.test(prompt) ? 0.84 : 0.01,
        TOXIC: TOXIC.test(prompt) ? 1 : 0.02,
      };
      return {
        status: 200,
        body: {
          error: null,
          id: "661f5105dc31c4f221fde9e5",
          score: Math.max(...Object.values(scores)),
          category_scores: Object.entries(scores).map(([category, score]) => ({
            error: null,
            category,
            score,
            risk: score > 0.5,
          })),
          overall_risk: Object.values(scores).some((s) => s > 0.5),
        },
      };
    },
  });
}
