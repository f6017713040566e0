/**
 * Contract fake of Lakera Guard. Follows the public API documentation,
 * https://docs.lakera.ai/docs/api/guard: `POST /v2/guard` with `Authorization: Bearer <key>` and
 * `{messages, project_id?, payload?, breakdown?}`; the answer `{flagged, payload?: [{start, end,
 * text, detector_type, labels, message_id}], breakdown?: [{project_id, policy_id, detector_id,
 * detector_type, detected, message_id}], metadata: {request_uuid}}`. The document does not fix
 * an error body; the fake sends `{error: <message>}` and the plugin reads the status.
 *
 * The last message is screened. Decisions: "ignore previous instructions" is `prompt_attack`;
 * email addresses are `pii/email` and phone numbers (10 digits) `pii/phone_number`, with spans
 * in `payload` (end exclusive; with project "inclusive-ends", inclusive).
 */
import { jsonBody, type PartnerFake, startPartnerFake } from "./fake.js";

/** The key the fake accepts. */
export const LAKERA_KEY = "lak-fake-key-0123456789abcdef";

const DETECTORS: Array<[string, RegExp]> = [
  ["pii/email", /[\w.+-]+@[\w-]+\.[\w.]+/g],
  ["pii/phone_number", /\b\d{10}\b/g],
];

function screen(text: string, project: string | undefined) {
  const inclusive = project === "inclusive-ends";
  const payload = DETECTORS.flatMap(([detector_type, pattern]) =>
    [...text.matchAll(pattern)].map((m) => ({
      start: m.index ?? 0,
      end: (m.index ?? 0) + m[0].length - (inclusive ? 1 : 0),
      text: m[0],
      detector_type,
      labels: [],
      message_id: 0,
    })),
  );
  const attack = /ignore (all )?previous instructions/i.test(text);
  const fired = new Set(payload.map((p) => p.detector_type));
  const breakdown = ["prompt_attack", "pii/email", "pii/phone_number", "moderated_content/hate"].map((detector_type) => ({
    project_id: project ?? "project-default",
    policy_id: "policy-lakera-default",
    detector_id: `detector-${detector_type}`,
    detector_type,
    detected: detector_type === "prompt_attack" ? attack : fired.has(detector_type),
    message_id: 0,
  }));
  return { flagged: attack || payload.length > 0, payload, breakdown, metadata: { request_uuid: "lakera-uuid-1" } };
}

/** Starts the fake. */
export function startLakeraFake(options: { selfHosted?: boolean } = {}): Promise<PartnerFake> {
  return startPartnerFake({
    authorized: (r) => options.selfHosted === true || r.headers.authorization === `Bearer ${LAKERA_KEY}`,
    errorBody: (_status, message) => ({ error: message }),
    answer: (r) => {
      if (r.method !== "POST" || r.url !== "/v2/guard") return { status: 404, body: { error: "Not Found" } };
      const body = jsonBody(r) as { messages?: Array<{ role?: unknown; content?: unknown }>; project_id?: string } | undefined;
      const last = body?.messages?.at(-1);
      if (!last || typeof last.content !== "string")
        return { status: 400, body: { error: "messages: a non-empty list is required" } };
      const answer = screen(last.content, body?.project_id);
      return {
        status: 200,
        body: {
          flagged: answer.flagged,
          ...((body as { payload?: boolean }).payload && { payload: answer.payload }),
          ...((body as { breakdown?: boolean }).breakdown && { breakdown: answer.breakdown }),
          metadata: answer.metadata,
        },
      };
    },
  });
}
