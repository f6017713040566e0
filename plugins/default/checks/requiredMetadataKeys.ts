import { defineCheck } from "../../../core/index.js";

interface Parameters {
  metadataKeys: string[];
  operator: "all" | "any" | "none";
}

/**
 * The request metadata (`x-gateway-metadata`) must hold all, any or none of the keys. A key is
 * present when the metadata has it, whatever its value (an empty string counts).
 */
export default defineCheck<Parameters>({
  id: "requiredMetadataKeys",
  readsText: false,
  name: "Required metadata keys",
  description: "Checks that the request metadata has all, any or none of the given keys.",
  sides: ["input"],
  parameters: {
    type: "object",
    properties: {
      metadataKeys: {
        type: "array",
        items: { type: "string", minLength: 1 },
        minItems: 1,
        description: "The metadata keys to look for.",
      },
      operator: {
        enum: ["all", "any", "none"],
        default: "all",
        description: "`all`: every key present; `any`: at least one; `none`: not one.",
      },
    },
    required: ["metadataKeys"],
    additionalProperties: false,
  },
  data: {
    foundKeys: { type: "string[]", description: "Keys present in the metadata." },
    missingKeys: { type: "string[]", description: "Keys absent from the metadata." },
    operator: { type: "string", description: "The operator applied." },
    verdict: { type: "boolean", description: "The check's verdict." },
    explanation: { type: "string", description: "Why the check passed or failed." },
  },
  examples: [
    {
      parameters: { metadataKeys: ["user", "team"] },
      description: "Every request names its user and team.",
      metadata: { user: "u-1842", team: "search" },
      verdict: true,
    },
    {
      parameters: { metadataKeys: ["debug"], operator: "none" },
      description: "No debug flag in production.",
      metadata: { debug: "1" },
      verdict: false,
    },
  ],
  run({ metadata }, { metadataKeys, operator }) {
    const foundKeys = metadataKeys.filter((k) => Object.hasOwn(metadata, k));
    const missingKeys = metadataKeys.filter((k) => !Object.hasOwn(metadata, k));
    const verdict =
      operator === "all" ? missingKeys.length === 0 : operator === "any" ? foundKeys.length > 0 : foundKeys.length === 0;
    const explanation =
      operator === "all"
        ? verdict
          ? "Every required metadata key is present."
          : `Missing metadata keys: ${missingKeys.join(", ")}.`
        : operator === "any"
          ? verdict
            ? `Found metadata keys: ${foundKeys.join(", ")}.`
            : `None of the metadata keys is present: ${metadataKeys.join(", ")}.`
          : verdict
            ? "None of the forbidden metadata keys is present."
            : `Forbidden metadata keys present: ${foundKeys.join(", ")}.`;
    return { verdict, data: { foundKeys, missingKeys, operator, verdict, explanation } };
  },
});
