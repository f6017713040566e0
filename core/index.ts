/**
 * Core's public API: the engine, the plugin API for check authors, and the types of results.
 * Code outside core imports core through this file, or through core/internal.ts for what only
 * guardgate's own plugins, server and CLI may use; a lint rule holds that boundary. The
 * `guardgate` package entry (index.ts at the root) adds the built-in plugins to `createEngine`.
 */
export { buildFeedback, checkFails, evaluationStatus, guardrailVerdict } from "./aggregate.js";
export type { GuardrailDefinition } from "./config/definition.js";
export type { ConfigWarning } from "./config/keys.js";
export { CONFIG_KEYS, type KeyLevel, type KeySupport } from "./config/keys.js";
export { GUARDRAIL_CONFIG_KEYS, hasGuardrailKeys, type NormalizedGuardrails, parseConfig } from "./config/normalize.js";
export { type GuardrailSource, InMemoryGuardrailSource } from "./config/source.js";
export { baseRequestType, type EvaluatedText, locateText, tokenIdInput, writeText } from "./content.js";
export {
  createEngine,
  type Engine,
  type EngineOptions,
  type EvaluateOptions,
  type Evaluation,
  type ExecutorChoice,
  type GuardrailInput,
} from "./engine.js";
export {
  CheckAbortedError,
  CheckLostError,
  CheckTimeoutError,
  ConfigError,
  CredentialsError,
  GuardgateError,
  NoTextError,
  PluginError,
} from "./errors.js";
export {
  CHECK_ERRORS,
  type CheckErrorCode,
  CONFIG_ERRORS,
  type ConfigErrorCode,
  type CoreErrorInfo,
  PLUGIN_ERRORS,
  type PluginErrorCode,
} from "./error-codes.js";
export { type Executor, type ExecutorContext, InlineExecutor } from "./executor.js";
export { displayUrl, OutboundError, type OutboundErrorCode } from "./net/errors.js";
export { type ResolvedAddress, type Resolver, systemResolver } from "./net/lookup.js";
export { type NetworkPolicy, networkPolicy } from "./net/network-policy.js";
export { type OutboundOptions, type OutboundResponse, outboundRequest, outboundUrlProblem } from "./net/outbound.js";
export {
  type CheckContext,
  type CheckDefinition,
  type CheckExample,
  type CheckOutcome,
  type CheckSettings,
  type DataFieldDoc,
  defineCheck,
  definePlugin,
  type JsonSchema,
  type ParameterProblem,
  type PluginDefinition,
} from "./plugin-api.js";
export { type LoadedPlugin, loadPlugin, type PluginSpec } from "./plugin-loader.js";
export { MIN_SECRET_LENGTH, REDACTED } from "./redact.js";
export { AutoExecutor, type AutoOptions } from "./pool/auto-executor.js";
export { PoolExecutor, type PoolOptions, type PoolStats } from "./pool/pool-executor.js";
export {
  allMatches,
  compileRegex,
  firstMatch,
  parseRegexRule,
  type Regex,
  regexEngine,
  type RegexEngineName,
  replaceMatches,
  useRegexEngine,
} from "./regex.js";
export { type CheckInfo, CheckRegistry, DEFAULT_TIMEOUTS, type PluginInfo } from "./registry.js";
export type { CheckWatch, PhaseResult, PhaseTask } from "./phase/task.js";
export type { WarmReport, WarmRequest } from "./warm.js";
export { bodyForText } from "./sample-body.js";
export { textExcerpt } from "./text.js";
export { DATA_MAX_BYTES } from "./result-data.js";
export type * from "./types.js";
export { STREAM_MODES } from "./types.js";
