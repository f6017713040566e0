/** The `google` partner plugin: Google Cloud Model Armor as a check. */
import { definePlugin } from "../../core/index.js";
import { definePartner } from "../partner-kit/index.js";
import modelArmor, { GOOGLE_CREDENTIALS } from "./modelArmor.js";

/** The facts docs/partners.md is generated from. */
export const partner = definePartner({
  vendor: "Google Model Armor",
  reference:
    "https://cloud.google.com/security-command-center/docs/sanitize-prompts-responses (templates.sanitizeUserPrompt, templates.sanitizeModelResponse) and https://developers.google.com/identity/protocols/oauth2/service-account (token exchange)",
  plugin: definePlugin({
    id: "google",
    name: "Google Model Armor",
    description: "Applies Google Cloud Model Armor templates, with a service account's token.",
    class: "PARTNER",
    apiVersion: 1,
    credentials: GOOGLE_CREDENTIALS,
    checks: [modelArmor],
  }),
  checks: {
    modelArmor: {
      verdict: "`sanitizationResult.filterMatchState` is `MATCH_FOUND` (passes when `redact` applied a de-identification)",
      redaction: "sensitive data the template's `sdp` filter de-identified",
    },
  },
});

/** The plugin, as the engine loads this module. */
export default partner.plugin;
