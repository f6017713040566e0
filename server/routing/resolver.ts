/**
 * Resolves `x-gateway-config` (a saved config id or an inline JSON config, spec §4 rule 1) to a
 * routing. Routings are cached, so a config's guardrails are normalised once rather than per request;
 * `invalidate` drops them when records change.
 */
import { LRUCache } from "lru-cache";
import { ConfigError, type Engine, type Guardrail } from "../../core/index.js";
import { GatewayError } from "../errors.js";
import type { ConfigSource, Scope } from "../sources/types.js";
import { buildRouting, EMPTY_ROUTING, type Routing, routingGuardrails } from "./build.js";

/**
 * What the resolver asks of the request gate (`RequestGate` in server/request-gate.ts is one): may
 * the caller use these guardrails. Declared here so the two need not import each other.
 */
export interface GuardrailGate {
  /** Refuses guardrails the caller's organization may not use; `where` names their origin. */
  allowGuardrails(guardrails: readonly Guardrail[], scope: Scope, where: string): Promise<void>;
}

/** Options of the routing cache. */
export interface RoutingCacheOptions {
  /** Routings kept; default 1000. */
  max?: number;
  /** How long a routing is reused before its records are read again; default 60 s. */
  ttlMs?: number;
}

function isInline(value: string): boolean {
  return value.startsWith("{");
}

/** Turns config headers into routings, with a bounded cache. */
export class RoutingResolver {
  /** A routing being built, then the routing itself once built, so a hit answers without a promise. */
  readonly #cache: LRUCache<string, Routing | Promise<Routing>>;

  constructor(
    private readonly engine: Engine,
    private readonly configs: ConfigSource,
    options: RoutingCacheOptions = {},
    private readonly gate?: GuardrailGate,
    private readonly logger?: { warn(details: object, message: string): void },
  ) {
    this.#cache = new LRUCache({ max: options.max ?? 1000, ttl: options.ttlMs ?? 60_000 });
  }

  /**
   * A request's routing, the one way for every route: a saved config's id or inline JSON text (the
   * `x-gateway-config` header, or a hook body's `config` string) through the cache, a config object
   * (a hook body's `config`) built; the empty routing when there is none. `label` names where it
   * came from in errors. A routing in the cache, built, is handed back as it is; one being built
   * (or not cached) as a promise.
   */
  resolve(
    config: string | Record<string, unknown> | undefined,
    scope: Scope,
    label = "x-gateway-config",
  ): Routing | Promise<Routing> {
    if (typeof config === "object") return this.build(config, scope, label);
    const value = config?.trim();
    if (!value) return EMPTY_ROUTING;
    const key = `${scope.workspaceId ?? ""}\0${value}`;
    const cached = this.#cache.get(key);
    if (cached) return cached;
    const routing = (isInline(value) ? this.#inline(value, scope, label) : this.#saved(value, scope, label)).then(
      (built) => {
        // Unless dropped (invalidated, evicted) while it was built, the routing stands in for its promise.
        if (this.#cache.peek(key) === routing) this.#cache.set(key, built, { noUpdateTTL: true });
        return built;
      },
      (error: unknown) => {
        if (this.#cache.peek(key) === routing) this.#cache.delete(key);
        throw error;
      },
    );
    this.#cache.set(key, routing);
    return routing;
  }

  /** Builds the routing of a config object given directly (the hook routes), without caching. */
  async build(config: Record<string, unknown>, scope: Scope, label: string): Promise<Routing> {
    let routing: Routing;
    try {
      routing = await buildRouting(config, this.engine, scope);
    } catch (error) {
      throw labelled(error, label);
    }
    // Keys the peer gateway knows and guardgate does not act on: said once per routing built.
    if (routing.warnings.length)
      this.logger?.warn({ config: label, warnings: routing.warnings.map((w) => w.message) }, "config warnings");
    // Routings are cached per workspace, and the management plane drops them when an organization's plan changes.
    await this.gate?.allowGuardrails(routingGuardrails(routing.root), scope, label);
    return routing;
  }

  /** Drops every cached routing: call when a config, guardrail or plugin changes. */
  invalidate(): void {
    this.#cache.clear();
  }

  async #inline(value: string, scope: Scope, label: string): Promise<Routing> {
    let config: unknown;
    try {
      config = JSON.parse(value);
    } catch (error) {
      throw new GatewayError("config_malformed", `${label}: is not valid JSON: ${(error as Error).message}`);
    }
    if (typeof config !== "object" || config === null || Array.isArray(config)) {
      throw new GatewayError("config_malformed", `${label}: must be a config id or a JSON object`);
    }
    return this.build(config as Record<string, unknown>, scope, label);
  }

  async #saved(id: string, scope: Scope, label: string): Promise<Routing> {
    const record = await this.configs.get(id, scope);
    if (!record) throw new GatewayError("unknown_config", `${label}: no config with id "${id}"`);
    const routing = await this.build(record.config, scope, `config "${id}"`);
    // A saved config's guardrails, inline or not, were written by an admin: their ids are saved ids.
    return { ...routing, configId: id, inlineGuardrails: [] };
  }
}

/** Prefixes a config error with where the config came from; other errors pass unchanged. */
function labelled(error: unknown, label: string): unknown {
  if (error instanceof ConfigError) {
    return new GatewayError(error.code, `${label}: ${error.message}`, { cause: error });
  }
  return error;
}
