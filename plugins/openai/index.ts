/** The `openai` partner plugin: OpenAI's moderation endpoint as a check. */
import { definePlugin } from "../../core/index.js";
import { definePartner } from "../partner-kit/index.js";
import moderation from "./moderation.js";
import { OPENAI, OPENAI_CREDENTIALS } from "./service.js";

/** The facts docs/partners.md is generated from. */
export const partner = definePartner({
  vendor: "OpenAI moderation",
  reference: "https://platform.openai.com/docs/api-reference/moderations",
  plugin: definePlugin({
    id: OPENAI.id,
    name: "OpenAI moderation",
    description: "Checks text with OpenAI's moderation models.",
    class: "PARTNER",
    apiVersion: 1,
    credentials: OPENAI_CREDENTIALS,
    checks: [moderation],
  }),
  checks: {
    moderation: {
      verdict: "`results[].flagged` (or a chosen category flagged), or a category score at or over its threshold",
    },
  },
});

/** The plugin, as the engine loads this module. */
export default partner.plugin;
