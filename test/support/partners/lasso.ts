/**
 * Contract fake of Lasso Security's Deputies classifier (`POST https://server.lasso.security/gateway/v2/classify`),
 * as the peer gateway's Lasso plugin and Lasso's published OpenAPI summary (a `lasso-api-key`
 * header) describe it: a body `{messages: [{role, content}]}`, optional `lasso-conversation-id` and
 * `lasso-user-id` headers, an answer `{deputies: {<deputy>: bool}, deputies_predictions:
 * {<deputy>: score}, violations_detected}`.
 *
 * Triggers: an instruction override is a jailbreak; an insult is hate.
 */
import { jsonBody, type PartnerFake, startPartnerFake } from "./fake.js";
import { header, INJECTION, TOXIC } from "./triggers.js";

/** The key the fake accepts. */
export const LASSO_KEY = "lasso-fake-key-7777";

/** Starts the fake. */
export function startLassoFake(): Promise<PartnerFake> {
  return startPartnerFake({
    authorized: (request) => header(request.headers, "lasso-api-key") === LASSO_KEY,
    errorBody: (_status, message) => ({ detail: message }),
    answer: (request) => {
      if (request.method !== "POST" || request.url !== "/gateway/v2/classify")
        return { status: 404, body: { detail: "Not Found" } };
      const messages = (jsonBody(request) as { messages?: Array<{ content?: unknown }> } | undefined)?.messages;
      if (!Array.isArray(messages) || messages.some((m) => typeof m?.content !== "string")) {
        return { status: 422, body: { detail: "messages must be a list of {role, content} with string content" } };
      }
      const text = messages.map((m) => m.content).join("\n");
      const deputies = { jailbreak: INJECTION.test(text), hate: TOXIC.test(text), sexual: false, illegality: false };
      return {
        status: 200,
        body: {
          deputies,
          deputies_predictions: {
            jailbreak: deputies.jailbreak ? 0.96 : 0.02,
            hate: deputies.hate ? 0.88 : 0.01,
            sexual: 0,
            illegality: 0,
          },
          violations_detected: deputies.jailbreak || deputies.hate,
        },
      };
    },
  });
}
