/** The `bedrock` partner plugin: Amazon Bedrock Guardrails (ApplyGuardrail) as a check. */
import { definePlugin } from "../../core/index.js";
import { definePartner } from "../partner-kit/index.js";
import guard, { BEDROCK_CREDENTIALS } from "./guard.js";

/** The facts docs/partners.md is generated from. */
export const partner = definePartner({
  vendor: "Amazon Bedrock Guardrails",
  reference: "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ApplyGuardrail.html",
  plugin: definePlugin({
    id: "bedrock",
    name: "Amazon Bedrock Guardrails",
    description: "Applies a guardrail configured in Amazon Bedrock, signed with the account's access key.",
    class: "PARTNER",
    apiVersion: 1,
    credentials: BEDROCK_CREDENTIALS,
    checks: [guard],
  }),
  checks: {
    guard: {
      verdict: "`action` is `GUARDRAIL_INTERVENED` (passes when `redact` applied a masking-only intervention)",
      redaction: "sensitive information the guardrail anonymized, by Bedrock's `outputs[0].text`",
    },
  },
});

/** The plugin, as the engine loads this module. */
export default partner.plugin;
