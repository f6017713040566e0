/**
 * A request's plan, the one way for every route: a saved config's id or inline JSON text (the
 * `x-gateway-config` header, or a hook body's `config` string) is resolved through the plan cache;
 * a config object (a hook body's `config`) is built. No config is the empty plan.
 */
import type { Plan } from "../plan/build.js";
import type { PlanResolver } from "../plan/resolver.js";
import type { Scope } from "../sources/types.js";
import { HEADER } from "../gateway-headers.js";

/** The plan of a config as a request gives it; `label` names where it came from in errors. */
export function planOf(
  plans: PlanResolver,
  config: string | Record<string, unknown> | undefined,
  scope: Scope,
  label: string = HEADER.config,
): Promise<Plan> {
  return typeof config === "object" ? plans.build(config, scope, label) : plans.resolve(config, scope, label);
}
