/**
 * Warming up: loading, before the first request, what checks would otherwise load on first use
 * (a model's weights, an onnxruntime session, a language table) in each thread that runs them.
 * A check declares how with `load` (plugin-api.ts); checks without one have nothing to load.
 */
import type { CheckSettings } from "./plugin-api.js";
import type { CheckRegistry } from "./registry.js";
import type { CheckConfig, Guardrail } from "./types.js";

/** What to load: checks (by id, with their parameters) and the settings they read. */
export interface WarmRequest {
  /** `runsInPool` set when the parameters make the check need a worker (CheckDefinition.configured). */
  checks: Array<Pick<CheckConfig, "id" | "parameters" | "runsInPool">>;
  settings: CheckSettings;
}

/** What a warm-up did. */
export interface WarmReport {
  /** Checks whose `load` ran in the calling thread. */
  loaded: string[];
  /** Checks whose `load` failed, with why; they load again on first use (and fail there as check errors). */
  failed: Array<{ id: string; message: string }>;
  /** Worker threads that ran the warm-up: every thread the pool had, or 0 without a pool. */
  threads: number;
}

/** The enabled checks of these guardrails that have something to load, each id and parameters once. */
export function checksToLoad(registry: CheckRegistry, guardrails: readonly Guardrail[]): WarmRequest["checks"] {
  const seen = new Map<string, WarmRequest["checks"][number]>();
  for (const guardrail of guardrails) {
    for (const config of guardrail.checks) {
      if (!config.enabled || !registry.get(config.id)?.definition.load) continue;
      seen.set(`${config.id}\0${JSON.stringify(config.parameters)}`, {
        id: config.id,
        parameters: config.parameters,
        ...(config.runsInPool && { runsInPool: true as const }),
      });
    }
  }
  return [...seen.values()];
}

/** Runs each check's `load` in this thread, one after another (they compete for the same core). */
export async function loadChecks(registry: CheckRegistry, request: WarmRequest): Promise<WarmReport> {
  const report: WarmReport = { loaded: [], failed: [], threads: 0 };
  for (const { id, parameters } of request.checks) {
    const load = registry.get(id)?.definition.load;
    if (!load) continue;
    try {
      await load(parameters, request.settings);
      report.loaded.push(id);
    } catch (error) {
      report.failed.push({ id, message: error instanceof Error ? error.message : String(error) });
    }
  }
  return report;
}

/** Reports of several threads as one: the checks each thread loaded, listed once. */
export function mergeReports(reports: readonly WarmReport[]): WarmReport {
  const failed = new Map<string, string>();
  for (const report of reports) for (const f of report.failed) failed.set(f.id, f.message);
  return {
    loaded: [...new Set(reports.flatMap((r) => r.loaded))],
    failed: [...failed].map(([id, message]) => ({ id, message })),
    threads: reports.reduce((sum, r) => sum + r.threads, 0),
  };
}
