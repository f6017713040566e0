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

/** The held credentials of the plugins `guardrails` use; undefined when there are none. */
function picked(held: PluginCredentialMap, guardrails: readonly Guardrail[]): PluginCredentialMap | undefined {
  let picked: PluginCredentialMap | undefined;
  for (const plugin of pluginsOf(guardrails)) {
    const credentials = held[plugin];
    if (credentials) (picked ??= {})[plugin] = credentials;
  }
  return picked;
}

/** Workspaces whose credentials are kept at most; past it the cache starts again (workspaces are few). */
const MAX_WORKSPACES = 10_000;

/**
 * A source's credentials by workspace, kept once read, so that a phase takes them without a
 * promise or a turn of the microtask queue. `clear` forgets them all: the app calls it whenever
 * its sources announce a change (`invalidateRouting`), a plugin integration's among them.
 */
export class PhaseCredentials {
  #held = new Map<string, PluginCredentialMap>();
  /** Each list's picked credentials by the held map they were picked from (nothing per phase). */
  #picked = new WeakMap<PluginCredentialMap, WeakMap<readonly Guardrail[], PluginCredentialMap | null>>();
  /** Counts clears: a read begun before one must not fill the cache after it. */
  #generation = 0;

  constructor(private readonly source: PluginCredentialSource | undefined) {}

  /**
   * The held credentials of the plugins `guardrails` use in a workspace, undefined when there are
   * none; a promise only when the workspace's were not read since the last clear.
   */
  forPhase(
    workspaceId: string | undefined,
    guardrails: readonly Guardrail[],
  ): PluginCredentialMap | undefined | Promise<PluginCredentialMap | undefined> {
    if (!this.source || workspaceId === undefined) return undefined;
    const held = this.#held.get(workspaceId);
    if (held) return this.#pick(held, guardrails);
    const generation = this.#generation;
    return this.source.forWorkspace(workspaceId).then((read) => {
      if (generation === this.#generation) {
        if (this.#held.size >= MAX_WORKSPACES) this.#held.clear();
        this.#held.set(workspaceId, read);
      }
      return this.#pick(read, guardrails);
    });
  }

  /** Forgets every workspace's credentials: the next phase of each reads its source again. */
  clear(): void {
    this.#generation++;
    this.#held = new Map();
    this.#picked = new WeakMap();
  }

  #pick(held: PluginCredentialMap, guardrails: readonly Guardrail[]): PluginCredentialMap | undefined {
    let lists = this.#picked.get(held);
    if (!lists) {
      lists = new WeakMap();
      this.#picked.set(held, lists);
    }
    let found = lists.get(guardrails);
    if (found === undefined) {
      found = picked(held, guardrails) ?? null;
      lists.set(guardrails, found);
    }
    return found ?? undefined;
  }
}
