/** The `promptfoo` plugin: promptfoo's hosted guardrails, with the peer gateway's check ids. */
import { definePlugin } from "../../core/index.js";
import { definePartner } from "../partner-kit/index.js";
import { guardrailCheck, PROMPTFOO_CREDENTIALS } from "./guardrail-check.js";

/** The plugin with the facts the partner reference is generated from. */
export const partner = definePartner({
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

/** The plugin itself: what the engine loads from this module. */
export default partner.plugin;
