/**
 * `pangea.textGuard`: Pangea AI Guard (`POST /v1/text/guard`) applies a recipe of detectors to the
 * text. It fails when AI Guard blocked the text or any detector found something; with `redact`,
 * the text AI Guard returns (PII replaced, URLs defanged) replaces the evaluated text, and a text
 * that was only transformed, not blocked, passes.
 */
import { defineCheck } from "../../core/plugin-api.js";
import { missingField } from "../partner-call-draft.js";
import { callPangea, VENDOR } from "./pangea-api.js";

interface Parameters {
  recipe?: string;
  debug?: boolean;
  overrides?: Record<string, unknown>;
  redact: boolean;
}

// Fields of detector data that repeat the evaluated text.
const TEXT_FIELDS = new Set(["value", "raw", "text", "prompt_text", "prompt_messages"]);

/** A detector's data without the parts of the evaluated text it quotes. */
export function withoutQuotedText(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutQuotedText);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) if (!TEXT_FIELDS.has(key)) out[key] = withoutQuotedText(item);
  return out;
}

export default defineCheck<Parameters>({
  id: "textGuard",
  name: "Pangea AI Guard",
  description:
    "Pangea AI Guard's recipe of detectors (prompt injection, PII, malicious entities, secrets, toxicity) on the text.",
  sides: ["input", "output"],
  kind: "network",
  transforms: true,
  parameters: {
    type: "object",
    properties: {
      recipe: {
        type: "string",
        description: "Recipe key configured in the Pangea console (pangea_prompt_guard when empty).",
      },
      debug: { type: "boolean", description: "Ask AI Guard for a detailed analysis." },
      overrides: { type: "object", description: "Per-detector overrides of the recipe, as AI Guard accepts them." },
      redact: {
        type: "boolean",
        default: false,
        description:
          "Replace the text with AI Guard's transformed text (redacted, defanged); a transformed text that was not blocked passes.",
      },
    },
    additionalProperties: false,
  },
  data: {
    blocked: { type: "boolean", description: "Whether AI Guard blocked the text." },
    transformed: { type: "boolean", description: "Whether AI Guard changed the text." },
    detected: { type: "string[]", description: "Names of the detectors that found something." },
    detectors: { type: "object", description: "Each detector's `detected` flag and data, without the quoted text." },
    recipe: { type: "string", description: "The recipe AI Guard applied." },
    requestId: { type: "string", description: "Pangea's request id." },
    latencyMs: { type: "number", description: "Time of the call to Pangea." },
  },
  examples: [
    { parameters: { recipe: "pangea_prompt_guard", redact: true }, description: "The prompt recipe, redacting what it finds." },
  ],
  async run(context, { recipe, debug, overrides, redact }) {
    const call = await callPangea(context, "ai-guard", "/v1/text/guard", {
      text: context.text,
      ...(recipe && { recipe }),
      ...(debug !== undefined && { debug }),
      ...(overrides && { overrides }),
    });
    const { result } = call;
    if (typeof result.detectors !== "object" || result.detectors === null) throw missingField(VENDOR, "result.detectors");
    const detectors: Record<string, unknown> = {};
    const detected: string[] = [];
    for (const [name, detector] of Object.entries(result.detectors as Record<string, { detected?: unknown; data?: unknown }>)) {
      if (detector?.detected === true) detected.push(name);
      detectors[name] = { detected: detector?.detected === true, data: withoutQuotedText(detector?.data ?? null) };
    }
    const blocked = result.blocked === true;
    const rewritten =
      typeof result.prompt_text === "string" && result.prompt_text !== context.text ? result.prompt_text : undefined;
    const transformed = redact && !blocked && rewritten !== undefined;
    return {
      verdict: !blocked && (detected.length === 0 || transformed),
      data: {
        blocked,
        transformed: result.transformed === true,
        detected,
        detectors,
        ...(typeof result.recipe === "string" && { recipe: result.recipe }),
        ...(call.requestId && { requestId: call.requestId }),
        latencyMs: call.latencyMs,
      },
      ...(transformed && { transformedText: rewritten }),
    };
  },
});
