/**
 * Contract fake of Amazon Bedrock's ApplyGuardrail. Follows the public API reference,
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ApplyGuardrail.html:
 * `POST /guardrail/{guardrailIdentifier}/version/{guardrailVersion}/apply` with `{source, content:
 * [{text: {text}}]}`, signed with Signature Version 4 (service `bedrock`); the answer `{usage,
 * action, actionReason, outputs: [{text}], assessments: [...]}`; errors as `{message}` with the
 * `x-amzn-ErrorType` header. A signature that does not match the received host, path, body and
 * date is refused with 403 as AWS refuses it.
 *
 * Guardrails "gr0fake1" and "gr0abc123def" (the check's documented example), versions 1 and
 * DRAFT, exist. Decisions: "kill" is blocked by the content policy (VIOLENCE, HIGH); email
 * addresses are anonymized as {EMAIL}; "password" is blocked by the sensitive information policy.
 */
import { signRequest } from "../../../core/internal.js";
import type { ReceivedRequest } from "../http-server.js";
import { jsonBody, type PartnerFake, startPartnerFake } from "./fake.js";

/** The credentials the fake accepts. */
export const BEDROCK_KEY_ID = "AKIAFAKEBEDROCK00001";
export const BEDROCK_SECRET = "fake/Secret+Access+Key/0123456789abcdefghij";
export const BEDROCK_REGION = "us-east-1";

/** The guardrails that exist: the tests' own, and the one the check's documented example names. */
const GUARDRAILS = ["gr0fake1", "gr0abc123def"];

const EMAIL = /[\w.+-]+@[\w-]+\.[\w.]+/g;
const AUTH =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/;

function errorHeaders(type: string) {
  return { "x-amzn-errortype": `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` };
}

/** Whether the request carries a valid signature for the fake's key, over exactly what arrived. */
async function validSignature(r: ReceivedRequest): Promise<boolean> {
  const auth = AUTH.exec(String(r.headers.authorization ?? ""));
  const date = String(r.headers["x-amz-date"] ?? "");
  if (!auth || auth[1] !== BEDROCK_KEY_ID || auth[3] !== BEDROCK_REGION || auth[4] !== "bedrock") return false;
  const stamp = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(date);
  if (!stamp) return false;
  const signingDate = new Date(Date.UTC(+stamp[1]!, +stamp[2]! - 1, +stamp[3]!, +stamp[4]!, +stamp[5]!, +stamp[6]!));
  const expected = await signRequest(
    {
      method: "POST",
      url: new URL(`http://${r.headers.host}${r.url}`),
      headers: { "content-type": String(r.headers["content-type"] ?? "") },
      body: r.body,
    },
    { accessKeyId: BEDROCK_KEY_ID, secretAccessKey: BEDROCK_SECRET },
    BEDROCK_REGION,
    "bedrock",
    signingDate,
  );
  return expected.authorization === r.headers.authorization;
}

function apply(text: string, source: string) {
  const emails = text.match(EMAIL) ?? [];
  const violent = /\bkill\b/i.test(text);
  const password = /\bpassword\b/i.test(text);
  const assessment: Record<string, unknown> = {
    invocationMetrics: { guardrailProcessingLatency: 120, usage: { contentPolicyUnits: 1 } },
  };
  if (violent) {
    assessment.contentPolicy = {
      filters: [{ type: "VIOLENCE", confidence: "HIGH", filterStrength: "HIGH", action: "BLOCKED", detected: true }],
    };
  }
  if (emails.length || password) {
    assessment.sensitiveInformationPolicy = {
      piiEntities: [
        ...emails.map((match) => ({ type: "EMAIL", match, action: "ANONYMIZED", detected: true })),
        ...(password ? [{ type: "PASSWORD", match: "password", action: "BLOCKED", detected: true }] : []),
      ],
      regexes: [],
    };
  }
  const blocked = violent || password;
  const intervened = blocked || emails.length > 0;
  return {
    usage: { topicPolicyUnits: 0, contentPolicyUnits: 1, wordPolicyUnits: 0, sensitiveInformationPolicyUnits: 1 },
    action: intervened ? "GUARDRAIL_INTERVENED" : "NONE",
    ...(intervened && { actionReason: blocked ? `Guardrail blocked (${source}).` : "Guardrail masked." }),
    outputs: intervened ? [{ text: blocked ? "Sorry, I cannot help with that." : text.replace(EMAIL, "{EMAIL}") }] : [],
    assessments: [assessment],
  };
}

/** Starts the fake. */
export function startBedrockFake(): Promise<PartnerFake> {
  return startPartnerFake({
    // A request without a signature is AWS's 403 too; a wrong one is refused in `answer` (the check is asynchronous).
    authorized: (r) => typeof r.headers.authorization === "string" && r.headers.authorization.startsWith("AWS4-HMAC-SHA256 "),
    errorBody: (status, message) => ({
      message: status === 401 ? `The security token included in the request is invalid. ${message}` : message,
    }),
    answer: async (r) => {
      if (!(await validSignature(r))) {
        return {
          status: 403,
          headers: errorHeaders("InvalidSignatureException"),
          body: { message: "The request signature we calculated does not match the signature you provided." },
        };
      }
      const route = /^\/guardrail\/([^/]+)\/version\/([^/]+)\/apply$/.exec(r.url);
      if (r.method !== "POST" || !route)
        return { status: 404, headers: errorHeaders("UnknownOperationException"), body: { message: "Unknown operation" } };
      const [id, version] = [decodeURIComponent(route[1]!), decodeURIComponent(route[2]!)];
      if (!GUARDRAILS.includes(id) || !["1", "DRAFT"].includes(version)) {
        return {
          status: 404,
          headers: errorHeaders("ResourceNotFoundException"),
          body: { message: `The guardrail ${id} version ${version} was not found.` },
        };
      }
      const body = jsonBody(r) as { source?: unknown; content?: Array<{ text?: { text?: unknown } }> } | undefined;
      const text = body?.content?.[0]?.text?.text;
      if ((body?.source !== "INPUT" && body?.source !== "OUTPUT") || typeof text !== "string") {
        return {
          status: 400,
          headers: errorHeaders("ValidationException"),
          body: { message: "1 validation error detected: source or content" },
        };
      }
      return { status: 200, headers: { "x-amzn-requestid": "bedrock-req-1" }, body: apply(text, body.source) };
    },
  });
}
