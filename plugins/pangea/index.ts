/**
 * The `pangea` plugin: Pangea AI Guard and Redact. Check ids and parameter names are those the
 * peer gateway uses, so its configs run unchanged.
 */
import { definePlugin } from "../../core/index.js";
import { definePartner } from "../partner-kit/index.js";
import { PANGEA_CREDENTIALS } from "./pangea-api.js";
import pii from "./pii.js";
import textGuard from "./textGuard.js";

/** The plugin with the facts the partner reference is generated from. */
export const partner = definePartner({
  vendor: "Pangea (AI Guard, Redact)",
  reference:
    "Pangea API reference: pangea.cloud/docs/api/ai-guard (`POST /v1/text/guard`) and pangea.cloud/docs/api/redact (`POST /v1/redact`)",
  plugin: definePlugin({
    id: "pangea",
    name: "Pangea",
    description: "Pangea AI Guard (detectors for prompt injection, PII, malicious content) and Pangea Redact.",
    class: "PARTNER",
    apiVersion: 1,
    credentials: PANGEA_CREDENTIALS,
    checks: [textGuard, pii],
  }),
  checks: {
    textGuard: {
      verdict:
        "AI Guard blocked the text, or any detector of the recipe reported `detected` (unless `redact` and AI Guard only transformed it)",
      redaction: "the text AI Guard returns (`prompt_text`: PII replaced, URLs defanged)",
    },
    pii: { verdict: "Redact found personal data (`count` > 0), unless `redact`", redaction: "Redact's `redacted_text`" },
  },
});

/** The plugin itself: what the engine loads from this module. */
export default partner.plugin;
