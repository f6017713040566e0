/**
 * Plan gating (spec §5): each check's plugin has a class, and an organization's plan decides which
 * classes its guardrails may use. Guardrails as a whole are enabled per organization by the
 * operator. Refusals name the check, its class and the plan.
 */
import type { CheckRegistry, Guardrail, PluginClass } from "../../core/index.js";
import { forbidden } from "../store/errors.js";
import type { Organization, PlanName } from "../store/types.js";

/** The plugin classes each plan may use. */
export const PLAN_CLASSES: Readonly<Record<PlanName, readonly PluginClass[]>> = {
  developer: ["BASIC"],
  production: ["BASIC", "PARTNER", "PRO"],
  enterprise: ["BASIC", "PARTNER", "PRO", "custom"],
};

/** Whether a plan may use checks of a class. */
export function planAllows(plan: PlanName, pluginClass: PluginClass): boolean {
  return PLAN_CLASSES[plan].includes(pluginClass);
}

/** A guardrail as gating sees it: an id and the ids of its checks. */
export interface GatedGuardrail {
  id: string;
  checks: ReadonlyArray<{ id: string }>;
}

/**
 * Throws a 403 ManagementError unless the organization may use every check of these guardrails:
 * guardrails enabled for it, and each check's class within its plan. `where` prefixes the message
 * (`guardrail "pii"`, `config "prod"`).
 */
export function assertGuardrailsAllowed(
  organization: Pick<Organization, "id" | "plan" | "guardrails_enabled">,
  guardrails: readonly (GatedGuardrail | Guardrail)[],
  registry: CheckRegistry,
  where?: string,
): void {
  if (guardrails.length === 0) return;
  const at = where ? `${where}: ` : "";
  if (!organization.guardrails_enabled) {
    throw forbidden(
      `${at}guardrails are not enabled for organization ${organization.id}; the operator enables them per organization`,
      "guardrails_disabled",
    );
  }
  for (const guardrail of guardrails) {
    for (const check of guardrail.checks) {
      const pluginClass = registry.get(check.id)?.plugin.class;
      // An unknown check is refused by validation, which names its path; nothing to gate here.
      if (pluginClass === undefined) continue;
      if (!planAllows(organization.plan, pluginClass)) {
        throw forbidden(
          `${at}check ${check.id} (guardrail "${guardrail.id}") is a ${pluginClass} check, which the ${organization.plan} plan does not include; the ${organization.plan} plan includes ${PLAN_CLASSES[organization.plan].join(", ")} checks`,
          "plan_forbids_check",
        );
      }
    }
  }
}
