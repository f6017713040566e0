/**
 * Contract fake of Walled AI's WalledProtect (`POST https://services.walled.ai/v1/walled-protect`
 * with an `x-api-key` header), as Walled AI's API documentation and the peer gateway's plugin give
 * it: a body `{text, generic_safety_check, greetings_list, pii_list, compliance_list}`, an answer
 * `{success, statusCode, data: {safety: [{safety, isSafe, score}], compliance, pii, greetings}}`.
 *
 * Triggers: an instruction override or an insult is unsafe; an e-mail address is "Email Id" PII.
 */
import { jsonBody, type PartnerFake, startPartnerFake } from "./fake.js";
import { emails, header, INJECTION, TOXIC } from "./triggers.js";

/** The key the fake accepts. */
export const WALLED_KEY = "walled-fake-key-1919";

/** Starts the fake. */
export function startWalledFake(): Promise<PartnerFake> {
  return startPartnerFake({
    authorized: (request) => header(request.headers, "x-api-key") === WALLED_KEY,
    errorBody: (status, message) => ({ success: false, statusCode: status, message }),
    answer: (request) => {
      if (request.method !== "POST" || request.url !== "/v1/walled-protect")
        return { status: 404, body: { success: false, message: "Not Found" } };
      const body = jsonBody(request) as { text?: unknown; pii_list?: string[] } | undefined;
      if (typeof body?.text !== "string") return { status: 422, body: { success: false, message: "text is required" } };
      const unsafe = INJECTION.test(body.text) || TOXIC.test(body.text);
      const hasEmail = emails(body.text).length > 0;
      return {
        status: 200,
        body: {
          success: true,
          statusCode: 200,
          data: {
            safety: [{ safety: "generic", isSafe: !unsafe, score: unsafe ? 0.97 : 0.03 }],
            compliance: [],
            pii: (body.pii_list ?? []).map((p) => ({ pii_type: p, isPresent: p === "Email Id" && hasEmail })),
            greetings: [],
          },
        },
      };
    },
  });
}
