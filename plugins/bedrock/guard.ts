/**
 * `bedrock.guard`: an Amazon Bedrock guardrail applied to the evaluated text (ApplyGuardrail).
 * The check fails when the guardrail intervenes; with `redact`, an intervention that only masked
 * personal data rewrites the text with Bedrock's masked output instead, and the check passes.
 */
import { defineCheck, type JsonSchema } from "../../core/index.js";
import {
  baseUrlCredential,
  callFacts,
  callPartner,
  decisionData,
  nothingToEvaluate,
  optionalCredential,
  optionalField,
  PARTNER_DATA,
  partnerBaseUrl,
  PartnerError,
  partnerNotes,
  type PartnerService,
  REDACT_PARAMETER,
  redactionOutcome,
  requiredCredential,
  requiredField,
  TIMEOUT_PARAMETER,
} from "../partner-kit/index.js";
import { signRequest } from "../../core/internal.js";

export const BEDROCK: PartnerService = { id: "bedrock", name: "Amazon Bedrock Guardrails" };

interface Parameters {
  guardrailId?: string;
  guardrailVersion?: string;
  redact: boolean;
  timeout: number;
}

const GUARDRAIL_ID = "^(([a-z0-9]+)|(arn:aws(-[^:]+)?:bedrock:[a-z0-9-]{1,20}:[0-9]{12}:guardrail/[a-z0-9]+))$";
const GUARDRAIL_VERSION = "^(([1-9][0-9]{0,7})|(DRAFT))$";
const REGION = "^[a-z]{2}(-[a-z]+)+-\\d+$";

/** Credentials of the bedrock plugin, with the peer gateway's older names accepted too. */
export const BEDROCK_CREDENTIALS: JsonSchema = {
  type: "object",
  properties: {
    awsAccessKeyId: { type: "string", minLength: 1, description: "The access key id." },
    awsSecretAccessKey: { type: "string", minLength: 1, description: "The secret access key." },
    awsSessionToken: { type: "string", minLength: 1, description: "A session token, with temporary credentials." },
    awsRegion: { type: "string", pattern: REGION, description: "The region of the guardrail, e.g. us-east-1." },
    awsAuthType: { enum: ["accessKey"], description: "Access keys only (assuming a role is not supported)." },
    accessKeyId: { type: "string", minLength: 1, description: "Older name of `awsAccessKeyId`." },
    accessKeySecret: { type: "string", minLength: 1, description: "Older name of `awsSecretAccessKey`." },
    region: { type: "string", pattern: REGION, description: "Older name of `awsRegion`." },
    guardrailId: { type: "string", pattern: GUARDRAIL_ID, description: "Older place of the `guardrailId` parameter." },
    guardrailVersion: {
      type: "string",
      pattern: GUARDRAIL_VERSION,
      description: "Older place of the `guardrailVersion` parameter.",
    },
    baseURL: baseUrlCredential("https://bedrock-runtime.<region>.amazonaws.com"),
  },
  additionalProperties: false,
};

const NOTES = `
**The call.** \`POST {baseURL}/guardrail/{guardrailId}/version/{guardrailVersion}/apply\` with
\`{source: "INPUT" | "OUTPUT", content: [{text: {text}}]}\` (the side decides the source), signed
with AWS Signature Version 4 (service \`bedrock\`) by AWS's own signer.

**The verdict.** The check fails when \`action\` is \`GUARDRAIL_INTERVENED\`. \`data\` keeps
\`actionReason\` and the assessments (policies, types, confidences, actions), without the
matched text.

**Redaction.** With \`redact: true\`, when the guardrail intervened only by masking sensitive
information (every assessed item's action is \`ANONYMIZED\`, none \`BLOCKED\`), the text is
replaced by Bedrock's \`outputs[0].text\` and the check passes; the request or response keeps its
shape. Anything blocked still fails.

**Guardrail.** \`guardrailId\` and \`guardrailVersion\` are parameters; configs that keep them in
the credentials (the peer gateway's older form) work too.
`;

/** Every `action` of the assessed items (filters, topics, words, entities, regexes). */
function actions(value: unknown, depth = 0, into: string[] = []): string[] {
  if (depth > 8 || typeof value !== "object" || value === null) return into;
  if (Array.isArray(value)) {
    for (const item of value) actions(item, depth + 1, into);
    return into;
  }
  const record = value as Record<string, unknown>;
  if (typeof record.action === "string") into.push(record.action);
  for (const [key, item] of Object.entries(record)) if (key !== "invocationMetrics") actions(item, depth + 1, into);
  return into;
}

export default defineCheck<Parameters>({
  id: "guard",
  name: "Amazon Bedrock guardrail",
  description: "Applies an Amazon Bedrock guardrail to the text; fails when it intervenes, or masks personal data with redact.",
  sides: ["input", "output"],
  kind: "network",
  transforms: true,
  parameters: {
    type: "object",
    properties: {
      guardrailId: { type: "string", pattern: GUARDRAIL_ID, description: "The guardrail's id or ARN." },
      guardrailVersion: { type: "string", pattern: GUARDRAIL_VERSION, description: "A version number, or DRAFT." },
      redact: REDACT_PARAMETER,
      timeout: TIMEOUT_PARAMETER,
    },
    additionalProperties: false,
  },
  data: {
    ...PARTNER_DATA,
    action: { type: "string", description: "Bedrock's `action`: NONE or GUARDRAIL_INTERVENED." },
    actionReason: { type: "string", description: "Bedrock's reason for the action, when given." },
    assessments: { type: "object[]", description: "Bedrock's assessments, without matched text." },
    redacted: { type: "boolean", description: "Whether the text was replaced by Bedrock's masked output." },
  },
  examples: [
    {
      parameters: { guardrailId: "gr0abc123def", guardrailVersion: "1", redact: true },
      text: "I will kill the server if it crashes again.",
      verdict: false,
    },
  ],
  notes: partnerNotes(BEDROCK.name, BEDROCK.id, NOTES),
  async run(context, { guardrailId: idParameter, guardrailVersion: versionParameter, redact, timeout }) {
    const credentials = context.credentials;
    const guardrailId = idParameter ?? optionalCredential(credentials, ["guardrailId"]);
    const guardrailVersion = versionParameter ?? optionalCredential(credentials, ["guardrailVersion"]);
    if (!guardrailId || !guardrailVersion) {
      throw new PartnerError(
        "partner_credentials_invalid",
        `${BEDROCK.name} needs the parameters guardrailId and guardrailVersion`,
      );
    }
    if (context.text.trim() === "") return nothingToEvaluate(BEDROCK.name);
    const accessKeyId = requiredCredential(BEDROCK, credentials, ["awsAccessKeyId", "accessKeyId"]);
    const secretAccessKey = requiredCredential(BEDROCK, credentials, ["awsSecretAccessKey", "accessKeySecret"]);
    const sessionToken = optionalCredential(credentials, ["awsSessionToken"]);
    const region = requiredCredential(BEDROCK, credentials, ["awsRegion", "region"]);
    const base = partnerBaseUrl(BEDROCK, credentials, `https://bedrock-runtime.${region}.amazonaws.com`);
    const url = new URL(
      `${base}/guardrail/${encodeURIComponent(guardrailId)}/version/${encodeURIComponent(guardrailVersion)}/apply`,
    );
    const body = JSON.stringify({
      source: context.side === "input" ? "INPUT" : "OUTPUT",
      content: [{ text: { text: context.text } }],
    });
    const headers = await signRequest(
      { method: "POST", url, headers: { "content-type": "application/json" }, body },
      { accessKeyId, secretAccessKey, ...(sessionToken && { sessionToken }) },
      region,
      "bedrock",
    );
    const answer = await callPartner(context, BEDROCK, { url, headers, body, timeout });
    const action = requiredField(BEDROCK, answer.body, ["action"], "string");
    const assessments = optionalField(BEDROCK, answer.body, ["assessments"], "array") ?? [];
    const actionReason = optionalField(BEDROCK, answer.body, ["actionReason"], "string");
    const intervened = action === "GUARDRAIL_INTERVENED";
    const taken = actions(assessments);
    const onlyMasked = intervened && taken.includes("ANONYMIZED") && !taken.includes("BLOCKED");
    const redacted = redact && onlyMasked;
    const masked = redacted ? requiredField(BEDROCK, answer.body, ["outputs", 0, "text"], "string") : context.text;
    const verdict = !intervened || redacted;
    return {
      verdict,
      data: decisionData(
        {
          verdict,
          explanation: !intervened
            ? `The ${BEDROCK.name} guardrail did not intervene.`
            : redacted
              ? `The ${BEDROCK.name} guardrail masked sensitive information; the text was redacted, so the check passes.`
              : `The ${BEDROCK.name} guardrail intervened${onlyMasked ? " by masking sensitive information (set redact to let the masked text through)" : ""}.`,
          action,
          ...(actionReason !== undefined && { actionReason }),
          assessments,
          redacted,
          ...callFacts(answer),
        },
        context.text,
        ["match", "text"],
      ),
      ...(redacted ? redactionOutcome(context, masked) : {}),
    };
  },
});
