/** The `lakera` partner plugin: Lakera Guard screening as a check. */
import { definePlugin } from "../../core/index.js";
import { definePartner } from "../partner-kit/index.js";
import guard, { LAKERA_CREDENTIALS } from "./guard.js";

/** The facts docs/partners.md is generated from. */
export const partner = definePartner({
  vendor: "Lakera Guard",
  reference: "https://docs.lakera.ai/docs/api/guard",
  plugin: definePlugin({
    id: "lakera",
    name: "Lakera Guard",
    description: "Screens prompts and answers with Lakera Guard under a project's policy.",
    class: "PARTNER",
    apiVersion: 1,
    credentials: LAKERA_CREDENTIALS,
    checks: [guard],
  }),
  checks: {
    guard: {
      verdict: "`flagged` (passes when `redact` masked a flag raised only by `pii/…` detectors)",
      redaction: "the `payload` spans of personal-data detectors, as `[EMAIL]`, `[PHONE_NUMBER]`…",
    },
  },
});

/** The plugin, as the engine loads this module. */
export default partner.plugin;
