/**
 * Ready means ready: before the gateway reports ready, its worker pool runs and every model that
 * the store's configs and policies name is loaded, in every thread that may run it. Otherwise the
 * first requests with a model check would pay for starting workers and reading weights (seconds).
 */
import type { Engine, Guardrail, WarmReport } from "../../core/index.js";
import { prepareGuardrail } from "../../core/internal.js";
import { buildRouting, type RoutingNode } from "../routing/build.js";
import type { Store } from "../store/repository.js";

/** The guardrails a routing's nodes run, synchronous and asynchronous, targets included. */
function routingGuardrails(node: RoutingNode): Guardrail[] {
  return [
    ...node.input.sync,
    ...node.input.async,
    ...node.output.sync,
    ...node.output.async,
    ...(node.targets ?? []).flatMap(routingGuardrails),
  ];
}

/**
 * The prepared guardrails of every config and policy in the store. A record that no longer loads
 * (a check since removed) is left out and named in `problems`: it fails at request time as before.
 */
export async function namedGuardrails(store: Store, engine: Engine): Promise<{ guardrails: Guardrail[]; problems: string[] }> {
  const guardrails: Guardrail[] = [];
  const problems: string[] = [];
  for (const organization of await store.organizations.list()) {
    for (const workspace of await store.workspaces.list(organization.id)) {
      for (const config of await store.configs.list(workspace.id)) {
        try {
          guardrails.push(...routingGuardrails((await buildRouting(config.config, engine, { workspaceId: workspace.id })).root));
        } catch (error) {
          problems.push(`config ${config.id} of workspace ${workspace.id}: ${(error as Error).message}`);
        }
      }
    }
    for (const policy of await store.policies.list({ organizationId: organization.id })) {
      for (const side of ["input", "output"] as const) {
        for (const [index, definition] of policy[`${side}_guardrails`].entries()) {
          const path = `policy ${policy.id}: ${side}_guardrails[${index}]`;
          try {
            guardrails.push(prepareGuardrail(definition, { side, inline: false, path, registry: engine.registry }).guardrail);
          } catch (error) {
            problems.push(`${path}: ${(error as Error).message}`);
          }
        }
      }
    }
  }
  return { guardrails, problems };
}

/** What a warm-up did: the engine's report, and the records left out. */
export type WarmUpReport = WarmReport & { problems: string[] };

/** Warms the engine for the store's configs and policies; resolves with what was loaded and what was not. */
export async function warmUp(store: Store, engine: Engine): Promise<WarmUpReport> {
  const { guardrails, problems } = await namedGuardrails(store, engine);
  return { ...(await engine.warm(guardrails)), problems };
}
