/**
 * Contract fake of Pillar Security's scan API (`POST /api/v1/scan/prompt` and
 * `POST /api/v1/scan/response` on api.pillarseclabs.com). Pillar publishes no open API reference;
 * this follows the wire format the peer gateway's Pillar plugin speaks: bearer token, a body
 * `{message, scanners: {<scanner>: true}}`, and an answer with one field per scanner: `true` when
 * it found something, `false` when not, `null` when the scanner did not run.
 *
 * Triggers: an instruction override (prompt only), an e-mail address, an insult, an AWS-style key,
 * a zero-width space.
 */
import type { ReceivedRequest } from "../http-server.js";
import { jsonBody, type PartnerFake, startPartnerFake } from "./fake.js";
import { emails, header, INJECTION, TOXIC } from "./triggers.js";

/** The key the fake accepts. */
export const PILLAR_KEY = "pillar-fake-key-3456";

const FINDERS: Record<string, (text: string) => boolean> = {
  prompt_injection: (t) => INJECTION.test(t),
  pii: (t) => emails(t).length > 0,
  secrets: (t) => /AKIA[0-9A-Z]{16}/.test(t),
  toxic_language: (t) => TOXIC.test(t),
  invisible_characters: (t) => /[\u200B-\u200D\u2060\uFEFF]/.test(t),
};
const PROMPT_ONLY = new Set(["prompt_injection", "invisible_characters"]);

function scan(request: ReceivedRequest, prompt: boolean) {
  const body = jsonBody(request) as { message?: unknown; scanners?: Record<string, boolean> } | undefined;
  if (typeof body?.message !== "string") return { status: 422, body: { detail: "message is required" } };
  const answer: Record<string, boolean | null> = {};
  for (const [scanner, finds] of Object.entries(FINDERS)) {
    const runs = (prompt || !PROMPT_ONLY.has(scanner)) && body.scanners?.[scanner] === true;
    answer[scanner] = runs ? finds(body.message) : null;
  }
  return { status: 200, body: answer };
}

/** Starts the fake. */
export function startPillarFake(): Promise<PartnerFake> {
  return startPartnerFake({
    authorized: (request) => header(request.headers, "authorization") === `Bearer ${PILLAR_KEY}`,
    errorBody: (_status, message) => ({ detail: message }),
    answer: (request) => {
      if (request.method === "POST" && request.url === "/api/v1/scan/prompt") return scan(request, true);
      if (request.method === "POST" && request.url === "/api/v1/scan/response") return scan(request, false);
      return { status: 404, body: { detail: "Not Found" } };
    },
  });
}
