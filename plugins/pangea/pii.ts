/**
 * `pangea.pii`: Pangea Redact (`POST /v1/redact`) finds personal data with the account's redaction
 * rules. It fails when anything was found; with `redact`, Redact's text replaces the evaluated text
 * and the check passes.
 */
import { defineCheck } from "../../core/index.js";
import {
  nothingToEvaluate,
  PARTNER_DATA,
  partnerNotes,
  REDACT_PARAMETER,
  redactionOutcome,
  requiredField,
  TIMEOUT_PARAMETER,
} from "../partner-kit/index.js";
import { callPangea, PANGEA } from "./pangea-api.js";

interface Parameters {
  redact: boolean;
  timeout: number;
}

export default defineCheck<Parameters>({
  id: "pii",
  name: "Pangea PII",
  description: "Pangea Redact finds personal data in the text and can redact it.",
  sides: ["input", "output"],
  kind: "network",
  transforms: true,
  parameters: {
    type: "object",
    properties: { redact: REDACT_PARAMETER, timeout: TIMEOUT_PARAMETER },
    additionalProperties: false,
  },
  data: {
    ...PARTNER_DATA,
    count: { type: "number", description: "How many items Redact found." },
    redacted: { type: "boolean", description: "Whether the redacted text replaced the original." },
  },
  examples: [
    {
      parameters: { redact: true },
      description: "Redact personal data before the model sees it.",
      text: "Write to jane.doe@example.com for the refund.",
      verdict: true,
    },
  ],
  notes: partnerNotes(
    PANGEA.name,
    PANGEA.id,
    `Posts the evaluated text to Redact (\`https://redact.<domain>/v1/redact\`); the check fails when
\`result.count\` is above zero. With \`redact\`, \`result.redacted_text\` replaces the evaluated text and the
check passes.`,
  ),
  async run(context, { redact, timeout }) {
    if (context.text.trim() === "") return nothingToEvaluate(PANGEA.name);
    const call = await callPangea(context, "redact", "/v1/redact", { text: context.text }, timeout);
    const count = requiredField(PANGEA, call.result, ["count"], "number");
    const redacted = redact && count > 0;
    const masked = redacted ? requiredField(PANGEA, call.result, ["redacted_text"], "string") : context.text;
    return {
      verdict: count === 0 || redacted,
      data: {
        verdict: count === 0 || redacted,
        explanation:
          count === 0 ? "Redact found no personal data" : `Redact found ${count} item(s)${redacted ? " and redacted them" : ""}`,
        count,
        redacted,
        ...(call.requestId && { requestId: call.requestId }),
        latencyMs: call.latencyMs,
      },
      ...(redacted && redactionOutcome(context, masked)),
    };
  },
});
