/** The `lasso` plugin: Lasso Security's Deputies, with the peer gateway's check id and parameters. */
import { definePlugin } from "../../core/plugin-api.js";
import { definePartner } from "../partner-kit/index.js";
import classify, { LASSO_CREDENTIALS } from "./classify.js";

export default definePartner({
  vendor: "Lasso Security",
  reference:
    "Lasso publishes no open API reference; the adapter follows the peer gateway's Lasso plugin (`POST /gateway/v2/classify`, `lasso-api-key` header, as Lasso's OpenAPI summary names it)",
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
