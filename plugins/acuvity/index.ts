/** The `acuvity` plugin: Acuvity Apex scans, with the peer gateway's check id and parameter names. */
import { definePlugin } from "../../core/index.js";
import { definePartner } from "../partner-kit/index.js";
import scan, { ACUVITY_CREDENTIALS } from "./scan.js";

/** The plugin with the facts the partner reference is generated from. */
export const partner = definePartner({
  vendor: "Acuvity",
  reference:
    "Acuvity's Apex API as its official TypeScript SDK (`@acuvity/acuvity`, `apex.scan`, `POST /_acuvity/scan`) models it; the Apex URL from the token's `opaque[\"apex-url\"]` claim",
  plugin: definePlugin({
    id: "acuvity",
    name: "Acuvity",
    description: "Acuvity Apex: exploits, malicious content, language, PII and secrets, with thresholds and redaction.",
    class: "PARTNER",
    apiVersion: 1,
    credentials: ACUVITY_CREDENTIALS,
    checks: [scan],
  }),
  checks: {
    scan: {
      verdict:
        "an enabled guard's score reaches its threshold (exploits, malcontents), the text is not in `language_values` (`language`), or PII or secrets not redacted are found",
      redaction: "PII and secrets of the listed categories, as Apex's redacted text (`pii_redact`, `secrets_redact`)",
    },
  },
});

/** The plugin itself: what the engine loads from this module. */
export default partner.plugin;
