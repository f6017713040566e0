import { defineCheck } from "../../../core/index.js";
import { matchingEntries } from "../shared/model-reference.js";
import { modelOrError } from "./modelWhitelist.js";

interface Parameters {
  rules: { defaults?: string[]; metadata?: Record<string, Record<string, string[]>> };
  not: boolean;
}

/**
 * The models a request may use follow from its metadata: `rules.metadata[key][value]` lists the
 * models for requests whose metadata `key` is `value`. The union over every matching rule is the
 * allowed set; when no rule matches, `rules.defaults` is. An empty allowed set allows nothing.
 */
export default defineCheck<Parameters>({
  id: "modelRules",
  readsText: false,
  name: "Model rules",
  description: "Checks the request's model against models allowed by rules on the request metadata.",
  sides: ["input"],
  parameters: {
    type: "object",
    properties: {
      rules: {
        type: "object",
        description: "`defaults`: models allowed when no metadata rule matches; `metadata`: {key: {value: [models]}}.",
        properties: {
          defaults: {
            type: "array",
            items: { type: "string", minLength: 1 },
            default: [],
            description: "Models allowed when no metadata rule matches.",
          },
          metadata: {
            type: "object",
            default: {},
            description: "For each metadata key, the models allowed per value of that key.",
            additionalProperties: {
              type: "object",
              additionalProperties: { type: "array", items: { type: "string", minLength: 1 } },
            },
          },
        },
        additionalProperties: false,
      },
      not: { type: "boolean", default: false, description: "Invert the verdict: pass when the model is not allowed." },
    },
    required: ["rules"],
    additionalProperties: false,
  },
  data: {
    requestedModel: { type: "string", description: "The model the request asks for." },
    allowedModels: { type: "string[]", description: "The models the rules allow for this request." },
    source: { type: "string", description: "`metadata` (matching rules decided), `defaults`, or `none` (nothing allowed)." },
    matchedRules: { type: "string[]", description: "Matching rules, as `key:value`." },
    not: { type: "boolean", description: "Whether the verdict was inverted." },
    verdict: { type: "boolean", description: "The check's verdict." },
    explanation: { type: "string", description: "Why the check passed or failed." },
  },
  examples: [
    {
      parameters: {
        rules: { defaults: ["gpt-4o-mini"], metadata: { tier: { pro: ["gpt-4o", "@anthropic/claude-sonnet-4"] } } },
      },
      description: "Requests with metadata tier=pro may use two larger models; all others the small one.",
      model: "gpt-4o",
      metadata: { tier: "pro" },
      verdict: true,
    },
  ],
  notes: [
    "Model names match as in `modelWhitelist`: plain entries for any provider, `@provider/model` entries",
    "for that provider, case ignored. A request that names no model is a check error. Rules that allow",
    "nothing for a request (no rule matches and no defaults) fail it.",
  ].join("\n"),
  validate({ rules }) {
    if (!rules.defaults?.length && !Object.keys(rules.metadata ?? {}).length) {
      return { parameter: "rules", message: "give defaults, metadata rules, or both" };
    }
    return undefined;
  },
  run(context, { rules, not }) {
    const requested = modelOrError(context, "modelRules");
    const matchedRules: string[] = [];
    const allowed = new Set<string>();
    for (const [key, byValue] of Object.entries(rules.metadata ?? {})) {
      const value = context.metadata[key];
      const models = value !== undefined && Object.hasOwn(byValue, value) ? byValue[value] : undefined;
      if (!models) continue;
      matchedRules.push(`${key}:${value}`);
      for (const m of models) allowed.add(m);
    }
    const defaults = rules.defaults ?? [];
    const source = matchedRules.length ? "metadata" : defaults.length ? "defaults" : "none";
    const allowedModels = matchedRules.length ? [...allowed] : defaults;
    const inList = matchingEntries(allowedModels, requested).length > 0;
    const verdict = not ? !inList : inList;
    const by =
      source === "metadata"
        ? `by the matching rules (${matchedRules.join(", ")})`
        : source === "defaults"
          ? "by the defaults (no metadata rule matched)"
          : "by any rule (no metadata rule matched and there are no defaults)";
    const inverted = not ? `; the check is inverted (not: true), so it ${verdict ? "passes" : "fails"}` : "";
    const explanation = `Model "${requested.reference}" is ${inList ? "" : "not "}allowed ${by}${inverted}.`;
    return {
      verdict,
      data: { requestedModel: requested.reference, allowedModels, source, matchedRules, not, verdict, explanation },
    };
  },
});
