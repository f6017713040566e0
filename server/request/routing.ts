/**
 * A request's routing, the one way for every route: a saved config's id or inline JSON text (the
 * `x-gateway-config` header, or a hook body's `config` string) is resolved through the routing cache;
 * a config object (a hook body's `config`) is built. No config is the empty routing.
 */
import type { Routing } from "../routing/build.js";
import type { RoutingResolver } from "../routing/resolver.js";
import type { Scope } from "../sources/types.js";
import { HEADER } from "../gateway-headers.js";

/** The routing of a config as a request gives it; `label` names where it came from in errors. */
export function routingOf(
  routing: RoutingResolver,
  config: string | Record<string, unknown> | undefined,
  scope: Scope,
  label: string = HEADER.config,
): Promise<Routing> {
  return typeof config === "object" ? routing.build(config, scope, label) : routing.resolve(config, scope, label);
}
