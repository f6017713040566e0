/**
 * `walledai.walledprotect`: Walled AI's WalledProtect (`POST /v1/walled-protect`) judges the text's
 * safety and reports PII, compliance and greeting findings; the check fails when Walled AI judges
 * the text unsafe.
 */
import { defineCheck, type JsonSchema } from "../../core/index.js";
import {
  baseUrlCredential,
  callFacts,
  callPartner,
  decisionData,
  nothingToEvaluate,
  PARTNER_DATA,
  type PartnerService,
  partnerBaseUrl,
  partnerNotes,
  requiredCredential,
  requiredField,
  TIMEOUT_PARAMETER,
} from "../partner-kit/index.js";

export const WALLED: PartnerService = { id: "walledai", name: "Walled AI" };
const DEFAULT_BASE = "https://services.walled.ai";
const PII_TYPES = ["Person's Name", "Address", "Email Id", "Contact No", "Date Of Birth", "Unique Id", "Financial Data"];

/** Credentials of the Walled AI plugin. */
export const WALLED_CREDENTIALS: JsonSchema = {
  type: "object",
  properties: {
    apiKey: { type: "string", minLength: 1, description: "A Walled AI API key (dev.walled.ai)." },
    baseURL: baseUrlCredential(DEFAULT_BASE),
  },
  required: ["apiKey"],
};

interface Parameters {
  generic_safety_check: boolean | string;
  greetings_list: string[];
  pii_list: string[];
  compliance_list: string[];
  timeout: number;
}

export default defineCheck<Parameters>({
  id: "walledprotect",
  name: "Walled AI WalledProtect",
  description: "Walled AI's WalledProtect: safety of the text, with PII, compliance and greeting findings.",
  sides: ["input", "output"],
  kind: "network",
  parameters: {
    type: "object",
    properties: {
      generic_safety_check: {
        type: ["boolean", "string"],
        default: true,
        description: 'Run the generic safety check (the peer gateway also accepts the strings "true" and "false").',
      },
      greetings_list: {
        type: "array",
        items: { type: "string" },
        default: ["Casual & Friendly"],
        description: "Greeting styles to check (Casual & Friendly, Professional & Polite).",
      },
      pii_list: { type: "array", items: { enum: PII_TYPES }, default: PII_TYPES, description: "PII types to report." },
      compliance_list: { type: "array", items: { type: "string" }, default: [], description: "Compliance topics to check." },
      timeout: TIMEOUT_PARAMETER,
    },
    additionalProperties: false,
  },
  data: {
    ...PARTNER_DATA,
    safety: { type: "object[]", description: "Walled AI's safety judgements." },
    pii: { type: "object[]", description: "The PII types present." },
    compliance: { type: "object[]", description: "Compliance findings." },
  },
  examples: [
    {
      parameters: { pii_list: ["Email Id"], compliance_list: ["medical advice"] },
      description: "E-mail PII and one topic.",
      text: "Only an idiot would ask that.",
      verdict: false,
    },
  ],
  notes: partnerNotes(
    WALLED.name,
    WALLED.id,
    `Posts \`{text, generic_safety_check, greetings_list, pii_list, compliance_list}\` to
\`https://services.walled.ai/v1/walled-protect\`; the check fails when \`data.safety[0].isSafe\` is false.`,
  ),
  async run(context, p) {
    if (context.text.trim() === "") return nothingToEvaluate(WALLED.name);
    const key = requiredCredential(WALLED, context.credentials, ["apiKey"]);
    const answer = await callPartner(context, WALLED, {
      url: `${partnerBaseUrl(WALLED, context.credentials, DEFAULT_BASE)}/v1/walled-protect`,
      headers: { "x-api-key": key },
      json: {
        text: context.text,
        generic_safety_check: p.generic_safety_check !== false && p.generic_safety_check !== "false",
        greetings_list: p.greetings_list,
        pii_list: p.pii_list,
        compliance_list: p.compliance_list,
      },
      timeout: p.timeout,
    });
    const safe = requiredField(WALLED, answer.body, ["data", "safety", 0, "isSafe"], "boolean");
    const data = (answer.body as { data: Record<string, unknown> }).data;
    return {
      verdict: safe,
      data: {
        verdict: safe,
        explanation: safe ? "Walled AI judged the text safe" : "Walled AI judged the text unsafe",
        safety: decisionData(data.safety, context.text),
        ...(Array.isArray(data.pii) && { pii: decisionData(data.pii, context.text) }),
        ...(Array.isArray(data.compliance) && { compliance: decisionData(data.compliance, context.text) }),
        ...callFacts(answer),
      },
    };
  },
});
