/**
 * Contract fake of CrowdStrike Falcon AIDR's chat-completions guard (`POST <baseUrl>/v1/guard_chat_completions`,
 * bearer token), as the peer gateway's plugin and AIDR's predecessor, Pangea AI Guard, define the
 * envelope: a body `{guard_input: <the chat request or response JSON>, event_type: "input"|"output",
 * app_id, llm_provider?, model?, user_id?, extra_info}`, an answer in the Pangea envelope
 * `{request_id, status, summary, result: {blocked, transformed, policy, guard_output}}`.
 *
 * Triggers: an instruction override is blocked; e-mail addresses are redacted in `guard_output`.
 */
import { jsonBody, type PartnerFake, startPartnerFake } from "./fake.js";
import { header, INJECTION, maskEmails } from "./triggers.js";

/** The token the fake accepts. */
export const AIDR_TOKEN = "pts_fake_aidr_token_5555";

function mapStrings(value: unknown, map: (s: string) => string): unknown {
  if (typeof value === "string") return map(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, map));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, map)]));
  }
  return value;
}

/** Starts the fake. */
export function startAidrFake(): Promise<PartnerFake> {
  return startPartnerFake({
    authorized: (request) => header(request.headers, "authorization") === `Bearer ${AIDR_TOKEN}`,
    errorBody: (_status, message) => ({ request_id: "prq_err", status: "Error", summary: message, result: null }),
    answer: (request) => {
      if (request.method !== "POST" || request.url !== "/v1/guard_chat_completions") {
        return { status: 404, body: { status: "NotFound", summary: "Not Found", result: null } };
      }
      const body = jsonBody(request) as { guard_input?: unknown; event_type?: string } | undefined;
      if (typeof body?.guard_input !== "object" || !["input", "output"].includes(String(body.event_type))) {
        return {
          status: 400,
          body: { status: "ValidationError", summary: "guard_input and event_type are required", result: null },
        };
      }
      const text = JSON.stringify(body.guard_input);
      const blocked = INJECTION.test(text);
      const output = mapStrings(body.guard_input, (s) => maskEmails(s, "<EMAIL_ADDRESS>"));
      const transformed = !blocked && JSON.stringify(output) !== text;
      return {
        status: 200,
        body: {
          request_id: "prq_aidr_1",
          status: "Success",
          summary: blocked ? "Malicious prompt was detected and blocked." : "Checked.",
          result: {
            blocked,
            transformed,
            policy: `aidr_${body.event_type}_policy`,
            guard_output: transformed ? output : body.guard_input,
          },
        },
      };
    },
  });
}
