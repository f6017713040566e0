/**
 * What every management module shares: the store, the secret box credentials are sealed with, the
 * engine's check registry (guardrail validation and plan gating), and the gateway's rules for
 * provider kinds and upstream addresses.
 */
import type { CheckRegistry } from "../../core/index.js";
import { type AddressPolicy, PUBLIC_ONLY, ThreadShare } from "../../core/internal.js";
import { DEFAULT_PRICES, type PriceTable } from "../limits/prices.js";
import type { Store } from "../store/repository.js";
import type { SecretBox } from "../store/secret-box.js";
import type { GatewayKeysValidator } from "./config-validation.js";

/** Options of the management service. */
export interface ManagementOptions {
  store: Store;
  box: SecretBox;
  /** The engine's registry, or a function giving it (when the engine is built after the service). */
  registry: CheckRegistry | (() => CheckRegistry);
  /** Validates the gateway keys of a config (targets, retry, …); guardrail keys are always validated. */
  validateGatewayKeys?: GatewayKeysValidator;
  /** Whether a provider kind is one the gateway can call; any lower-case name when absent. */
  isProviderKind?: (name: string) => boolean;
  /** Throws a ConfigError naming the path when options do not suit a provider kind; any object when absent. */
  checkProviderOptions?: (provider: string, options: unknown, where: string) => void;
  /**
   * What a workspace admin's own integration may point at (the operator and organization admins
   * may point anywhere); public addresses only by default. The gateway passes its custom-host
   * policy, which its calls to such an integration obey too.
   */
  workspaceAddressPolicy?: AddressPolicy;
  prices?: PriceTable;
  clock?: () => Date;
  /**
   * The longest long work over many records (datasets, evaluations, replays) keeps the event loop
   * before it gives a turn, ms; default WORK_SLICE_MS.
   */
  workSliceMs?: number;
}

/**
 * Work over thousands of records runs on the main thread beside requests: slices of 2 ms, as a
 * relayed stream's, keep /health and every other answer well under 50 ms behind it (bench:stalls).
 */
export const WORK_SLICE_MS = 2;

/** The shared context, with defaults decided. */
export interface ManagementContext {
  store: Store;
  box: SecretBox;
  registry: CheckRegistry;
  validateGatewayKeys: GatewayKeysValidator | undefined;
  isProviderKind: (name: string) => boolean;
  checkProviderOptions: (provider: string, options: unknown, where: string) => void;
  workspaceAddressPolicy: AddressPolicy;
  prices: PriceTable;
  /** The current time, ISO 8601. */
  now(): string;
  /** A fresh share of the thread for one piece of long work: await its `due()` between steps. */
  share(): ThreadShare;
}

/** Fills in the defaults of the options. */
export function managementContext(options: ManagementOptions): ManagementContext {
  const clock = options.clock ?? (() => new Date());
  const registry = options.registry;
  return {
    store: options.store,
    box: options.box,
    get registry() {
      return typeof registry === "function" ? registry() : registry;
    },
    validateGatewayKeys: options.validateGatewayKeys,
    isProviderKind: options.isProviderKind ?? ((name) => /^[a-z][a-z0-9-]*$/.test(name)),
    checkProviderOptions: options.checkProviderOptions ?? (() => undefined),
    workspaceAddressPolicy: options.workspaceAddressPolicy ?? PUBLIC_ONLY,
    prices: options.prices ?? DEFAULT_PRICES,
    now: () => clock().toISOString(),
    share: () => new ThreadShare(options.workSliceMs ?? WORK_SLICE_MS),
  };
}
