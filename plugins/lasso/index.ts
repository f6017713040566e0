/** The `lasso` plugin: Lasso Security's Deputies, with the peer gateway's check id and parameters. */
import { definePlugin } from "../../core/index.js";
import { definePartner } from "../partner-kit/index.js";
import classify, { LASSO_CREDENTIALS } from "./classify.js";

/** The plugin with the facts the partner reference is generated from. */
export const partner = definePartner({
  vendor: "Lasso Security",
  reference:
    "Lasso publishes no open API reference; the plugin follows the peer gateway's Lasso plugin (`POST /gateway/v2/classify`, `lasso-api-key` header, as Lasso's OpenAPI summary names it)",
  plugin: definePlugin({
    id: "lasso",
    name: "Lasso Security",
    description: "Lasso Security's Deputies: jailbreaks, harmful content and custom policies.",
    class: "PARTNER",
    apiVersion: 1,
    credentials: LASSO_CREDENTIALS,
    checks: [classify],
  }),
  checks: { classify: { verdict: "Lasso reports `violations_detected`" } },
});

/** The plugin itself: what the engine loads from this module. */
export default partner.plugin;
