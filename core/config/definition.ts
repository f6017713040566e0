/**
 * A guardrail as written (a stored record or an inline definition), and its preparation into a
 * normalised Guardrail: defaults decided, every check validated against its plugin's metadata.
 */
import { createHash } from "node:crypto";
import stringify from "safe-stable-stringify";
import { ConfigError } from "../errors.js";
import type { CheckRegistry, RawCheck } from "../registry.js";
import { type CheckConfig, type FeedbackConfig, type Guardrail, type Side, STREAM_MODES, type StreamMode } from "../types.js";
import { checkKeys, type ConfigWarning, nearestKey, SHORTHAND_GUARDRAIL_KEYS } from "./keys.js";
import { joinPath } from "./path.js";
import { isObject } from "../plain-data.js";

/** A guardrail as a user writes it (spec §2.1, §2.2; docs/spec-notes.md, "The peer gateway", full form). */
export interface GuardrailDefinition {
  id?: string;
  name?: string;
  type?: "guardrail" | "mutator";
  side?: Side;
  async?: boolean;
  deny?: boolean;
  sequential?: boolean;
  /** `monitor`: run asynchronously, verdicts logged and counted, never acted on; `enforce` (default): as written. */
  mode?: "enforce" | "monitor";
  stream_mode?: StreamMode;
  /** Output side: whether the guardrail reads tool-call arguments with the text (default true). */
  tool_arguments?: boolean;
  /** Input side: whether the guardrail reads tool results (tool messages, `function_call_output` items) with the text (default true). */
  tool_results?: boolean;
  checks: Array<{ id: string; parameters?: Record<string, unknown>; is_enabled?: boolean }>;
  on_success?: { feedback?: FeedbackConfig };
  on_fail?: { feedback?: FeedbackConfig };
}

/** Keys that belong to the guardrail itself in the shorthand form; every other key is a check. */
export const GUARDRAIL_KEYS: ReadonlySet<string> = SHORTHAND_GUARDRAIL_KEYS;

/** Where one check sits in the user's config, for error paths. */
export interface CheckPath {
  path: string;
  /** Where its parameters sit (the check's own key in the shorthand form). */
  parametersPath: string;
  /** Where its id is written (the key itself in the shorthand form). */
  idPath: string;
  /** What to add when the id is unknown (a shorthand key that looks like a misspelt guardrail key). */
  hint?: string;
}

/** How a definition is being prepared. */
export interface PrepareOptions {
  side: Side;
  /**
   * Inline definitions (written in a config or handed to evaluate) run synchronously unless they
   * say otherwise, as the spec's inline examples do; stored records default to async (spec §2.2).
   */
  inline: boolean;
  path: string;
  registry: CheckRegistry;
}

function optionalBoolean(def: Record<string, unknown>, key: string, path: string): boolean | undefined {
  const value = def[key];
  if (value !== undefined && typeof value !== "boolean") throw new ConfigError(joinPath(path, key), "must be boolean");
  return value as boolean | undefined;
}

/** The raw camel-case form (spec §2.3) spells the actions `onSuccess` / `onFail`. */
const CAMEL_ACTION = { on_success: "onSuccess", on_fail: "onFail" } as const;

function feedbackOf(def: Record<string, unknown>, key: "on_success" | "on_fail", path: string): FeedbackConfig | undefined {
  const written = def[key] !== undefined ? key : CAMEL_ACTION[key];
  const action = def[written];
  if (action === undefined || action === null) return undefined;
  const at = joinPath(path, written);
  if (!isObject(action)) throw new ConfigError(at, "must be an object like {feedback: {value, weight, metadata}}");
  checkKeys(action, "action", at);
  const feedback = action.feedback;
  if (feedback === undefined || feedback === null) return undefined;
  const fAt = joinPath(at, "feedback");
  if (!isObject(feedback)) throw new ConfigError(fAt, "must be an object");
  checkKeys(feedback, "feedback", fAt);
  for (const field of ["value", "weight"] as const) {
    if (feedback[field] !== undefined && typeof feedback[field] !== "number") {
      throw new ConfigError(joinPath(fAt, field), "must be a number");
    }
  }
  if (feedback.metadata !== undefined && !isObject(feedback.metadata)) {
    throw new ConfigError(joinPath(fAt, "metadata"), "must be an object");
  }
  return feedback as FeedbackConfig;
}

/** A stable id for an inline guardrail written without one, so logs can group its runs. */
export function generatedGuardrailId(definition: unknown): string {
  return `gr_${createHash("sha256")
    .update(stringify(definition) ?? "")
    .digest("hex")
    .slice(0, 12)}`;
}

/**
 * Prepares the full form (`checks` array). `checkPaths` overrides where each check sits, for the
 * shorthand form whose checks are keys rather than array entries.
 */
export function prepareGuardrail(
  definition: unknown,
  options: PrepareOptions,
  checkPaths?: CheckPath[],
): { guardrail: Guardrail; warnings: ConfigWarning[] } {
  const { side, inline, path, registry } = options;
  if (!isObject(definition)) throw new ConfigError(path, "must be a guardrail object or a guardrail id");
  const def = definition;
  // The shorthand's keys were sorted into guardrail keys and checks already.
  const keyWarnings = checkPaths ? [] : checkKeys(def, "guardrail", path);
  if (def.id !== undefined && (typeof def.id !== "string" || def.id === "")) {
    throw new ConfigError(joinPath(path, "id"), "must be a non-empty string");
  }
  if (def.name !== undefined && typeof def.name !== "string") throw new ConfigError(joinPath(path, "name"), "must be a string");
  if (def.type !== undefined && def.type !== "guardrail" && def.type !== "mutator") {
    throw new ConfigError(joinPath(path, "type"), 'must be "guardrail"');
  }
  if (def.side !== undefined && def.side !== side) {
    if (def.side !== "input" && def.side !== "output")
      throw new ConfigError(joinPath(path, "side"), 'must be "input" or "output"');
    throw new ConfigError(path, `guardrail is for the ${def.side} side and cannot be used on the ${side} side`, "wrong_side");
  }
  const asyncFlag = optionalBoolean(def, "async", path);
  if (def.mode !== undefined && def.mode !== "enforce" && def.mode !== "monitor") {
    throw new ConfigError(joinPath(path, "mode"), 'must be "enforce" or "monitor"');
  }
  const monitor = def.mode === "monitor";
  if (monitor && asyncFlag === false) {
    throw new ConfigError(joinPath(path, "async"), 'must not be false with mode "monitor", which runs asynchronously');
  }
  const deny = optionalBoolean(def, "deny", path) ?? false;
  const sequential = optionalBoolean(def, "sequential", path) ?? false;
  const streamMode = def.stream_mode;
  if (streamMode !== undefined && !STREAM_MODES.includes(streamMode as StreamMode)) {
    throw new ConfigError(joinPath(path, "stream_mode"), `must be one of ${STREAM_MODES.map((m) => `"${m}"`).join(", ")}`);
  }
  const toolArguments = optionalBoolean(def, "tool_arguments", path);
  const toolResults = optionalBoolean(def, "tool_results", path);
  const checksPath = joinPath(path, "checks");
  if (!Array.isArray(def.checks) || def.checks.length === 0) {
    throw new ConfigError(checkPaths ? path : checksPath, "a guardrail needs at least one check");
  }
  const checks: CheckConfig[] = def.checks.map((raw, index) => {
    const at = checkPaths?.[index] ?? {
      path: joinPath(checksPath, index),
      parametersPath: joinPath(joinPath(checksPath, index), "parameters"),
      idPath: joinPath(joinPath(checksPath, index), "id"),
    };
    if (!isObject(raw)) throw new ConfigError(at.path, "must be an object like {id, parameters}");
    if (!checkPaths) checkKeys(raw, "check", at.path);
    return registry.prepareCheck(raw as RawCheck, side, at);
  });
  const guardrail: Guardrail = {
    id: (def.id as string | undefined) ?? generatedGuardrailId(def),
    side,
    async: monitor || (asyncFlag ?? !inline),
    deny,
    sequential,
    checks,
  };
  if (typeof def.name === "string") guardrail.name = def.name;
  if (monitor) guardrail.monitor = true;
  if (inline) guardrail.inline = true;
  if (streamMode !== undefined) guardrail.streamMode = streamMode as StreamMode;
  if (toolArguments === false && side === "output") guardrail.toolArguments = false;
  if (toolResults === false && side === "input") guardrail.toolResults = false;
  const onSuccess = feedbackOf(def, "on_success", path);
  const onFail = feedbackOf(def, "on_fail", path);
  if (onSuccess) guardrail.onSuccess = onSuccess;
  if (onFail) guardrail.onFail = onFail;
  const warnings: ConfigWarning[] = keyWarnings;
  if (streamMode !== undefined && side === "input") {
    warnings.push({
      path: joinPath(path, "stream_mode"),
      code: "stream_mode_input",
      message: `${joinPath(path, "stream_mode")}: stream_mode applies to output guardrails only; an input guardrail runs before the upstream is called`,
    });
  }
  if (toolArguments !== undefined && side === "input") {
    warnings.push({
      path: joinPath(path, "tool_arguments"),
      code: "tool_arguments_input",
      message: `${joinPath(path, "tool_arguments")}: tool_arguments applies to output guardrails only; the input side reads the last message`,
    });
  }
  if (toolResults !== undefined && side === "output") {
    warnings.push({
      path: joinPath(path, "tool_results"),
      code: "tool_results_output",
      message: `${joinPath(path, "tool_results")}: tool_results applies to input guardrails only; the output side reads the answer`,
    });
  }
  // A monitored deny says what enforcing would do; only a plain asynchronous deny is a mistake.
  if (guardrail.deny && guardrail.async && !monitor) {
    warnings.push({
      path,
      code: "deny_ignored_async",
      message: `${path ? `${path}: ` : ""}guardrail "${guardrail.id}" has deny: true but runs asynchronously, so it can never deny; set async: false to let it deny`,
    });
  }
  return { guardrail, warnings };
}

/**
 * Reads the shorthand form: guardrail keys, and every other key a check whose value is its
 * parameters. A key without a dot means a `default.` check; parameters may carry their own `id`
 * so one check can be used twice under different keys.
 */
export function expandShorthand(
  element: Record<string, unknown>,
  path: string,
): {
  definition: Record<string, unknown>;
  checkPaths: CheckPath[];
} {
  const definition: Record<string, unknown> = {};
  const checks: RawCheck[] = [];
  const checkPaths: CheckPath[] = [];
  for (const [key, value] of Object.entries(element)) {
    if (GUARDRAIL_KEYS.has(key)) {
      definition[key] = value;
      continue;
    }
    const at = joinPath(path, key);
    const near = nearestKey(key, GUARDRAIL_KEYS);
    const hint = near && `in this form every key but ${[...GUARDRAIL_KEYS].join(", ")} names a check; did you mean ${near}?`;
    if (value !== null && value !== undefined && !isObject(value))
      throw new ConfigError(at, `must be an object of check parameters${hint ? `; ${hint}` : ""}`);
    const parameters = { ...((value as Record<string, unknown> | null) ?? {}) };
    let id = key.includes(".") ? key : `default.${key}`;
    let idPath = at;
    if ("id" in parameters) {
      idPath = joinPath(at, "id");
      if (typeof parameters.id !== "string") throw new ConfigError(joinPath(at, "id"), "must be a check id string");
      id = parameters.id;
      delete parameters.id;
    }
    checks.push({ id, parameters });
    checkPaths.push({ path: at, parametersPath: at, idPath, ...(hint && idPath === at && { hint }) });
  }
  definition.checks = checks;
  return { definition, checkPaths };
}
