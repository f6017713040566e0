/**
 * Named guardrail sets for tool traffic. The standard pack: secrets in tool arguments redacted
 * before the server sees them, and prompt injection in what comes back (tool results, resources,
 * prompts) and in tool descriptions denied, scored span by span by the local model.
 */
import type { GuardrailDefinition } from "../../core/index.js";

/** A named set of guardrails for the two tool sides and for tool descriptions. */
export interface ToolPack {
  name: string;
  /** On `tools/call` arguments. */
  input: readonly GuardrailDefinition[];
  /** On results, resources and prompts. */
  output: readonly GuardrailDefinition[];
  /** On tool descriptions, beside the input guardrails (descriptions are text the model obeys). */
  descriptions: readonly GuardrailDefinition[];
}

const injection: GuardrailDefinition = {
  id: "mcp-standard-injection",
  name: "Prompt injection in tool traffic (standard tool pack)",
  deny: true,
  async: false,
  checks: [{ id: "model.promptInjection", parameters: { sensitivity: "balanced" } }],
};

/** The standard tool pack. */
export const STANDARD_TOOL_PACK: ToolPack = {
  name: "standard",
  input: [
    {
      id: "mcp-standard-secrets",
      name: "Secrets in tool arguments (standard tool pack)",
      deny: false,
      async: false,
      checks: [{ id: "default.secrets", parameters: { redact: true } }],
    },
  ],
  output: [injection],
  descriptions: [
    {
      ...injection,
      id: "mcp-standard-description-injection",
      name: "Prompt injection in tool descriptions (standard tool pack)",
    },
  ],
};

/** The packs by name. */
export const TOOL_PACKS: Readonly<Record<string, ToolPack>> = { standard: STANDARD_TOOL_PACK };

/** Names of the packs, for schemas. */
export const TOOL_PACK_NAMES = Object.keys(TOOL_PACKS) as ["standard"];
