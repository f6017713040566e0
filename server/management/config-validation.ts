/**
 * Validation of a config before it is saved: the gateway keys (when a validator for them is given)
 * and the guardrails of the root and of every target, normalised by the engine exactly as a
 * request would. A config that would fail on a request fails here, with the path.
 */
import { type CheckRegistry, type Guardrail, GUARDRAIL_CONFIG_KEYS, type GuardrailSource } from "../../core/index.js";
import { checkConfigKeys, GUARDRAIL_KEYS, isObject, joinPath, normalizeGuardrails } from "../../core/internal.js";

/** Validates a config's own (non-guardrail) keys; throws a ConfigError naming the path. */
export type GatewayKeysValidator = (config: Record<string, unknown>) => void;

/** What config validation needs. */
export interface ConfigValidationDeps {
  registry: CheckRegistry;
  source: GuardrailSource;
  workspaceId: string;
  validateGatewayKeys?: GatewayKeysValidator;
}

/** The config objects of a config: the root, then every (nested) target, with their paths. */
export function configNodes(config: Record<string, unknown>, path = ""): Array<{ node: Record<string, unknown>; path: string }> {
  const nodes = [{ node: config, path }];
  const targets = config.targets;
  if (Array.isArray(targets)) {
    targets.forEach((target, index) => {
      if (isObject(target)) nodes.push(...configNodes(target, joinPath(joinPath(path, "targets"), index)));
    });
  }
  return nodes;
}

/**
 * Validates a config; resolves to every guardrail it attaches (inline and referenced, root and
 * targets), for plan gating. Throws the engine's ConfigError on the first problem.
 */
export async function validateConfig(config: Record<string, unknown>, deps: ConfigValidationDeps): Promise<Guardrail[]> {
  checkConfigKeys(config);
  deps.validateGatewayKeys?.(config);
  const guardrails: Guardrail[] = [];
  for (const { node, path } of configNodes(config)) {
    const normalized = await normalizeGuardrails(
      node,
      { registry: deps.registry, source: deps.source, scope: { workspaceId: deps.workspaceId } },
      path,
    );
    guardrails.push(...normalized.input, ...normalized.output);
  }
  return guardrails;
}

/** The ids of saved guardrails a config references (by id string or `{id}` without checks). */
export function referencedGuardrailIds(config: Record<string, unknown>): Set<string> {
  const ids = new Set<string>();
  for (const { node } of configNodes(config)) {
    for (const key of [...GUARDRAIL_CONFIG_KEYS.input, ...GUARDRAIL_CONFIG_KEYS.output]) {
      const list = node[key];
      if (!Array.isArray(list)) continue;
      for (const element of list) {
        if (typeof element === "string") ids.add(element);
        else if (isObject(element) && typeof element.id === "string" && isReference(element)) ids.add(element.id);
      }
    }
  }
  return ids;
}

/** A `{id}` element (guardrail keys only, no checks) refers to a saved record, as core reads it. */
function isReference(element: Record<string, unknown>): boolean {
  return !("checks" in element) && Object.keys(element).every((key) => GUARDRAIL_KEYS.has(key));
}
