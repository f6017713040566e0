/** The `promptfoo` plugin: promptfoo's hosted guardrails, with the peer gateway's check ids. */
import { definePlugin } from "../../core/plugin-api.js";
import { definePartner } from "../partner-kit/index.js";
import { guardrailCheck, PROMPTFOO_CREDENTIALS } from "./guardrail-check.js";

export default definePartner({
  vendor: "promptfoo",
  reference:
    "promptfoo's guardrails API documentation (promptfoo.dev/docs/red-team/guardrails: `POST /v1/guard`, `/v1/pii`, `/v1/harm`)",
  plugin: definePlugin({
    id: "promptfoo",
    name: "promptfoo",
    description: "promptfoo's hosted guardrails: jailbreaks, harmful content and PII.",
    class: "PARTNER",
    apiVersion: 1,
    credentials: PROMPTFOO_CREDENTIALS,
    checks: [guardrailCheck("guard"), guardrailCheck("harm"), guardrailCheck("pii")],
  }),
  checks: {
    guard: { verdict: "`categories.jailbreak` is true" },
    harm: { verdict: "`flagged` is true" },
    pii: { verdict: "`flagged` is true, unless `redact`", redaction: "the spans in `payload.pii`, as `[<ENTITY_TYPE>]`" },
  },
});
