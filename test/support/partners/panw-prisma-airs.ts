/**
 * Contract fake of Palo Alto Networks Prisma AIRS, AI Runtime API intercept
 * (pan.dev, "Prisma AIRS AI Runtime API": `POST /v1/scan/sync/request` with an `x-pan-token`
 * header): a body `{tr_id, ai_profile: {profile_name}, metadata: {ai_model, app_user},
 * contents: [{prompt} | {response}]}`, an answer `{report_id, scan_id, tr_id, profile_name,
 * category: "benign"|"malicious", action: "allow"|"block", prompt_detected: {...},
 * response_detected: {...}}`.
 *
 * Triggers: an instruction override is a prompt injection; an e-mail address is a DLP finding.
 */
import { jsonBody, type PartnerFake, startPartnerFake } from "./fake.js";
import { emails, header, INJECTION } from "./triggers.js";

/** The key the fake accepts. */
export const AIRS_KEY = "airs-fake-key-4242";

interface Scan {
  tr_id?: string;
  ai_profile?: { profile_name?: string };
  contents?: Array<{ prompt?: string; response?: string }>;
}

/** Starts the fake. */
export function startPrismaAirsFake(): Promise<PartnerFake> {
  return startPartnerFake({
    authorized: (request) => header(request.headers, "x-pan-token") === AIRS_KEY,
    errorBody: (_status, message) => ({ error: { message } }),
    answer: (request) => {
      if (request.method !== "POST" || request.url !== "/v1/scan/sync/request")
        return { status: 404, body: { error: { message: "Not Found" } } };
      const body = jsonBody(request) as Scan | undefined;
      const content = body?.contents?.[0];
      if (!body?.ai_profile?.profile_name || !content || (content.prompt === undefined && content.response === undefined)) {
        return { status: 400, body: { error: { message: "ai_profile and contents are required" } } };
      }
      const prompt = content.prompt !== undefined;
      const text = content.prompt ?? content.response ?? "";
      const detected = {
        injection: prompt && INJECTION.test(text),
        dlp: emails(text).length > 0,
        url_cats: false,
        toxic_content: false,
      };
      const malicious = detected.injection || detected.dlp;
      return {
        status: 200,
        body: {
          report_id: "R0000-fake",
          scan_id: "0000-scan-fake",
          tr_id: body.tr_id,
          profile_name: body.ai_profile.profile_name,
          category: malicious ? "malicious" : "benign",
          action: malicious ? "block" : "allow",
          prompt_detected: prompt ? detected : {},
          response_detected: prompt ? {} : detected,
        },
      };
    },
  });
}
