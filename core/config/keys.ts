/**
 * Every key the config format knows, level by level, as data: guardgate's own keys and the peer
 * gateway's (so its configs load here), each marked as implemented or as accepted but not acted
 * on. A key in neither list is a typo until proven otherwise: it is refused with its path and the
 * nearest known key, because an ignored `input_guardrail` would silently switch a guardrail off.
 *
 * Adding a key is one line in the level's table below (and the code that acts on it).
 */
import { ConfigError } from "../errors.js";
import { joinPath } from "./path.js";
import { isObject } from "../plain-data.js";

/** How guardgate treats a known key: it acts on it, or accepts it and says it does not. */
export type KeySupport = { implemented: true } | { implemented: false; note: string };

/** A non-fatal finding of normalisation that the caller should show. */
export interface ConfigWarning {
  path: string;
  code: string;
  message: string;
}

const ACTS: KeySupport = { implemented: true };

/** A key the peer gateway reads that guardgate accepts without acting on it. */
function peerOnly(note = "a setting of the peer gateway that guardgate does not implement"): KeySupport {
  return { implemented: false, note };
}

const PROVIDER_SPECIFIC = peerOnly("a provider setting of the peer gateway; guardgate's providers do not use it");

/**
 * Provider-specific keys of the peer gateway's config (Azure, AWS, Vertex, OpenAI, ...). A config
 * or target holding some hands them to its provider as options (server/providers/kind.ts); the
 * keys a provider kind reads are marked implemented in `CONFIG_KEYS` below.
 */
export const PROVIDER_OPTION_KEYS = [
  "resource_name",
  "deployment_id",
  "api_version",
  "ad_auth",
  "azure_auth_mode",
  "azure_managed_client_id",
  "azure_workload_client_id",
  "azure_entra_client_id",
  "azure_entra_client_secret",
  "azure_entra_tenant_id",
  "azure_entra_scope",
  "azure_ad_token",
  "azure_model_name",
  "azure_resource_name",
  "azure_deployment_id",
  "azure_api_version",
  "azure_foundry_url",
  "azure_extra_parameters",
  "azure_deployment_name",
  "workers_ai_account_id",
  "aws_secret_access_key",
  "aws_access_key_id",
  "aws_session_token",
  "aws_region",
  "aws_auth_type",
  "aws_role_arn",
  "aws_external_id",
  "aws_s3_bucket",
  "aws_s3_object_key",
  "aws_bedrock_model",
  "aws_server_side_encryption",
  "aws_server_side_encryption_kms_key_id",
  "amzn_sagemaker_custom_attributes",
  "amzn_sagemaker_target_model",
  "amzn_sagemaker_target_variant",
  "amzn_sagemaker_target_container_hostname",
  "amzn_sagemaker_inference_id",
  "amzn_sagemaker_enable_explanations",
  "amzn_sagemaker_inference_component",
  "amzn_sagemaker_session_id",
  "amzn_sagemaker_model_name",
  "stability_client_id",
  "stability_client_user_id",
  "stability_client_version",
  "huggingface_base_url",
  "vertex_project_id",
  "vertex_region",
  "vertex_service_account_json",
  "vertex_storage_bucket_name",
  "vertex_model_name",
  "vertex_batch_endpoint",
  "openai_project",
  "openai_organization",
  "openai_beta",
  "anthropic_beta",
  "anthropic_version",
  "mistral_fim_completion",
  "fireworks_account_id",
  "fireworks_file_length",
  "snowflake_account",
  "model_pricing_config",
  // Azure OpenAI settings of guardgate's own (docs/providers.md).
  "azure_deployments",
  "azure_authority_host",
] as const;

/** The levels of a config that have their own keys. */
export type KeyLevel = "config" | "retry" | "cache" | "strategy" | "guardrail" | "check" | "action" | "feedback";

/** The known keys of each level. */
export const CONFIG_KEYS: Readonly<Record<KeyLevel, Readonly<Record<string, KeySupport>>>> = {
  /** The root of a config and every target (targets nest). */
  config: {
    provider: ACTS,
    virtual_key: ACTS,
    api_key: ACTS,
    custom_host: ACTS,
    override_params: ACTS,
    retry: ACTS,
    cache: ACTS,
    strategy: ACTS,
    targets: ACTS,
    weight: ACTS,
    request_timeout: ACTS,
    mock_response: ACTS,
    stream_mode: ACTS,
    stream_window: ACTS,
    input_guardrails: ACTS,
    output_guardrails: ACTS,
    before_request_hooks: ACTS,
    after_request_hooks: ACTS,
    beforeRequestHooks: ACTS,
    afterRequestHooks: ACTS,
    name: peerOnly("the peer gateway's target name for conditional routing, which guardgate does not implement"),
    on_status_codes: peerOnly("the peer gateway's legacy place for strategy.on_status_codes; write it under strategy"),
    forward_headers: peerOnly("guardgate forwards no client headers upstream beyond the provider's own"),
    strict_open_ai_compliance: peerOnly("guardgate reads the x-gateway-strict-compliance header instead"),
    default_input_guardrails: peerOnly(
      "the peer gateway's organisation defaults; guardrails listed here do not run, list them under input_guardrails",
    ),
    default_output_guardrails: peerOnly(
      "the peer gateway's organisation defaults; guardrails listed here do not run, list them under output_guardrails",
    ),
    ...Object.fromEntries(PROVIDER_OPTION_KEYS.map((key) => [key, PROVIDER_SPECIFIC])),
    drop_params: ACTS,
    // The Amazon Bedrock provider kind (server/providers/kinds/bedrock).
    aws_access_key_id: ACTS,
    aws_secret_access_key: ACTS,
    aws_session_token: ACTS,
    aws_region: ACTS,
    // Azure OpenAI (server/providers/kinds/azure/options.ts).
    resource_name: ACTS,
    deployment_id: ACTS,
    api_version: ACTS,
    azure_auth_mode: ACTS,
    azure_entra_client_id: ACTS,
    azure_entra_client_secret: ACTS,
    azure_entra_tenant_id: ACTS,
    azure_entra_scope: ACTS,
    azure_ad_token: ACTS,
    azure_deployments: ACTS,
    azure_authority_host: ACTS,
    // Read by the vertex-ai provider kind (server/providers/kinds/google).
    vertex_project_id: ACTS,
    vertex_region: ACTS,
    vertex_service_account_json: ACTS,
  },
  retry: {
    attempts: ACTS,
    on_status_codes: ACTS,
    use_retry_after_header: peerOnly("guardgate always waits what a Retry-After header asks, within its retry bounds"),
  },
  cache: { mode: ACTS, max_age: ACTS },
  strategy: {
    mode: ACTS,
    on_status_codes: ACTS,
    conditions: peerOnly("conditional routing of the peer gateway, which guardgate does not implement"),
    default: peerOnly("conditional routing of the peer gateway, which guardgate does not implement"),
    sticky: peerOnly("sticky load balancing of the peer gateway, which guardgate does not implement"),
  },
  /** A guardrail written as an object (full form, `{id}` reference, and the shorthand's own keys). */
  guardrail: {
    id: ACTS,
    name: ACTS,
    type: ACTS,
    side: ACTS,
    deny: ACTS,
    async: ACTS,
    sequential: ACTS,
    mode: ACTS,
    stream_mode: ACTS,
    tool_arguments: ACTS,
    tool_results: ACTS,
    on_fail: ACTS,
    on_success: ACTS,
    onFail: ACTS,
    onSuccess: ACTS,
    checks: ACTS,
    eventType: peerOnly("the side comes from the list the guardrail is in"),
  },
  check: { id: ACTS, parameters: ACTS, is_enabled: ACTS },
  /** `on_fail` / `on_success`. */
  action: { feedback: ACTS },
  feedback: { value: ACTS, weight: ACTS, metadata: ACTS },
};

/** Keys of a guardrail object that are not checks in the shorthand form. */
export const SHORTHAND_GUARDRAIL_KEYS: ReadonlySet<string> = new Set(
  Object.keys(CONFIG_KEYS.guardrail).filter((key) => key !== "checks"),
);

/** Edit distance (insertions, deletions, substitutions, adjacent swaps), capped at `limit + 1`. */
function distance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before = Array.from({ length: b.length + 1 }, (_, j) => j);
  let previous = before;
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min((previous[j] as number) + 1, (row[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, (before[j - 2] as number) + 1);
      row.push(value);
      best = Math.min(best, value);
    }
    if (best > limit) return limit + 1;
    before = previous;
    previous = row;
  }
  return previous[b.length] as number;
}

/** Lower case without `_` and `-`, so `inputGuardrails` meets `input_guardrails`. */
function folded(key: string): string {
  return key.toLowerCase().replace(/[_-]/g, "");
}

/** The known key nearest to `key` (case and separators aside, then by edit distance), if any is near. */
export function nearestKey(key: string, known: Iterable<string>): string | undefined {
  const target = folded(key);
  const limit = Math.max(2, Math.floor(target.length / 4));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of known) {
    const d = distance(target, folded(candidate), limit);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** The message for an unknown key: what, and the nearest known key when one is near. */
export function unknownKeyProblem(key: string, known: Iterable<string>): string {
  const list = [...known];
  // `on_fail: {value}` for `on_fail: {feedback: {value}}`: the feedback's own keys one level up.
  if (list.includes("feedback") && Object.hasOwn(CONFIG_KEYS.feedback, key)) {
    return `unknown key; did you mean feedback.${key}? (feedback goes under feedback: {value, weight, metadata})`;
  }
  const near = nearestKey(key, list);
  return near
    ? `unknown key; did you mean ${near}?`
    : "unknown key (not a key of guardgate's or the peer gateway's config format)";
}

/**
 * Checks the keys of one object against a level: throws a ConfigError at the first unknown key,
 * returns a warning for each known key guardgate does not act on.
 */
export function checkKeys(object: Record<string, unknown>, level: KeyLevel, path: string): ConfigWarning[] {
  const known = CONFIG_KEYS[level];
  const warnings: ConfigWarning[] = [];
  for (const key of Object.keys(object)) {
    const at = joinPath(path, key);
    const support = Object.hasOwn(known, key) ? known[key] : undefined;
    if (!support) throw new ConfigError(at, unknownKeyProblem(key, Object.keys(known)), "unknown_key");
    if (!support.implemented && object[key] !== undefined) {
      warnings.push({ path: at, code: "key_not_implemented", message: `${at}: accepted but not acted on: ${support.note}` });
    }
  }
  return warnings;
}

/**
 * Checks the gateway keys of a config and, recursively, of its targets, with their `retry`,
 * `cache` and `strategy` objects. Guardrail and check keys are checked where guardrails are
 * prepared. Values that are not objects are left to the schema that validates them.
 */
export function checkConfigKeys(config: Record<string, unknown>, path = ""): ConfigWarning[] {
  const warnings = checkKeys(config, "config", path);
  for (const level of ["retry", "cache", "strategy"] as const) {
    const value = config[level];
    if (isObject(value)) warnings.push(...checkKeys(value, level, joinPath(path, level)));
  }
  const targets = config.targets;
  if (Array.isArray(targets)) {
    targets.forEach((target, index) => {
      if (isObject(target)) warnings.push(...checkConfigKeys(target, joinPath(joinPath(path, "targets"), index)));
    });
  }
  return warnings;
}
