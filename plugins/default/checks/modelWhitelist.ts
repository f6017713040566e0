import { type CheckContext, defineCheck, GuardgateError } from "../../../core/index.js";
import { type ModelReference, matchingEntries, requestedModel } from "../shared/model-reference.js";

/** A rule of the peer gateway's form: requests whose metadata key holds one of `values` may use `models`. */
interface MetadataRule {
  metadataKey: string;
  values: string[];
  models: string[];
}

interface Parameters {
  models?: string[];
  metadataRules?: MetadataRule[];
  not: boolean;
}

/** The model of the request, or a check error: an allow-list cannot judge a request with no model. */
export function modelOrError(context: CheckContext, checkId: string): ModelReference {
  const requested = requestedModel(context);
  if (!requested) {
    throw new GuardgateError("model_unknown", `${checkId}: the request names no model (neither resolved nor in the body)`);
  }
  return requested;
}

/**
 * The request's model (after provider resolution and `override_params`; the body's `model` when
 * the gateway has not resolved one) must be in `models`. When `metadataRules` are given and one
 * matches the request's metadata, the models of the matching rules replace `models`.
 */
export default defineCheck<Parameters>({
  id: "modelWhitelist",
  readsText: false,
  name: "Model allow-list",
  description: "Checks that the request's model is one of the allowed models.",
  sides: ["input"],
  parameters: {
    type: "object",
    properties: {
      models: {
        type: "array",
        items: { type: "string", minLength: 1 },
        description: "Allowed models: plain (`gpt-4o`, any provider) or provider-addressed (`@openai/gpt-4o`).",
      },
      metadataRules: {
        type: "array",
        description:
          "Rules that pick the allowed models from request metadata: when the metadata key holds one of the values, the rule's models are allowed (the union over matching rules replaces `models`).",
        items: {
          type: "object",
          properties: {
            metadataKey: { type: "string", minLength: 1, description: "The metadata key to read." },
            values: { type: "array", items: { type: "string" }, description: "Values of the key that select this rule." },
            models: { type: "array", items: { type: "string", minLength: 1 }, description: "Models the rule allows." },
          },
          required: ["metadataKey", "values", "models"],
          additionalProperties: false,
        },
      },
      not: { type: "boolean", default: false, description: "Invert the verdict: pass when the model is not in the list." },
    },
    additionalProperties: false,
  },
  data: {
    requestedModel: { type: "string", description: "The model the request asks for." },
    allowedModels: { type: "string[]", description: "The list the model was compared with." },
    matchedModels: { type: "string[]", description: "Entries of the list that name the requested model." },
    mode: { type: "string", description: "`base_models` (the `models` list decided) or `metadata_rules` (a metadata rule did)." },
    matchedRules: { type: "string[]", description: "Matching metadata rules, as `key:value`." },
    not: { type: "boolean", description: "Whether the verdict was inverted." },
    verdict: { type: "boolean", description: "The check's verdict." },
    explanation: { type: "string", description: "Why the check passed or failed." },
  },
  examples: [
    {
      parameters: { models: ["gpt-4o-mini", "@anthropic/claude-sonnet-4"] },
      description: "Two allowed models.",
      model: "gpt-4o-mini",
      verdict: true,
    },
    {
      parameters: { models: ["gpt-4.5-preview"], not: true },
      description: "Every model but one.",
      model: "gpt-4.5-preview",
      verdict: false,
    },
  ],
  notes: [
    "A plain entry (`gpt-4o`) allows that model from any provider; a provider-addressed entry",
    "(`@openai/gpt-4o`) allows it from that provider only. Names are compared without regard to case.",
    "A request that names no model is a check error (the check cannot judge it).",
  ].join("\n"),
  validate(p) {
    if (!p.models?.length && !p.metadataRules?.length) {
      return { parameter: "models", message: "give at least one model, or metadataRules" };
    }
    return undefined;
  },
  run(context, { models = [], metadataRules = [], not }) {
    const requested = modelOrError(context, "modelWhitelist");
    const matchedRules: string[] = [];
    const fromRules = new Set<string>();
    for (const rule of metadataRules) {
      const value = context.metadata[rule.metadataKey];
      if (value !== undefined && rule.values.includes(value)) {
        matchedRules.push(`${rule.metadataKey}:${value}`);
        for (const m of rule.models) fromRules.add(m);
      }
    }
    const byRules = fromRules.size > 0;
    const allowedModels = byRules ? [...fromRules] : models;
    const matchedModels = matchingEntries(allowedModels, requested);
    const inList = matchedModels.length > 0;
    const verdict = not ? !inList : inList;
    const name = `Model "${requested.reference}"`;
    const where = byRules ? `the models of the matching metadata rules (${matchedRules.join(", ")})` : "the list";
    const explanation = inList
      ? `${name} is in ${where}${not ? "; the check is inverted (not: true), so it fails" : ""}.`
      : `${name} is not in ${where}${not ? "; the check is inverted (not: true), so it passes" : ""}.`;
    return {
      verdict,
      data: {
        requestedModel: requested.reference,
        allowedModels,
        matchedModels,
        mode: byRules ? "metadata_rules" : "base_models",
        matchedRules,
        not,
        verdict,
        explanation,
      },
    };
  },
});
