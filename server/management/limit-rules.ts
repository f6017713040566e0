/**
 * The rules between nested limits: a provider's budget and rate limit may only be stricter than
 * those of the integration as provisioned to its workspace, and its model allow-list only
 * narrower. Enforcement applies both levels anyway; these rules refuse a looser value at save
 * time so the configuration reads as it behaves.
 */
import { invalid } from "../store/errors.js";
import type { Budget, ModelAllowList, RateLimit } from "../store/types.js";

/** Throws 400 unless `child` is at most as generous as `parent`. */
export function assertStricterBudget(child: Budget | null | undefined, parent: Budget | null, where: string): void {
  if (!child || !parent) return;
  if (child.period !== parent.period) {
    throw invalid(
      `${where}.budget: its period (${child.period}) must be the provisioning's (${parent.period}) so that it can only be stricter`,
      "limit_not_stricter",
    );
  }
  if (child.limit > parent.limit) {
    throw invalid(
      `${where}.budget.limit: ${child.limit} is above the ${parent.limit} the integration is provisioned with; a provider's budget may only be stricter`,
      "limit_not_stricter",
    );
  }
}

/** Throws 400 unless each rate of `child` is at most the same rate of `parent`. */
export function assertStricterRateLimit(child: RateLimit | null | undefined, parent: RateLimit | null, where: string): void {
  if (!child || !parent) return;
  for (const field of ["requests_per_minute", "tokens_per_minute"] as const) {
    const mine = child[field];
    const theirs = parent[field];
    if (mine !== undefined && theirs !== undefined && mine > theirs) {
      throw invalid(
        `${where}.rate_limit.${field}: ${mine} is above the ${theirs} the integration is provisioned with; a provider's rate limit may only be stricter`,
        "limit_not_stricter",
      );
    }
  }
}

/** Throws 400 unless `child` allows only models `parent` allows. */
export function assertNarrowerModels(child: ModelAllowList | undefined, parent: ModelAllowList, where: string): void {
  // A provider's "all" means all the integration allows.
  if (child === undefined || child === "all" || parent === "all") return;
  const allowed = new Set(parent);
  const outside = child.filter((model) => !allowed.has(model));
  if (outside.length) {
    throw invalid(
      `${where}.allowed_models: ${outside.map((m) => `"${m}"`).join(", ")} not allowed by the integration (it allows ${[...allowed].join(", ") || "no model"})`,
      "model_not_allowed",
    );
  }
}

/** The models both lists allow. */
export function intersectModels(a: ModelAllowList, b: ModelAllowList): ModelAllowList {
  if (a === "all") return b;
  if (b === "all") return a;
  const other = new Set(b);
  return a.filter((model) => other.has(model));
}

/** Whether a list allows a model. */
export function modelAllowed(list: ModelAllowList, model: string): boolean {
  return list === "all" || list.includes(model);
}
