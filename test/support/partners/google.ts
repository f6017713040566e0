/**
 * Contract fake of Google Cloud Model Armor and Google's OAuth token endpoint. Follows the public
 * documentation: https://cloud.google.com/security-command-center/docs/sanitize-prompts-responses
 * (`POST /v1/projects/{project}/locations/{location}/templates/{template}:sanitizeUserPrompt` with
 * `{userPromptData: {text}}`, `:sanitizeModelResponse` with `{modelResponseData: {text}}`, a bearer
 * token; the answer `{sanitizationResult: {filterMatchState, invocationResult, filterResults}}`;
 * errors as `{error: {code, message, status}}`) and
 * https://developers.google.com/identity/protocols/oauth2/service-account (`POST /token` with a
 * JWT assertion signed by the service account's key, answered with `{access_token, expires_in,
 * token_type}`).
 *
 * Project "acme-prod", location "us-central1". Decisions: "bomb" matches rai (dangerous), "ignore
 * previous instructions" pi_and_jailbreak, an SSN (123-45-6789) sdp; template "ma-deidentify"
 * de-identifies it; template "ma-partial" reports invocationResult PARTIAL.
 */
import { generateKeyPairSync } from "node:crypto";
import { jwtVerify } from "jose";
import type { ServiceAccount } from "../../../plugins/google/access-token.js";
import type { ReceivedRequest } from "../http-server.js";
import { jsonBody, type PartnerFake, startPartnerFake } from "./fake.js";

/** A running Model Armor fake with the service account it trusts. */
export interface GoogleFake extends PartnerFake {
  serviceAccount: ServiceAccount;
  /** How many tokens the fake issued. */
  tokensIssued(): number;
}

const SSN = /\b\d{3}-\d{2}-\d{4}\b/g;

function error(code: number, status: string, message: string) {
  return { error: { code, message, status } };
}

function state(match: boolean) {
  return { executionState: "EXECUTION_SUCCESS", matchState: match ? "MATCH_FOUND" : "NO_MATCH_FOUND" };
}

function sanitize(text: string, template: string) {
  const dangerous = /\bbomb\b/i.test(text);
  const injection = /ignore (all )?previous instructions/i.test(text);
  const ssn = SSN.test(text);
  SSN.lastIndex = 0;
  const sdp =
    template === "ma-deidentify"
      ? {
          deidentifyResult: {
            ...state(ssn),
            ...(ssn && {
              data: { text: text.replace(SSN, "[US_SOCIAL_SECURITY_NUMBER]") },
              infoTypes: ["US_SOCIAL_SECURITY_NUMBER"],
            }),
          },
        }
      : {
          inspectResult: {
            ...state(ssn),
            ...(ssn && { findings: [{ infoType: "US_SOCIAL_SECURITY_NUMBER", likelihood: "VERY_LIKELY" }] }),
          },
        };
  return {
    sanitizationResult: {
      filterMatchState: dangerous || injection || ssn ? "MATCH_FOUND" : "NO_MATCH_FOUND",
      invocationResult: template === "ma-partial" ? "PARTIAL" : "SUCCESS",
      filterResults: {
        csam: { csamFilterFilterResult: state(false) },
        malicious_uris: { maliciousUriFilterResult: state(false) },
        rai: {
          raiFilterResult: {
            ...state(dangerous),
            raiFilterTypeResults: {
              sexually_explicit: { matchState: "NO_MATCH_FOUND" },
              hate_speech: { matchState: "NO_MATCH_FOUND" },
              harassment: { matchState: "NO_MATCH_FOUND" },
              dangerous: {
                matchState: dangerous ? "MATCH_FOUND" : "NO_MATCH_FOUND",
                ...(dangerous && { confidenceLevel: "HIGH" }),
              },
            },
          },
        },
        pi_and_jailbreak: { piAndJailbreakFilterResult: { ...state(injection), ...(injection && { confidenceLevel: "HIGH" }) } },
        sdp: { sdpFilterResult: sdp },
      },
    },
  };
}

/** Starts the fake; its service account's token_uri points at the fake itself. */
export async function startGoogleFake(): Promise<GoogleFake> {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const issued = new Set<string>();
  let origin = "";
  const tokenAnswer = async (r: ReceivedRequest) => {
    const form = new URLSearchParams(r.body);
    if (form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer") {
      return { status: 400, body: { error: "unsupported_grant_type", error_description: "Invalid grant_type" } };
    }
    try {
      const { payload } = await jwtVerify(form.get("assertion") ?? "", publicKey, {
        issuer: "guard@acme-prod.iam.gserviceaccount.com",
        audience: `${origin}/token`,
      });
      if (payload.scope !== "https://www.googleapis.com/auth/cloud-platform") throw new Error("scope");
    } catch {
      return { status: 400, body: { error: "invalid_grant", error_description: "Invalid JWT Signature." } };
    }
    const token = `ya29.fake-token-${issued.size + 1}-0123456789`;
    issued.add(token);
    return { status: 200, body: { access_token: token, expires_in: 3599, token_type: "Bearer" } };
  };
  const fake = await startPartnerFake({
    authorized: (r) => r.url === "/token" || issued.has(String(r.headers.authorization ?? "").replace(/^Bearer /, "")),
    errorBody: (status, message) =>
      error(
        status,
        status === 401
          ? "UNAUTHENTICATED"
          : status === 403
            ? "PERMISSION_DENIED"
            : status === 429
              ? "RESOURCE_EXHAUSTED"
              : status >= 500
                ? "UNAVAILABLE"
                : "INVALID_ARGUMENT",
        message,
      ),
    answer: async (r) => {
      if (r.url === "/token") return tokenAnswer(r);
      const route =
        /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/templates\/([^/:]+):(sanitizeUserPrompt|sanitizeModelResponse)$/.exec(
          r.url,
        );
      if (r.method !== "POST" || !route) return { status: 404, body: error(404, "NOT_FOUND", `no route ${r.url}`) };
      const [, project, location, template, method] = route;
      if (project !== "acme-prod" || location !== "us-central1") {
        return {
          status: 404,
          body: error(404, "NOT_FOUND", `Template projects/${project}/locations/${location}/templates/${template} not found`),
        };
      }
      const body = jsonBody(r) as Record<string, { text?: unknown }> | undefined;
      const text = method === "sanitizeUserPrompt" ? body?.userPromptData?.text : body?.modelResponseData?.text;
      if (typeof text !== "string") return { status: 400, body: error(400, "INVALID_ARGUMENT", "text is required") };
      return { status: 200, body: sanitize(text, String(template)) };
    },
  });
  origin = fake.origin;
  return {
    ...fake,
    serviceAccount: {
      client_email: "guard@acme-prod.iam.gserviceaccount.com",
      private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
      token_uri: `${fake.origin}/token`,
      project_id: "acme-prod",
    },
    tokensIssued: () => issued.size,
  };
}
