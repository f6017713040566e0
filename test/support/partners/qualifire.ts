/**
 * Contract fake of Qualifire's evaluation API (`POST https://proxy.qualifire.ai/api/evaluation/evaluate`
 * with an `X-Qualifire-API-Key` header), as Qualifire's documentation and the peer gateway's plugin
 * give it: a body `{input, output?, <check>_check: true | prompt_injections: true | assertions:
 * [...]}`, an answer `{status: "success"|"failed", score, evaluationResults: [{type, results:
 * [{name, label, flagged, score, reason}]}]}`.
 *
 * Triggers: an instruction override fails prompt_injections; an insult fails content moderation;
 * an e-mail address fails the PII check; an output containing "moon is cheese" fails grounding
 * and hallucinations; an assertion containing "discount" fails when the text mentions a discount.
 */
import { jsonBody, type PartnerFake, startPartnerFake } from "./fake.js";
import { emails, header, INJECTION, TOXIC } from "./triggers.js";

/** The key the fake accepts. */
export const QUALIFIRE_KEY = "qualifire-fake-key-6161";

type Evaluate = Record<string, unknown> & { input?: unknown; output?: unknown; assertions?: unknown };

function results(body: Evaluate): Array<{ type: string; flagged: boolean }> {
  const text = `${String(body.input ?? "")}\n${String(body.output ?? "")}`;
  const out: Array<{ type: string; flagged: boolean }> = [];
  if (body.prompt_injections) out.push({ type: "prompt_injections", flagged: INJECTION.test(String(body.input ?? "")) });
  if (body.content_moderation_check) out.push({ type: "content_moderation", flagged: TOXIC.test(text) });
  if (body.pii_check) out.push({ type: "pii", flagged: emails(text).length > 0 });
  for (const flag of ["grounding_check", "hallucinations_check"]) {
    if (body[flag]) out.push({ type: flag.replace("_check", ""), flagged: /moon is cheese/i.test(String(body.output ?? "")) });
  }
  if (Array.isArray(body.assertions)) {
    out.push({ type: "policy", flagged: body.assertions.some((a) => /discount/i.test(String(a))) && /discount/i.test(text) });
  }
  return out;
}

/** Starts the fake. */
export function startQualifireFake(): Promise<PartnerFake> {
  return startPartnerFake({
    authorized: (request) => header(request.headers, "x-qualifire-api-key") === QUALIFIRE_KEY,
    errorBody: (_status, message) => ({ error: message }),
    answer: (request) => {
      if (request.method !== "POST" || request.url !== "/api/evaluation/evaluate")
        return { status: 404, body: { error: "Not Found" } };
      const body = jsonBody(request) as Evaluate | undefined;
      if (typeof body?.input !== "string") return { status: 400, body: { error: "input is required" } };
      const found = results(body);
      if (found.length === 0) return { status: 400, body: { error: "no evaluation was requested" } };
      const failed = found.some((r) => r.flagged);
      return {
        status: 200,
        body: {
          status: failed ? "failed" : "success",
          score: failed ? 0 : 100,
          evaluationResults: found.map((r) => ({
            type: r.type,
            results: [
              {
                name: r.type,
                label: r.flagged ? "FLAGGED" : "SAFE",
                flagged: r.flagged,
                score: r.flagged ? 0.95 : 0.02,
                reason: "",
              },
            ],
          })),
        },
      };
    },
  });
}
