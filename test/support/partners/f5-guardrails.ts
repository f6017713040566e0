/**
 * Contract fake of F5 AI Guardrails (formerly CalypsoAI), the scans endpoint of its platform API
 * (`POST <calypsoUrl>/backend/v1/scans`, bearer token, as CalypsoAI's API documentation and the
 * peer gateway's plugin give it): a body `{input, project}`, an answer `{id, redactedInput,
 * result: {outcome: "cleared"|"flagged"|"redacted"|"blocked", scannerResults: [{scannerId,
 * outcome: "passed"|"failed", data}]}}`.
 *
 * Triggers: an instruction override is blocked; an e-mail address is redacted.
 */
import { jsonBody, type PartnerFake, startPartnerFake } from "./fake.js";
import { emails, header, INJECTION, maskEmails } from "./triggers.js";

/** The token and project the fake accepts. */
export const F5_TOKEN = "f5-fake-token-3131";
export const F5_PROJECT = "01fake-project";

/** The projects that exist: the tests' own, and the one the check's documented example names. */
const PROJECTS = [F5_PROJECT, "01hq6z8k3vx2"];

/** Starts the fake. */
export function startF5Fake(): Promise<PartnerFake> {
  return startPartnerFake({
    authorized: (request) => header(request.headers, "authorization") === `Bearer ${F5_TOKEN}`,
    errorBody: (_status, message) => ({ error: message }),
    answer: (request) => {
      if (request.method !== "POST" || request.url !== "/backend/v1/scans") return { status: 404, body: { error: "Not Found" } };
      const body = jsonBody(request) as { input?: unknown; project?: unknown } | undefined;
      if (typeof body?.input !== "string") return { status: 400, body: { error: "input is required" } };
      if (!PROJECTS.includes(String(body.project))) return { status: 404, body: { error: "project not found" } };
      const injection = INJECTION.test(body.input);
      const pii = emails(body.input).length > 0;
      const outcome = injection ? "blocked" : pii ? "redacted" : "cleared";
      return {
        status: 200,
        body: {
          id: "scan-f5-1",
          redactedInput: pii ? maskEmails(body.input, "[EMAIL]") : body.input,
          result: {
            outcome,
            scannerResults: [
              { scannerId: "prompt-injection", outcome: injection ? "failed" : "passed", data: {} },
              { scannerId: "pii", outcome: pii ? "failed" : "passed", data: { type: "email" } },
            ],
          },
        },
      };
    },
  });
}
