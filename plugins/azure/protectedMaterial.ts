/**
 * `azure.protectedMaterial`: Azure AI Content Safety's protected material detection on the model's
 * answer. The check fails when Azure finds known protected text (song lyrics, articles, recipes).
 */
import { defineCheck } from "../../core/index.js";
import {
  callFacts,
  decisionData,
  nothingToEvaluate,
  PARTNER_DATA,
  partnerNotes,
  requiredField,
  TIMEOUT_PARAMETER,
} from "../partner-kit/index.js";
import { apiVersionParameter, CONTENT_SAFETY, CONTENT_SAFETY_API_VERSION, callAzure } from "./service.js";

interface Parameters {
  apiVersion: string;
  timeout: number;
}

const NOTES = `
**The call.** \`POST {endpoint}/contentsafety/text:detectProtectedMaterial?api-version=…\` with
\`{text}\`. Azure documents a minimum of 110 characters for a meaningful answer and a maximum of
1,000; outside that range Azure may answer 400, a check error.

**The verdict.** The check fails when \`protectedMaterialAnalysis.detected\` is true. Output side
only: it screens what the model wrote.
`;

export default defineCheck<Parameters>({
  id: "protectedMaterial",
  name: "Azure protected material",
  description: "Fails when Azure AI Content Safety detects protected material (lyrics, articles, recipes) in the model's answer.",
  sides: ["output"],
  kind: "network",
  parameters: {
    type: "object",
    properties: { apiVersion: apiVersionParameter(CONTENT_SAFETY_API_VERSION), timeout: TIMEOUT_PARAMETER },
    additionalProperties: false,
  },
  data: {
    ...PARTNER_DATA,
    detected: { type: "boolean", description: "Azure's `protectedMaterialAnalysis.detected`." },
  },
  examples: [
    {
      parameters: {},
      description: "An answer in its own words passes.",
      text: "The meeting moved to Thursday at ten.",
      verdict: true,
    },
  ],
  notes: partnerNotes(CONTENT_SAFETY.name, "azure", NOTES),
  async run(context, { apiVersion, timeout }) {
    if (context.text.trim() === "") return nothingToEvaluate(CONTENT_SAFETY.name);
    const answer = await callAzure(
      context,
      CONTENT_SAFETY,
      "contentSafety",
      "/contentsafety/text:detectProtectedMaterial",
      apiVersion,
      { text: context.text },
      timeout,
    );
    const detected = requiredField(CONTENT_SAFETY, answer.body, ["protectedMaterialAnalysis", "detected"], "boolean");
    return {
      verdict: !detected,
      data: decisionData(
        {
          verdict: !detected,
          explanation: detected
            ? `${CONTENT_SAFETY.name} detected protected material in the text.`
            : `${CONTENT_SAFETY.name} detected no protected material.`,
          detected,
          ...callFacts(answer),
        },
        context.text,
      ),
    };
  },
});
