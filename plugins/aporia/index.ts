/** The `aporia` plugin: Aporia Guardrails projects, with the peer gateway's check id and parameter names. */
import { definePlugin } from "../../core/index.js";
import { definePartner } from "../partner-kit/index.js";
import validateProject, { APORIA_CREDENTIALS } from "./validateProject.js";

/** The plugin with the facts the partner reference is generated from. */
export const partner = definePartner({
  vendor: "Aporia Guardrails",
  reference: "Aporia's REST API guide, gr-docs.aporia.com/fundamentals/integration/rest-api (`POST /<PROJECT_ID>/validate`)",
  plugin: definePlugin({
    id: "aporia",
    name: "Aporia",
    description: "Aporia Guardrails: a project's policies on prompts and answers.",
    class: "PARTNER",
    apiVersion: 1,
    credentials: APORIA_CREDENTIALS,
    checks: [validateProject],
  }),
  checks: {
    validateProject: { verdict: "Aporia's `action` is anything but `passthrough` (block, modify, rephrase)" },
  },
});

/** The plugin itself: what the engine loads from this module. */
export default partner.plugin;
