/**
 * `azure.contentSafety`: Azure AI Content Safety's text analysis. The check fails when a harm
 * category's severity reaches the threshold, or when the text matches one of the named blocklists.
 */
import { defineCheck } from "../../core/index.js";
import {
  callFacts,
  decisionData,
  nothingToEvaluate,
  optionalField,
  PARTNER_DATA,
  partnerNotes,
  requiredField,
  TIMEOUT_PARAMETER,
} from "../partner-kit/index.js";
import { apiVersionParameter, CONTENT_SAFETY, CONTENT_SAFETY_API_VERSION, callAzure } from "./service.js";

interface Parameters {
  categories: string[];
  severity: number;
  blocklistNames: string[];
  haltOnBlocklistHit: boolean;
  outputType: "FourSeverityLevels" | "EightSeverityLevels";
  apiVersion: string;
  timeout: number;
}

const CATEGORIES = ["Hate", "SelfHarm", "Sexual", "Violence"];

const NOTES = `
**The call.** \`POST {endpoint}/contentsafety/text:analyze?api-version=…\` with \`{text, categories,
blocklistNames, haltOnBlocklistHit, outputType}\` and the key in \`Ocp-Apim-Subscription-Key\`.
Azure analyses up to 10,000 characters; a longer text is Azure's 400, a check error.

**The verdict.** The check fails when any analysed category's \`severity\` is at or above
\`severity\` (0 safe, 2 low, 4 medium, 6 high on the four-level scale), or when \`blocklistsMatch\`
holds any match. \`data\` keeps every category's severity and the matched blocklists' names and
item ids, not the matched text.
`;

export default defineCheck<Parameters>({
  id: "contentSafety",
  name: "Azure AI Content Safety",
  description:
    "Fails when Azure AI Content Safety rates a harm category at or above the severity threshold, or a blocklist matches.",
  sides: ["input", "output"],
  kind: "network",
  parameters: {
    type: "object",
    properties: {
      categories: {
        type: "array",
        items: { enum: CATEGORIES },
        uniqueItems: true,
        minItems: 1,
        default: CATEGORIES,
        description: "Harm categories to analyse.",
      },
      severity: {
        type: "integer",
        minimum: 0,
        maximum: 7,
        default: 2,
        description: "Severity at or above which a category fails the check.",
      },
      blocklistNames: {
        type: "array",
        items: { type: "string", minLength: 1 },
        default: [],
        description: "Blocklists of the resource to match the text against.",
      },
      haltOnBlocklistHit: {
        type: "boolean",
        default: false,
        description: "Skip the harm analysis once a blocklist matches (the check fails either way).",
      },
      outputType: {
        enum: ["FourSeverityLevels", "EightSeverityLevels"],
        default: "FourSeverityLevels",
        description: "Severity scale of the answer: 0, 2, 4, 6, or 0 to 7.",
      },
      apiVersion: apiVersionParameter(CONTENT_SAFETY_API_VERSION),
      timeout: TIMEOUT_PARAMETER,
    },
    additionalProperties: false,
  },
  data: {
    ...PARTNER_DATA,
    categoriesAnalysis: { type: "Array<{category, severity}>", description: "Azure's severity per analysed category." },
    failedCategories: { type: "string[]", description: "Categories at or above the threshold." },
    blocklistsMatch: { type: "Array<{blocklistName, blocklistItemId}>", description: "Blocklist items that matched." },
  },
  examples: [
    {
      parameters: { severity: 4, categories: ["Hate", "Violence"], blocklistNames: ["competitors"] },
      text: "I will kill the server if it crashes again.",
      verdict: false,
    },
  ],
  notes: partnerNotes(CONTENT_SAFETY.name, "azure", NOTES),
  async run(context, p) {
    if (context.text.trim() === "") return nothingToEvaluate(CONTENT_SAFETY.name);
    const answer = await callAzure(
      context,
      CONTENT_SAFETY,
      "contentSafety",
      "/contentsafety/text:analyze",
      p.apiVersion,
      {
        text: context.text,
        categories: p.categories,
        blocklistNames: p.blocklistNames,
        haltOnBlocklistHit: p.haltOnBlocklistHit,
        outputType: p.outputType,
      },
      p.timeout,
    );
    const analysis = requiredField(CONTENT_SAFETY, answer.body, ["categoriesAnalysis"], "array").map((_, i) => ({
      category: requiredField(CONTENT_SAFETY, answer.body, ["categoriesAnalysis", i, "category"], "string"),
      severity: requiredField(CONTENT_SAFETY, answer.body, ["categoriesAnalysis", i, "severity"], "number"),
    }));
    const matches = (optionalField(CONTENT_SAFETY, answer.body, ["blocklistsMatch"], "array") ?? []).map((_, i) => ({
      blocklistName: requiredField(CONTENT_SAFETY, answer.body, ["blocklistsMatch", i, "blocklistName"], "string"),
      blocklistItemId: optionalField(CONTENT_SAFETY, answer.body, ["blocklistsMatch", i, "blocklistItemId"], "string") ?? null,
    }));
    const failedCategories = analysis.filter((a) => a.severity >= p.severity).map((a) => a.category);
    const verdict = failedCategories.length === 0 && matches.length === 0;
    const reasons: string[] = [];
    if (failedCategories.length) reasons.push(`rated ${failedCategories.join(", ")} at severity ${p.severity} or above`);
    if (matches.length) reasons.push(`matched blocklist ${[...new Set(matches.map((m) => m.blocklistName))].join(", ")}`);
    return {
      verdict,
      data: decisionData(
        {
          verdict,
          explanation: verdict
            ? `${CONTENT_SAFETY.name} rated every category below severity ${p.severity} and matched no blocklist.`
            : `${CONTENT_SAFETY.name} ${reasons.join(" and ")}.`,
          categoriesAnalysis: analysis,
          failedCategories,
          blocklistsMatch: matches,
          ...callFacts(answer),
        },
        context.text,
      ),
    };
  },
});
