/**
 * The `pangea` plugin: Pangea AI Guard and Redact. Check ids and parameter names are those the
 * peer gateway uses, so its configs run unchanged.
 */
import { definePlugin } from "../../core/plugin-api.js";
import pii from "./pii.js";
import { PANGEA_CREDENTIALS } from "./pangea-api.js";
import textGuard from "./textGuard.js";

export default definePlugin({
  id: "pangea",
  name: "Pangea",
  description: "Pangea AI Guard (detectors for prompt injection, PII, malicious content) and Pangea Redact.",
  class: "PARTNER",
  apiVersion: 1,
  credentials: PANGEA_CREDENTIALS,
  checks: [textGuard, pii],
});
