/**
 * The gateway keys of a config (spec §2.3; docs/spec-notes.md, "The peer gateway"): provider selection, targets, strategy,
 * retry, cache, time-outs, how streams are held. Which keys exist at all is core/config/keys.ts's list (an unknown key is
 * refused before this schema runs); guardrail keys are validated by the engine's normalisation.
 */
import type { SchemaType } from "../schema-types.js";
import { compileValidator, type Validator } from "../schema.js";

const statusCodes = { type: "array", items: { type: "integer", minimum: 100, maximum: 599 } } as const;

/** A config's own keys: each of its targets is again a config (`targets`, below). */
const configKeys = {
  type: "object",
  properties: {
    provider: { type: "string", minLength: 1 },
    virtual_key: { type: "string", minLength: 1 },
    api_key: { type: "string", minLength: 1 },
    custom_host: { type: "string", pattern: "^https?://" },
    override_params: { type: "object" },
    retry: {
      type: "object",
      properties: {
        attempts: { type: "integer", minimum: 0, maximum: 10 },
        on_status_codes: statusCodes,
        use_retry_after_header: { type: "boolean" },
      },
    },
    cache: {
      type: "object",
      properties: { mode: { enum: ["simple"] }, max_age: { type: "integer", minimum: 1 } },
      required: ["mode"],
    },
    strategy: {
      type: "object",
      properties: {
        mode: { enum: ["single", "fallback", "loadbalance"] },
        on_status_codes: statusCodes,
        conditions: { type: "array" },
        default: { type: "string" },
        sticky: { type: "object" },
      },
      required: ["mode"],
    },
    weight: { type: "number", minimum: 0 },
    request_timeout: { type: "integer", minimum: 1 },
    mock_response: { type: ["string", "object"] },
    stream_mode: { enum: ["buffer", "window", "after"] },
    stream_window: { type: "integer", minimum: 1, maximum: 1_000_000 },
    drop_params: { type: "boolean" },
  },
} as const;

/** Schema of a config object and, recursively, of each of its targets. */
export const GATEWAY_CONFIG_SCHEMA = {
  ...configKeys,
  properties: { ...configKeys.properties, targets: { type: "array", minItems: 1, items: { $ref: "#" } } },
} as const;

/**
 * The gateway keys of a config, as the schema admits them. `targets` refers back to the whole
 * schema (`$ref: "#"`), which the derivation does not follow, so it is typed here as a list of configs.
 */
export type GatewayConfig = SchemaType<typeof configKeys> & { targets?: GatewayConfig[] };

/** Throws a ConfigError naming the path when a config's gateway keys are not valid. */
export const validateGatewayConfig: Validator<GatewayConfig> = compileValidator<GatewayConfig>(GATEWAY_CONFIG_SCHEMA);
