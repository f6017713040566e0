/**
 * Normalises every config form that attaches guardrails (spec §2.3; docs/spec-notes.md, "The peer gateway") into one input
 * list and one output list of prepared guardrails. Bad configuration fails here, at load time,
 * with a ConfigError naming the path; a typo never becomes a silent pass.
 */
import { ConfigError } from "../errors.js";
import type { CheckRegistry } from "../registry.js";
import type { Guardrail, Side } from "../types.js";
import { expandShorthand, GUARDRAIL_KEYS, prepareGuardrail } from "./definition.js";
import type { ConfigWarning } from "./keys.js";
import { joinPath } from "./path.js";
import type { GuardrailSource } from "./source.js";
import { isObject } from "../plain-data.js";

/** Config keys that attach guardrails, per side, in the order their lists are joined. */
export const GUARDRAIL_CONFIG_KEYS: Readonly<Record<Side, readonly string[]>> = {
  input: ["input_guardrails", "before_request_hooks", "beforeRequestHooks"],
  output: ["output_guardrails", "after_request_hooks", "afterRequestHooks"],
};

/** The guardrails a config attaches, per side, with warnings to show the user. */
export interface NormalizedGuardrails {
  input: Guardrail[];
  output: Guardrail[];
  warnings: ConfigWarning[];
}

/** What normalisation needs. */
export interface NormalizeDeps {
  registry: CheckRegistry;
  source: GuardrailSource;
  /** Narrows id lookups to a workspace. */
  scope?: { workspaceId?: string };
}

/** Parses a config given as a JSON string (a header value); objects pass through. */
export function parseConfig(config: unknown, path = ""): Record<string, unknown> {
  let value = config;
  if (typeof config === "string") {
    try {
      value = JSON.parse(config);
    } catch (error) {
      throw new ConfigError(path, `is not valid JSON: ${(error as Error).message}`, "config_malformed");
    }
  }
  if (!isObject(value)) throw new ConfigError(path, "must be a JSON object", "config_malformed");
  return value;
}

async function resolveReference(
  id: unknown,
  overrides: Record<string, unknown>,
  side: Side,
  path: string,
  deps: NormalizeDeps,
): Promise<{ guardrail: Guardrail; warnings: ConfigWarning[] }> {
  if (typeof id !== "string" || id === "") throw new ConfigError(path, "a guardrail reference must be a non-empty id string");
  const record = await deps.source.get(id, deps.scope);
  if (!record) throw new ConfigError(path, `unknown guardrail "${id}"`, "unknown_guardrail");
  // Paths inside the record are relative to it: the record is not part of the config text.
  let prepared: { guardrail: Guardrail; warnings: ConfigWarning[] };
  try {
    prepared = prepareGuardrail({ ...record, ...overrides, id }, { side, inline: false, path: "", registry: deps.registry });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    if (error.code === "wrong_side") throw new ConfigError(path, error.message, error.code);
    // The record was valid when saved; a plugin may have changed since. Say which record broke.
    throw new ConfigError(path, `guardrail "${id}" is no longer valid: ${error.message}`, error.code);
  }
  return {
    guardrail: prepared.guardrail,
    warnings: prepared.warnings.map((w) => ({ ...w, path, message: `${path}: ${w.message}` })),
  };
}

/** Prepares one element of a guardrail list: an id, a `{id}` reference, a full object or a shorthand. */
export async function prepareListElement(
  element: unknown,
  side: Side,
  path: string,
  deps: NormalizeDeps,
): Promise<{ guardrail: Guardrail; warnings: ConfigWarning[] }> {
  if (typeof element === "string") return resolveReference(element, {}, side, path, deps);
  if (!isObject(element)) throw new ConfigError(path, "must be a guardrail id or a guardrail object");
  const options = { side, inline: true, path, registry: deps.registry };
  if ("checks" in element) return prepareGuardrail(element, options);
  const checkKeys = Object.keys(element).filter((key) => !GUARDRAIL_KEYS.has(key));
  if (checkKeys.length === 0) {
    // `{id}` (the hook form) is a reference; guardrail keys beside the id override the record.
    const { id, ...overrides } = element;
    if (id === undefined) throw new ConfigError(path, "a guardrail needs an id or at least one check");
    return resolveReference(id, overrides, side, path, deps);
  }
  const { definition, checkPaths } = expandShorthand(element, path);
  return prepareGuardrail(definition, options, checkPaths);
}

/**
 * Normalises the guardrail keys of one config object (the root of a config or one target).
 * `path` prefixes every error path, e.g. `targets[1]`.
 */
export async function normalizeGuardrails(config: unknown, deps: NormalizeDeps, path = ""): Promise<NormalizedGuardrails> {
  const object = parseConfig(config, path);
  const out: NormalizedGuardrails = { input: [], output: [], warnings: [] };
  for (const side of ["input", "output"] as const) {
    const seen = new Set<string>();
    for (const key of GUARDRAIL_CONFIG_KEYS[side]) {
      const list = object[key];
      if (list === undefined || list === null) continue;
      const listPath = joinPath(path, key);
      if (!Array.isArray(list)) throw new ConfigError(listPath, "must be an array");
      const prepared = await Promise.all(
        list.map((element, index) => prepareListElement(element, side, joinPath(listPath, index), deps)),
      );
      prepared.forEach(({ guardrail, warnings }, index) => {
        out.warnings.push(...warnings);
        if (seen.has(guardrail.id)) {
          const at = joinPath(listPath, index);
          out.warnings.push({
            path: at,
            code: "duplicate_guardrail",
            message: `${at}: guardrail "${guardrail.id}" is already attached to the ${side} side; it runs once`,
          });
          return;
        }
        seen.add(guardrail.id);
        out[side].push(guardrail);
      });
    }
  }
  return out;
}

/** Whether a config object has any key that attaches guardrails. */
export function hasGuardrailKeys(config: Record<string, unknown>): boolean {
  return [...GUARDRAIL_CONFIG_KEYS.input, ...GUARDRAIL_CONFIG_KEYS.output].some((key) => key in config);
}
