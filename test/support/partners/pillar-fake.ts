/**
 * Contract fake of Pillar Security's scan API (`POST /api/v1/scan/prompt`,
 * `POST /api/v1/scan/response` on api.pillarseclabs.com). Pillar publishes no open API reference;
 * this follows the wire format the peer gateway's Pillar plugin speaks: bearer token, a body
 * `{message, scanners: {<scanner>: true}}`, and an answer with one field per scanner, `true` when
 * it found something, `false` when not, `null` when the scanner did not run.
 *
 * Triggers: an instruction override (prompt only), an e-mail address, an insult, an AWS-style key,
 * a zero-width space.
 */
import { EMAIL, header, INJECTION, startVendorFake, TOXIC, type VendorFake } from "./vendor-fake.js";

/** The key the fake accepts. */
export const PILLAR_KEY = "pillar-fake-key-3456";

const FINDERS: Record<string, RegExp> = {
  prompt_injection: INJECTION,
  pii: new RegExp(EMAIL.source),
  secrets: /AKIA[0-9A-Z]{16}/,
  toxic_language: TOXIC,
  invisible_characters: /[\u200B-\u200D\u2060\uFEFF]/,
};

function scan(prompt: boolean) {
  return (raw: unknown) => {
    const body = raw as { message?: unknown; scanners?: Record<string, boolean> };
    if (typeof body?.message !== "string") return { status: 422, body: { detail: "message is required" } };
    const answer: Record<string, boolean | null> = {};
    for (const [scanner, finder] of Object.entries(FINDERS)) {
      const applies = prompt || (scanner !== "prompt_injection" && scanner !== "invisible_characters");
      answer[scanner] = applies && body.scanners?.[scanner] ? finder.test(body.message) : null;
    }
    return { status: 200, body: answer };
  };
}

/** Starts the fake. */
export function startPillarFake(): Promise<VendorFake> {
  return startVendorFake({
    authorized: (request) => header(request, "authorization") === `Bearer ${PILLAR_KEY}`,
    unauthorized: { status: 401, body: { detail: "Invalid authentication credentials" } },
    routes: {
      "POST /api/v1/scan/prompt": scan(true),
      "POST /api/v1/scan/response": scan(false),
    },
  });
}
