/** The `f5-guardrails` plugin: F5 AI Guardrails (CalypsoAI), with the peer gateway's ids and parameter names. */
import { definePlugin } from "../../core/index.js";
import { definePartner } from "../partner-kit/index.js";
import scan, { F5_CREDENTIALS } from "./scan.js";

/** The plugin with the facts the partner reference is generated from. */
export const partner = definePartner({
  vendor: "F5 AI Guardrails (CalypsoAI)",
  reference: "CalypsoAI's platform API as its documentation and the peer gateway's plugin give it (`POST /backend/v1/scans`)",
  plugin: definePlugin({
    id: "f5-guardrails",
    name: "F5 AI Guardrails",
    description: "F5 AI Guardrails (CalypsoAI): project scanners on prompts and answers, with redaction.",
    class: "PARTNER",
    apiVersion: 1,
    credentials: F5_CREDENTIALS,
    checks: [scan],
  }),
  checks: {
    scan: {
      verdict: "F5's `result.outcome` is anything but `cleared` (a `redacted` outcome passes with `redact`)",
      redaction: "F5's `redactedInput`",
    },
  },
});

/** The plugin itself: what the engine loads from this module. */
export default partner.plugin;
