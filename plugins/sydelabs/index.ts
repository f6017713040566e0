/** The `sydelabs` plugin: SydeLabs' SydeGuard, with the peer gateway's check id and parameter names. */
import { definePlugin } from "../../core/index.js";
import { definePartner } from "../partner-kit/index.js";
import sydeguard, { SYDELABS_CREDENTIALS } from "./sydeguard.js";

/** The plugin with the facts the partner reference is generated from. */
export const partner = definePartner({
  vendor: "SydeLabs SydeGuard",
  reference: "SydeLabs' SydeGuard API example and the peer gateway's plugin (`POST /api/v1/guard/generate-score`)",
  plugin: definePlugin({
    id: "sydelabs",
    name: "SydeLabs",
    description: "SydeLabs' SydeGuard: prompt injection, toxicity and evasion risk scores.",
    class: "PARTNER",
    apiVersion: 1,
    credentials: SYDELABS_CREDENTIALS,
    checks: [sydeguard],
  }),
  checks: { sydeguard: { verdict: "a category's score (PROMPT_INJECT, TOXIC, EVASION) is above its threshold" } },
});

/** The plugin itself: what the engine loads from this module. */
export default partner.plugin;
