/** The `panw-prisma-airs` plugin: Palo Alto Networks Prisma AIRS API intercept, with the peer gateway's ids and parameters. */
import { definePlugin } from "../../core/index.js";
import { definePartner } from "../partner-kit/index.js";
import intercept, { PRISMA_AIRS_CREDENTIALS } from "./intercept.js";

/** The plugin with the facts the partner reference is generated from. */
export const partner = definePartner({
  vendor: "Palo Alto Networks Prisma AIRS",
  reference: "Prisma AIRS AI Runtime API reference on pan.dev (`POST /v1/scan/sync/request`, `x-pan-token` header)",
  plugin: definePlugin({
    id: "panw-prisma-airs",
    name: "Prisma AIRS",
    description: "Palo Alto Networks Prisma AIRS: prompt and answer scans with a security profile.",
    class: "PARTNER",
    apiVersion: 1,
    credentials: PRISMA_AIRS_CREDENTIALS,
    checks: [intercept],
  }),
  checks: { intercept: { verdict: "AIRS's `action` is `block`" } },
});

/** The plugin itself: what the engine loads from this module. */
export default partner.plugin;
