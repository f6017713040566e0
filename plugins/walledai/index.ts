/** The `walledai` plugin: Walled AI's WalledProtect, with the peer gateway's check id and parameter names. */
import { definePlugin } from "../../core/index.js";
import { definePartner } from "../partner-kit/index.js";
import walledprotect, { WALLED_CREDENTIALS } from "./walledprotect.js";

/** The plugin with the facts the partner reference is generated from. */
export const partner = definePartner({
  vendor: "Walled AI",
  reference: "Walled AI's API documentation and the peer gateway's plugin (`POST /v1/walled-protect`)",
  plugin: definePlugin({
    id: "walledai",
    name: "Walled AI",
    description: "Walled AI's WalledProtect: safety, PII, compliance and greetings.",
    class: "PARTNER",
    apiVersion: 1,
    credentials: WALLED_CREDENTIALS,
    checks: [walledprotect],
  }),
  checks: { walledprotect: { verdict: "Walled AI's `data.safety[0].isSafe` is false" } },
});

/** The plugin itself: what the engine loads from this module. */
export default partner.plugin;
