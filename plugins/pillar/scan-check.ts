/**
 * Pillar's scans (`POST /api/v1/scan/prompt`, `/api/v1/scan/response`) as checks: the text goes
 * out with the scanners to run, Pillar answers one field per scanner (`true` when it found
 * something), and the check fails when any requested scanner found something. The two checks
 * differ in their side, path and scanners, so both are built here from data.
 */
import { type CheckDefinition, defineCheck, type JsonSchema, type Side } from "../../core/index.js";
import {
  baseUrlCredential,
  callFacts,
  callPartner,
  nothingToEvaluate,
  PARTNER_DATA,
  PartnerError,
  type PartnerService,
  partnerBaseUrl,
  partnerNotes,
  requiredCredential,
  requiredField,
  TIMEOUT_PARAMETER,
} from "../partner-kit/index.js";

export const PILLAR: PartnerService = { id: "pillar", name: "Pillar" };
const DEFAULT_BASE = "https://api.pillarseclabs.com";

/** Credentials of the Pillar plugin. */
export const PILLAR_CREDENTIALS: JsonSchema = {
  type: "object",
  properties: {
    apiKey: { type: "string", minLength: 1, description: "A Pillar API key (Pillar dashboard)." },
    baseURL: baseUrlCredential(DEFAULT_BASE),
  },
  required: ["apiKey"],
};

/** One of Pillar's scans. */
export interface ScanSpec {
  id: string;
  name: string;
  side: Side;
  path: string;
  scanners: readonly string[];
  /** The text of the check's example, and the verdict Pillar gives on it. */
  example: { text: string; verdict: boolean };
}

interface Parameters {
  scanners: string[];
  timeout: number;
}

/** Builds the check of one scan. */
export function scanCheck(spec: ScanSpec): CheckDefinition<Parameters> {
  const what = spec.side === "input" ? "prompt" : "model's answer";
  return defineCheck<Parameters>({
    id: spec.id,
    name: spec.name,
    description: `Pillar's scanners (${spec.scanners.join(", ")}) on the ${what}.`,
    sides: [spec.side],
    kind: "network",
    parameters: {
      type: "object",
      properties: {
        scanners: {
          type: "array",
          items: { enum: [...spec.scanners] },
          minItems: 1,
          uniqueItems: true,
          default: [...spec.scanners],
          description: "The scanners whose findings fail the check.",
        },
        timeout: TIMEOUT_PARAMETER,
      },
      additionalProperties: false,
    },
    data: {
      ...PARTNER_DATA,
      findings: { type: "object", description: "Each requested scanner's answer: true (found), false, or null (not run)." },
      found: { type: "string[]", description: "The scanners that found something." },
    },
    examples: [
      { parameters: { scanners: spec.scanners.slice(0, 2) }, description: `Two scanners on the ${what}.`, ...spec.example },
    ],
    notes: partnerNotes(
      PILLAR.name,
      PILLAR.id,
      `Posts \`{message, scanners}\` to \`https://api.pillarseclabs.com${spec.path}\`. The check fails when any
requested scanner answers \`true\`; a requested scanner missing from the answer is an error.`,
    ),
    async run(context, { scanners, timeout }) {
      if (context.text.trim() === "") return nothingToEvaluate(PILLAR.name);
      const key = requiredCredential(PILLAR, context.credentials, ["apiKey"]);
      const answer = await callPartner(context, PILLAR, {
        url: `${partnerBaseUrl(PILLAR, context.credentials, DEFAULT_BASE)}${spec.path}`,
        headers: { authorization: `Bearer ${key}` },
        json: { message: context.text, scanners: Object.fromEntries(scanners.map((s) => [s, true])) },
        timeout,
      });
      const body = requiredField(PILLAR, answer.body, [], "object");
      const findings: Record<string, boolean | null> = {};
      for (const scanner of scanners) {
        const value = body[scanner];
        if (value !== null && typeof value !== "boolean") {
          throw new PartnerError(
            "partner_answer_invalid",
            `${PILLAR.name}'s answer has no \`${scanner}\` (expected boolean or null)`,
          );
        }
        findings[scanner] = value;
      }
      const found = scanners.filter((s) => findings[s] === true);
      const verdict = found.length === 0;
      return {
        verdict,
        data: {
          verdict,
          explanation: verdict ? "Pillar's scanners found nothing" : `Pillar found: ${found.join(", ")}`,
          findings,
          found,
          ...callFacts(answer),
        },
      };
    },
  });
}
