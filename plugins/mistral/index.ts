/** The `mistral` partner plugin: Mistral's moderation models as a check. */
import { definePlugin } from "../../core/index.js";
import { definePartner } from "../partner-kit/index.js";
import moderateContent, { MISTRAL_CREDENTIALS } from "./moderateContent.js";

/** The facts docs/partners.md is generated from. */
export const partner = definePartner({
  vendor: "Mistral moderation",
  reference: "https://docs.mistral.ai/capabilities/guardrailing/ (POST /v1/moderations, POST /v1/chat/moderations)",
  plugin: definePlugin({
    id: "mistral",
    name: "Mistral moderation",
    description: "Classifies text and conversations with Mistral's moderation models.",
    class: "PARTNER",
    apiVersion: 1,
    credentials: MISTRAL_CREDENTIALS,
    checks: [moderateContent],
  }),
  checks: { moderateContent: { verdict: "one of `categories` true in `results[0].categories`" } },
});

/** The plugin, as the engine loads this module. */
export default partner.plugin;
