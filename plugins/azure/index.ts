/** The `azure` partner plugin: Azure AI Content Safety (text analysis, Prompt Shields, protected material) and Azure AI Language PII detection. */
import { definePlugin } from "../../core/index.js";
import { definePartner } from "../partner-kit/index.js";
import contentSafety from "./contentSafety.js";
import pii from "./pii.js";
import protectedMaterial from "./protectedMaterial.js";
import { AZURE_CREDENTIALS } from "./service.js";
import shieldPrompt from "./shieldPrompt.js";

/** The facts docs/partners.md is generated from. */
export const partner = definePartner({
  vendor: "Azure AI Content Safety",
  reference:
    "https://learn.microsoft.com/en-us/rest/api/contentsafety/text-operations (text:analyze, text:shieldPrompt, text:detectProtectedMaterial, version 2024-09-01) and https://learn.microsoft.com/en-us/rest/api/language/analyze-text/analyze-text (PiiEntityRecognition)",
  plugin: definePlugin({
    id: "azure",
    name: "Azure AI Content Safety",
    description: "Azure AI Content Safety and Azure AI Language checks, with the resource's key.",
    class: "PARTNER",
    apiVersion: 1,
    credentials: AZURE_CREDENTIALS,
    checks: [contentSafety, shieldPrompt, pii, protectedMaterial],
  }),
  checks: {
    contentSafety: { verdict: "a category's `severity` at or above `severity`, or any `blocklistsMatch`" },
    shieldPrompt: { verdict: "`userPromptAnalysis.attackDetected`, or `attackDetected` of a tool result in `documentsAnalysis`" },
    pii: {
      verdict: "any entity in `results.documents[0].entities` (passes when `redact` masked them)",
      redaction: "the entities, by Azure's `redactedText`",
    },
    protectedMaterial: { verdict: "`protectedMaterialAnalysis.detected`" },
  },
});

/** The plugin, as the engine loads this module. */
export default partner.plugin;
