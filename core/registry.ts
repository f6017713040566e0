/**
 * The check registry: every loaded plugin's checks by full id, with their compiled parameter
 * validators. Registration validates a plugin whole, so a bad plugin never half-loads.
 */
import type { ValidateFunction } from "ajv/dist/2020.js";
import { nearestKey } from "./config/keys.js";
import { joinPath } from "./config/path.js";
import { ConfigError, PluginError } from "./errors.js";
import { compileParameterSchema, parameterError } from "./parameters.js";
import {
  type CheckDefinition,
  type CheckExample,
  type JsonSchema,
  type PluginDefinition,
  SUPPORTED_API_VERSIONS,
} from "./plugin-api.js";
import type { CheckConfig, CheckKind, PluginClass, Side, StreamScopeRule } from "./types.js";

/** Default time limit per kind of check, in milliseconds. */
export const DEFAULT_TIMEOUTS: Readonly<Record<CheckKind, number>> = {
  deterministic: 2_000,
  network: 10_000,
  model: 30_000,
};

const PLUGIN_CLASSES: readonly PluginClass[] = ["BASIC", "PARTNER", "PRO", "custom"];
const SIDES: readonly Side[] = ["input", "output"];
const KINDS: readonly CheckKind[] = ["deterministic", "network", "model"];
const ID_PATTERN = /^[A-Za-z][\w-]*$/;

/**
 * Options every check accepts inside its parameters (docs/spec-notes.md, "The peer gateway"): they steer the runner rather
 * than the check, so they are taken out before the check's own schema sees the parameters —
 * unless the check declares one itself (the webhook check's `timeout` is both).
 */
const RUNNER_OPTIONS = ["failOnError", "is_enabled", "timeout", "credentials"] as const;

/** A registered check. */
export interface RegisteredCheck {
  /** `<plugin>.<check>` */
  id: string;
  plugin: PluginDefinition;
  definition: CheckDefinition;
  kind: CheckKind;
  defaultTimeout: number;
  /** The check must run in a worker thread, whatever the executor (CheckDefinition.runsInPool). */
  runsInPool: boolean;
  validate: ValidateFunction;
  /** Validator of the plugin's credentials schema, when it declares one. */
  validateCredentials?: ValidateFunction;
}

/** Public description of a check: its metadata as data. */
export interface CheckInfo {
  id: string;
  plugin: string;
  class: PluginClass;
  name: string;
  description: string;
  sides: Side[];
  kind: CheckKind;
  transforms: boolean;
  /** What it judges on a stream held in window mode (docs/streaming.md). */
  streamScope: StreamScopeRule;
  defaultTimeout: number;
  parameters: JsonSchema;
  notes: string;
  data: Record<string, { type: string; description: string }>;
  examples: CheckExample[];
}

/** Public description of a plugin. */
export interface PluginInfo {
  id: string;
  name: string;
  description: string;
  class: PluginClass;
  apiVersion: number;
  source: string;
  checks: string[];
}

/** A check as written in a guardrail, before validation. */
export interface RawCheck {
  id?: unknown;
  parameters?: unknown;
  is_enabled?: unknown;
}

/** The PluginError of a schema ajv refused. */
function invalidSchema(what: string, error: unknown): PluginError {
  return new PluginError(`${what}: ${(error as Error).message}`, "plugin_invalid", { cause: error });
}

/**
 * A schema's validator: compiled now (a schema that does not compile throws here), or on the
 * first call (and then throws there, where the check is used).
 */
function compiler(when: "now" | "on-use", schema: JsonSchema, refused: (error: unknown) => PluginError): () => ValidateFunction {
  let validate: ValidateFunction | undefined;
  const compile = (): ValidateFunction => {
    try {
      return (validate ??= compileParameterSchema(schema));
    } catch (error) {
      throw refused(error);
    }
  };
  if (when === "now") compile();
  return compile;
}

function fail(source: string, problem: string): never {
  throw new PluginError(`plugin from ${source}: ${problem}`);
}

function validateDefinition(plugin: unknown, source: string): asserts plugin is PluginDefinition {
  if (!plugin || typeof plugin !== "object") fail(source, "the module's default export is not a plugin object");
  const p = plugin as Partial<PluginDefinition>;
  if (typeof p.id !== "string" || !ID_PATTERN.test(p.id)) fail(source, `id ${JSON.stringify(p.id)} is not a valid plugin id`);
  const where = `plugin "${p.id}" (${source})`;
  if (!SUPPORTED_API_VERSIONS.includes(p.apiVersion as number)) {
    throw new PluginError(
      `${where}: apiVersion ${JSON.stringify(p.apiVersion)} is not supported; this engine supports ${SUPPORTED_API_VERSIONS.join(", ")}`,
      "plugin_api_version",
    );
  }
  if (!PLUGIN_CLASSES.includes(p.class as PluginClass)) {
    throw new PluginError(`${where}: class must be one of ${PLUGIN_CLASSES.join(", ")}`);
  }
  if (!Array.isArray(p.checks) || p.checks.length === 0) throw new PluginError(`${where}: checks must be a non-empty array`);
  const seen = new Set<string>();
  p.checks.forEach((check, index) => {
    const at = `${where}: checks[${index}]`;
    if (!check || typeof check !== "object") throw new PluginError(`${at} is not an object`);
    if (typeof check.id !== "string" || !ID_PATTERN.test(check.id)) {
      throw new PluginError(`${at}: id ${JSON.stringify(check.id)} is not a valid check id`);
    }
    if (seen.has(check.id)) throw new PluginError(`${at}: check id "${check.id}" appears twice`);
    seen.add(check.id);
    if (typeof check.run !== "function") throw new PluginError(`${at} (${check.id}): run must be a function`);
    if (typeof check.description !== "string") throw new PluginError(`${at} (${check.id}): description must be a string`);
    if (
      !Array.isArray(check.sides) ||
      check.sides.length === 0 ||
      !check.sides.every((s: unknown) => SIDES.includes(s as Side))
    ) {
      throw new PluginError(`${at} (${check.id}): sides must list "input" and/or "output"`);
    }
    if (check.kind !== undefined && !KINDS.includes(check.kind)) {
      throw new PluginError(`${at} (${check.id}): kind must be one of ${KINDS.join(", ")}`);
    }
    if (!check.parameters || typeof check.parameters !== "object" || check.parameters.type !== "object") {
      throw new PluginError(`${at} (${check.id}): parameters must be a JSON Schema of type "object"`);
    }
  });
}

/** Holds the checks of every loaded plugin. */
export class CheckRegistry {
  readonly #checks = new Map<string, RegisteredCheck>();
  readonly #plugins = new Map<
    string,
    { plugin: PluginDefinition; source: string; validateCredentials?: () => ValidateFunction }
  >();

  /**
   * Registers a plugin whole, or throws a PluginError and registers nothing. With `schemas:
   * "on-use"` its parameter and credentials schemas are compiled when a check is first validated
   * rather than now: for plugins whose schemas are known to compile (guardgate's own, which
   * test/builtin-schemas.test.ts compiles; a pool worker's, which the engine registered first), so
   * a process that validates a few checks does not compile the schemas of all of them.
   */
  register(plugin: unknown, source = "an object", schemas: "now" | "on-use" = "now"): void {
    validateDefinition(plugin, source);
    const existing = this.#plugins.get(plugin.id);
    if (existing) {
      throw new PluginError(
        `plugin id "${plugin.id}" from ${source} collides with the plugin of the same id from ${existing.source}`,
        "plugin_collision",
      );
    }
    let validateCredentials: (() => ValidateFunction) | undefined;
    const credentials = plugin.credentials;
    if (credentials !== undefined) {
      if (!credentials || typeof credentials !== "object" || credentials.type !== "object") {
        throw new PluginError(`plugin "${plugin.id}" (${source}): credentials must be a JSON Schema of type "object"`);
      }
      validateCredentials = compiler(schemas, credentials, (error) =>
        invalidSchema(`plugin "${plugin.id}" (${source}): credentials schema does not compile`, error),
      );
    }
    const compiled: RegisteredCheck[] = plugin.checks.map((definition) => {
      const validate = compiler(schemas, definition.parameters, (error) =>
        invalidSchema(`plugin "${plugin.id}" (${source}): check ${definition.id}: parameter schema does not compile`, error),
      );
      const kind = definition.kind ?? "deterministic";
      return {
        id: `${plugin.id}.${definition.id}`,
        plugin,
        definition,
        kind,
        defaultTimeout: DEFAULT_TIMEOUTS[kind],
        runsInPool: definition.runsInPool === true,
        get validate() {
          return validate();
        },
        // A getter, not a spread: spreading would call it, compiling the schema now.
        get validateCredentials() {
          return validateCredentials?.();
        },
      };
    });
    this.#plugins.set(plugin.id, { plugin, source, ...(validateCredentials && { validateCredentials }) });
    for (const check of compiled) this.#checks.set(check.id, check);
  }

  /** The registered check with this full id. */
  get(id: string): RegisteredCheck | undefined {
    return this.#checks.get(id);
  }

  /** Whether a plugin with this id is loaded. */
  hasPlugin(id: string): boolean {
    return this.#plugins.has(id);
  }

  /**
   * Checks credentials held for a plugin (an integration's) against the plugin's credentials
   * schema, on a copy: throws a ConfigError naming the offending key under `path`. A plugin that
   * declares no schema takes any object.
   */
  validatePluginCredentials(pluginId: string, credentials: unknown, path: string): void {
    const entry = this.#plugins.get(pluginId);
    if (!entry) throw new ConfigError(path, `plugin "${pluginId}" is not loaded`, "unknown_plugin");
    if (typeof credentials !== "object" || credentials === null || Array.isArray(credentials)) {
      throw new ConfigError(path, "must be an object");
    }
    const validate = entry.validateCredentials?.();
    if (validate && !validate(structuredClone(credentials))) {
      throw parameterError(validate.errors, path, entry.plugin.credentials ?? {}, "key");
    }
  }

  /** Metadata of every registered check. */
  checks(): CheckInfo[] {
    return [...this.#checks.values()].map((c) => ({
      id: c.id,
      plugin: c.plugin.id,
      class: c.plugin.class,
      name: c.definition.name ?? c.definition.id,
      description: c.definition.description,
      sides: [...c.definition.sides],
      kind: c.kind,
      transforms: c.definition.transforms === true,
      streamScope: c.definition.streamScope ?? "window",
      defaultTimeout: c.defaultTimeout,
      parameters: c.definition.parameters,
      notes: c.definition.notes ?? "",
      data: c.definition.data ?? {},
      examples: c.definition.examples ?? [],
    }));
  }

  /** Metadata of every loaded plugin. */
  plugins(): PluginInfo[] {
    return [...this.#plugins.values()].map(({ plugin, source }) => ({
      id: plugin.id,
      name: plugin.name ?? plugin.id,
      description: plugin.description ?? "",
      class: plugin.class,
      apiVersion: plugin.apiVersion,
      source,
      checks: plugin.checks.map((c) => `${plugin.id}.${c.id}`),
    }));
  }

  /**
   * Validates one check of a guardrail for a side: known id, supported side, parameters valid
   * against the schema (defaults applied). `at` says where the check, its parameters and its id
   * sit in the user's config (they differ in the shorthand form).
   */
  prepareCheck(
    raw: RawCheck,
    side: Side,
    at: { path: string; parametersPath: string; idPath: string; hint?: string },
  ): CheckConfig {
    const { path, parametersPath, idPath } = at;
    if (typeof raw.id !== "string" || raw.id === "") throw new ConfigError(idPath, "must be a non-empty string");
    const check = this.#checks.get(raw.id);
    if (!check) {
      const message = unknownCheckMessage(raw.id, [...this.#checks.keys()]);
      throw new ConfigError(idPath, at.hint ? `${message}; ${at.hint}` : message, "unknown_check");
    }
    if (!check.definition.sides.includes(side)) {
      throw new ConfigError(
        idPath,
        `${raw.id} does not support the ${side} side (it supports: ${check.definition.sides.join(", ")})`,
        "unsupported_side",
      );
    }
    const given = raw.parameters ?? {};
    if (typeof given !== "object" || Array.isArray(given) || given === null) {
      throw new ConfigError(parametersPath, "must be an object");
    }
    const declared = (check.definition.parameters.properties ?? {}) as Record<string, unknown>;
    const parameters: Record<string, unknown> = structuredClone(given as Record<string, unknown>);
    const options: Record<string, unknown> = {};
    for (const key of RUNNER_OPTIONS) {
      if (key in parameters) {
        options[key] = parameters[key];
        if (!(key in declared)) delete parameters[key];
      }
    }
    if (options.failOnError !== undefined && typeof options.failOnError !== "boolean") {
      throw new ConfigError(joinPath(parametersPath, "failOnError"), "must be boolean");
    }
    if (options.is_enabled !== undefined && typeof options.is_enabled !== "boolean") {
      throw new ConfigError(joinPath(parametersPath, "is_enabled"), "must be boolean");
    }
    if (raw.is_enabled !== undefined && typeof raw.is_enabled !== "boolean") {
      throw new ConfigError(joinPath(path, "is_enabled"), "must be boolean");
    }
    if (options.timeout !== undefined && !(typeof options.timeout === "number" && options.timeout > 0)) {
      throw new ConfigError(joinPath(parametersPath, "timeout"), "must be a positive number of milliseconds");
    }
    if (options.credentials !== undefined) {
      const at = joinPath(parametersPath, "credentials");
      if (typeof options.credentials !== "object" || options.credentials === null || Array.isArray(options.credentials)) {
        throw new ConfigError(at, "must be an object");
      }
      if (check.validateCredentials && !check.validateCredentials(options.credentials)) {
        throw parameterError(check.validateCredentials.errors, at, check.plugin.credentials ?? {});
      }
    }
    if (!check.validate(parameters)) {
      throw parameterError(check.validate.errors, parametersPath, check.definition.parameters);
    }
    let problem: ReturnType<NonNullable<CheckDefinition["validate"]>>;
    try {
      problem = check.definition.validate?.(parameters);
    } catch (error) {
      // A plugin's own bug, reported where the config names the check rather than as a crash.
      throw new ConfigError(
        parametersPath,
        `${check.id} could not validate these parameters: its validate function threw ${describeThrown(error)}`,
        "check_validate_failed",
      );
    }
    if (problem) {
      throw new ConfigError(problem.parameter ? joinPath(parametersPath, problem.parameter) : parametersPath, problem.message);
    }
    const config: CheckConfig = {
      id: check.id,
      parameters,
      enabled: raw.is_enabled !== false && options.is_enabled !== false,
      failOnError: options.failOnError === true,
    };
    if (options.credentials !== undefined) config.credentials = options.credentials as Record<string, unknown>;
    const profile = check.definition.configured?.(parameters);
    if (profile?.kind !== undefined && profile.kind !== check.kind) config.kind = profile.kind;
    if (profile?.runsInPool === true && !check.runsInPool) config.runsInPool = true;
    const timeout =
      options.timeout ??
      (typeof parameters.timeout === "number" ? parameters.timeout : undefined) ??
      (config.kind && DEFAULT_TIMEOUTS[config.kind]);
    if (typeof timeout === "number") config.timeout = timeout;
    return config;
  }
}

function describeThrown(error: unknown): string {
  try {
    return error instanceof Error ? `${error.name}: ${error.message}` : (JSON.stringify(error) ?? String(error));
  } catch {
    return "a value that cannot be described";
  }
}

function unknownCheckMessage(id: string, known: string[]): string {
  const plugin = id.split(".")[0] ?? "";
  const sameName = known.filter((k) => k.toLowerCase() === id.toLowerCase());
  if (sameName.length) return `unknown check "${id}"; did you mean "${sameName[0]}"?`;
  if (!id.includes(".")) return `unknown check "${id}"; check ids have the form <plugin>.<check>, e.g. default.${id}`;
  const ofPlugin = known.filter((k) => k.startsWith(`${plugin}.`));
  if (!ofPlugin.length) return `unknown check "${id}": no plugin "${plugin}" is loaded`;
  const near = nearestKey(
    id.slice(plugin.length + 1),
    ofPlugin.map((k) => k.slice(plugin.length + 1)),
  );
  return near ? `unknown check "${id}"; did you mean "${plugin}.${near}"?` : `unknown check "${id}"`;
}
