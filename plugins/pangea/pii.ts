/**
 * `pangea.pii`: Pangea Redact (`POST /v1/redact`) finds personal data with the account's redaction
 * rules. It fails when anything was found; with `redact`, Redact's text replaces the evaluated text
 * and the check passes.
 */
import { defineCheck } from "../../core/plugin-api.js";
import { missingField } from "../partner-call-draft.js";
import { callPangea, VENDOR } from "./pangea-api.js";

interface Parameters {
  redact: boolean;
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
    properties: {
      redact: { type: "boolean", default: false, description: "Replace the text with Redact's redacted text and pass." },
    },
    additionalProperties: false,
  },
  data: {
    count: { type: "number", description: "How many items Redact found." },
    redacted: { type: "boolean", description: "Whether the redacted text replaced the original." },
    summary: { type: "string", description: "Pangea's summary of the call." },
    requestId: { type: "string", description: "Pangea's request id." },
    latencyMs: { type: "number", description: "Time of the call to Pangea." },
  },
  examples: [{ parameters: { redact: true }, description: "Redact personal data before the model sees it." }],
  async run(context, { redact }) {
    const call = await callPangea(context, "redact", "/v1/redact", { text: context.text });
    const { result } = call;
    if (typeof result.count !== "number") throw missingField(VENDOR, "result.count");
    if (result.count > 0 && typeof result.redacted_text !== "string") throw missingField(VENDOR, "result.redacted_text");
    const redacted = redact && result.count > 0;
    return {
      verdict: result.count === 0 || redacted,
      data: {
        count: result.count,
        redacted,
        ...(call.summary && { summary: call.summary }),
        ...(call.requestId && { requestId: call.requestId }),
        latencyMs: call.latencyMs,
      },
      ...(redacted && { transformedText: result.redacted_text as string }),
    };
  },
});
