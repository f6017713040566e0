/**
 * The credentials the service holds for the plugins a phase runs (spec §1.7), ready for
 * `engine.evaluate({credentials})`. Only the plugins whose checks the guardrails use are passed,
 * so a phase carries no more secrets than it needs (into a worker thread, too); the runner gives
 * each check its own plugin's, unless the check's `parameters.credentials` say otherwise.
 */
import type { Guardrail } from "../../core/index.js";
import type { PluginCredentialMap, PluginCredentialSource } from "../sources/types.js";

/** Plugin ids of a prepared list; lists are prepared once per config, so this is worked out once. */
const pluginsOfList = new WeakMap<readonly Guardrail[], readonly string[]>();

function pluginsOf(guardrails: readonly Guardrail[]): readonly string[] {
  let plugins = pluginsOfList.get(guardrails);
  if (!plugins) {
    const ids = new Set<string>();
    // Plugin ids hold no dot (core/registry.ts), so a check id's plugin is what precedes the first.
    for (const guardrail of guardrails) for (const check of guardrail.checks) ids.add(check.id.slice(0, check.id.indexOf(".")));
    plugins = [...ids];
    pluginsOfList.set(guardrails, plugins);
  }
  return plugins;
}

/** The held credentials of the plugins `guardrails` use in a workspace; undefined when there are none. */
export async function phaseCredentials(
  source: PluginCredentialSource | undefined,
  workspaceId: string | undefined,
  guardrails: readonly Guardrail[],
): Promise<PluginCredentialMap | undefined> {
  if (!source || workspaceId === undefined) return undefined;
  const held = await source.forWorkspace(workspaceId);
  let picked: PluginCredentialMap | undefined;
  for (const plugin of pluginsOf(guardrails)) {
    const credentials = held[plugin];
    if (credentials) (picked ??= {})[plugin] = credentials;
  }
  return picked;
}
