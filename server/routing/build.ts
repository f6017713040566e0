/**
 * From a config to a routing: the tree of targets with, for each, its provider settings and its input
 * and output guardrails, every one normalised by the engine. A target inherits what it does not set
 * from its parent: provider settings, retry, cache, time-out, mock response, and each side's
 * guardrail list (docs/spec-notes.md, "The peer gateway": a target with no hooks inherits the parent's).
 */
import {
  ConfigError,
  type ConfigWarning,
  type Engine,
  type Guardrail,
  GUARDRAIL_CONFIG_KEYS,
  type Side,
  type StreamMode,
} from "../../core/index.js";
import { checkConfigKeys, joinPath, PROVIDER_OPTION_KEYS } from "../../core/internal.js";
import type { TargetProviderSettings } from "../providers/resolve.js";
import type { Scope } from "../sources/types.js";
import { type GatewayConfig, validateGatewayConfig } from "./schema.js";
import { type StreamHold, streamHoldOf } from "./stream-mode.js";

/** The guardrails of one side of a target, split by how they run. */
export interface GuardrailList {
  /** Identifies the list within its routing: targets that inherit a list share its key. */
  key: string;
  sync: Guardrail[];
  async: Guardrail[];
}

/** Statuses retried when `retry.on_status_codes` is not given. */
export const DEFAULT_RETRY_STATUS_CODES: readonly number[] = [429, 500, 502, 503, 504];

/** Provider and call settings of a target, after inheritance. */
export interface TargetSettings extends TargetProviderSettings {
  overrideParams: Record<string, unknown>;
  retry?: { attempts: number; onStatusCodes: readonly number[] };
  cache?: { maxAgeSeconds?: number };
  requestTimeoutMs?: number;
  mockResponse?: string | Record<string, unknown>;
  /** The stream mode of output guardrails that name none. */
  streamMode?: StreamMode;
  /** Characters per checked window of a `window`-mode stream. */
  streamWindow?: number;
  /** Drop parameters a translated provider cannot honour instead of refusing them. */
  dropParams?: boolean;
}

/** How a node with targets picks among them. */
export interface Strategy {
  mode: "single" | "fallback" | "loadbalance";
  onStatusCodes?: readonly number[];
}

/** A node of the routing: the root config or one of its (nested) targets. */
export interface RoutingNode {
  /** Config path, `""` for the root, `targets[1]` for a target. */
  path: string;
  settings: TargetSettings;
  input: GuardrailList;
  output: GuardrailList;
  weight: number;
  /** How this target's streamed answers are held for its synchronous output guardrails. */
  stream: StreamHold;
  strategy?: Strategy;
  targets?: RoutingNode[];
}

/** What a config resolves to. */
export interface Routing {
  root: RoutingNode;
  configId?: string;
  warnings: ConfigWarning[];
  /** Whether any node has a synchronous guardrail (decides whether hook_results may appear). */
  hasGuardrails: boolean;
  /**
   * Ids of the guardrails written out in a config the caller sent, rather than saved: ids a caller
   * chooses freely, so they never become metric labels. Empty for a saved config.
   */
  inlineGuardrails: readonly string[];
}

/** Every guardrail a routing attaches, root and targets, both sides, each once. */
export function routingGuardrails(root: RoutingNode): Guardrail[] {
  const seen = new Set<Guardrail>();
  const walk = (node: RoutingNode): void => {
    for (const list of [node.input, node.output]) for (const g of [...list.sync, ...list.async]) seen.add(g);
    for (const target of node.targets ?? []) walk(target);
  };
  walk(root);
  return [...seen];
}

const EMPTY_LIST = (key: string): GuardrailList => ({ key, sync: [], async: [] });

/** The routing of a request with no config: one root target, no guardrails. */
export const EMPTY_ROUTING: Routing = Object.freeze({
  root: {
    path: "",
    settings: { overrideParams: {} },
    input: EMPTY_LIST("input"),
    output: EMPTY_LIST("output"),
    weight: 1,
    stream: { mode: "after", window: 0, tail: 0 },
  },
  warnings: [],
  hasGuardrails: false,
  inlineGuardrails: [],
}) as Routing;

function split(key: string, guardrails: Guardrail[]): GuardrailList {
  return { key, sync: guardrails.filter((g) => !g.async), async: guardrails.filter((g) => g.async) };
}

function ownSettings(config: GatewayConfig, parent: TargetSettings | undefined): TargetSettings {
  const inherited: TargetSettings = parent ? { ...parent } : { overrideParams: {} };
  // Provider identity is inherited as a whole: a target naming its own provider must not pick up
  // the parent's virtual key or credential.
  if (config.provider !== undefined || config.virtual_key !== undefined) {
    delete inherited.provider;
    delete inherited.virtualKey;
    delete inherited.apiKey;
    delete inherited.customHost;
    delete inherited.providerOptions;
  }
  const settings: TargetSettings = {
    ...inherited,
    overrideParams: { ...inherited.overrideParams, ...(config.override_params ?? {}) },
  };
  if (config.provider !== undefined) settings.provider = config.provider;
  if (config.virtual_key !== undefined) settings.virtualKey = config.virtual_key;
  if (config.api_key !== undefined) settings.apiKey = config.api_key;
  if (config.custom_host !== undefined) settings.customHost = config.custom_host;
  if (config.retry !== undefined) {
    settings.retry = {
      attempts: config.retry.attempts ?? 0,
      onStatusCodes: config.retry.on_status_codes ?? DEFAULT_RETRY_STATUS_CODES,
    };
  }
  if (config.cache !== undefined)
    settings.cache = config.cache.max_age !== undefined ? { maxAgeSeconds: config.cache.max_age } : {};
  if (config.request_timeout !== undefined) settings.requestTimeoutMs = config.request_timeout;
  if (config.mock_response !== undefined) settings.mockResponse = config.mock_response;
  if (config.stream_mode !== undefined) settings.streamMode = config.stream_mode;
  if (config.stream_window !== undefined) settings.streamWindow = config.stream_window;
  if (config.drop_params !== undefined) settings.dropParams = config.drop_params;
  const options = providerOptionsOf(config);
  if (options) settings.providerOptions = { ...inherited.providerOptions, ...options };
  return settings;
}

function providerOptionsOf(config: GatewayConfig): Record<string, unknown> | undefined {
  let options: Record<string, unknown> | undefined;
  for (const key of PROVIDER_OPTION_KEYS) {
    if (config[key] !== undefined) (options ??= {})[key] = config[key];
  }
  return options;
}

function hasSideKeys(config: Record<string, unknown>, side: Side): boolean {
  return GUARDRAIL_CONFIG_KEYS[side].some((key) => config[key] !== undefined && config[key] !== null);
}

/**
 * Builds the routing of a config. Throws a ConfigError naming the path for anything that cannot load:
 * malformed gateway keys, unknown guardrails or checks, bad parameters.
 */
export async function buildRouting(config: Record<string, unknown>, engine: Engine, scope: Scope): Promise<Routing> {
  // Unknown keys first: a misspelt key is better named as such than as a schema mismatch.
  const warnings: ConfigWarning[] = checkConfigKeys(config);
  validateGatewayConfig(config, "");
  let hasGuardrails = false;
  const inline = new Set<string>();

  const build = async (node: GatewayConfig, path: string, parent: RoutingNode | undefined): Promise<RoutingNode> => {
    const normalized = await engine.normalize(node, { path, scope });
    warnings.push(...normalized.warnings);
    for (const guardrail of [...normalized.input, ...normalized.output]) if (guardrail.inline) inline.add(guardrail.id);
    const list = (side: Side): GuardrailList => {
      if (parent && !hasSideKeys(node, side)) return parent[side];
      const built = split(`${path || "root"}.${side}`, normalized[side]);
      if (built.sync.length) hasGuardrails = true;
      return built;
    };
    const settings = ownSettings(node, parent?.settings);
    const output = list("output");
    const routingNode: RoutingNode = {
      path,
      settings,
      input: list("input"),
      output,
      weight: node.weight ?? 1,
      stream: streamHoldOf(output.sync, settings, (id) => engine.registry.get(id)?.definition),
    };
    if (node.targets) {
      routingNode.strategy = {
        mode: node.strategy?.mode ?? "single",
        ...(node.strategy?.on_status_codes && { onStatusCodes: node.strategy.on_status_codes }),
      };
      const targetsPath = joinPath(path, "targets");
      routingNode.targets = [];
      for (const [index, target] of node.targets.entries()) {
        routingNode.targets.push(await build(target, joinPath(targetsPath, index), routingNode));
      }
      if (routingNode.strategy.mode === "loadbalance" && !routingNode.targets.some((t) => t.weight > 0)) {
        throw new ConfigError(targetsPath, "loadbalance needs a target with weight > 0");
      }
    } else if (node.strategy) {
      throw new ConfigError(joinPath(path, "strategy"), "a strategy needs targets to choose from");
    }
    return routingNode;
  };

  const root = await build(config as GatewayConfig, "", undefined);
  return { root, warnings, hasGuardrails, inlineGuardrails: [...inline] };
}
