/** The `aporia` plugin: Aporia Guardrails projects, with the peer gateway's check id and parameter names. */
import { definePlugin } from "../../core/plugin-api.js";
import { definePartner } from "../partner-kit/index.js";
import validateProject, { APORIA_CREDENTIALS } from "./validateProject.js";

export default definePartner({
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
