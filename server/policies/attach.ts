/**
 * Policies on the request path: the guardrails of every policy whose scope holds a request, added to
 * each target of the routing its config made once the target's provider and model are resolved (a
 * scope is matched on what the target calls, never on the string the client wrote). They come
 * before the config's own on each side, and the target's stream hold is recomputed with them, so a
 * policy's output guardrail holds a stream whatever the client's config says; a config guardrail
 * with the id of a policy guardrail is dropped (it runs once, as the policy has it, and the client
 * cannot weaken or remove it). A monitor policy's guardrails run asynchronously: logged and
 * counted, never changing the answer. Each result a policy guardrail yields names its policy.
 *
 * The prepared set is cached per (workspace, key, resolved targets), and each target with it per (target, set);
 * `invalidate` drops both when the store's change feed says a policy, workspace or plugin changed.
 */
import { LRUCache } from "lru-cache";
import {
  type CheckRegistry,
  ConfigError,
  type Engine,
  type Guardrail,
  type GuardrailResult,
  type Side,
} from "../../core/index.js";
import { prepareGuardrail } from "../../core/internal.js";
import { GatewayError } from "../errors.js";
import type { RequestGate } from "../request-gate.js";
import type { GuardrailList, Routing, RoutingNode } from "../routing/build.js";
import { defaultStreamMode, streamHoldOf } from "../routing/stream-mode.js";
import type { PolicyRecord, PolicySource } from "../sources/types.js";
import { inScope, type ScopedRequest, scopeKey } from "./scope.js";

/** What a policy guardrail's result carries beside the spec's fields (extra fields keep §2.4 valid). */
export interface PolicyTag {
  id: string;
  name: string;
  mode: "enforce" | "monitor";
}

/** A prepared guardrail that a policy added. */
export type PolicyGuardrail = Guardrail & { policy: PolicyTag };

/** The prepared guardrails of the policies holding one request. */
export interface PolicySet {
  /** The policies' ids, joined: part of the key of every list the set changed. */
  key: string;
  input: PolicyGuardrail[];
  output: PolicyGuardrail[];
}

const EMPTY_SET: PolicySet = Object.freeze({ key: "", input: [], output: [] }) as PolicySet;

/** Whether a guardrail came from a policy. */
export function isPolicyGuardrail(guardrail: Guardrail): guardrail is PolicyGuardrail {
  return (guardrail as Partial<PolicyGuardrail>).policy !== undefined;
}

/**
 * Names the policy on each result a policy guardrail yielded, and marks monitor verdicts, in place.
 * Cheap when no guardrail came from a policy.
 */
export function tagPolicyResults(guardrails: readonly Guardrail[], results: GuardrailResult[]): void {
  let tags: Map<string, PolicyTag> | undefined;
  for (const guardrail of guardrails) {
    if (isPolicyGuardrail(guardrail)) (tags ??= new Map()).set(guardrail.id, guardrail.policy);
  }
  if (!tags) return;
  for (const result of results) {
    const tag = tags.get(result.id);
    if (tag) Object.assign(result, { policy: { id: tag.id, name: tag.name }, ...(tag.mode === "monitor" && { monitor: true }) });
  }
}

/** Cache options. */
export interface PolicyAttacherOptions {
  /** Sets kept; default 10 000. */
  max?: number;
  /** Lifetime of a set, ms; default 60 s (the change feed drops them sooner). */
  ttlMs?: number;
}

/** Adds policy guardrails to routings. */
export class PolicyAttacher {
  readonly #sets: LRUCache<string, Promise<PolicySet>>;
  #routings = new WeakMap<Routing, WeakMap<PolicySet, Routing>>();
  /** Per set: merged lists by the config's list, and applied nodes by the config's node. */
  #nodes = new WeakMap<PolicySet, { lists: WeakMap<GuardrailList, GuardrailList>; nodes: WeakMap<RoutingNode, RoutingNode> }>();

  constructor(
    private readonly engine: Engine,
    private readonly source: PolicySource,
    options: PolicyAttacherOptions = {},
    /** Plan gating, as for a config's guardrails: a plan that no longer includes a check refuses the request. */
    private readonly allowGuardrails?: RequestGate["allowGuardrails"],
  ) {
    this.#sets = new LRUCache({ max: options.max ?? 10_000, ttl: options.ttlMs ?? 60_000 });
  }

  /** The routing with the guardrails of every policy holding the request. */
  async attach(routing: Routing, request: ScopedRequest): Promise<Routing> {
    const set = await this.forRequest(request);
    return set.input.length || set.output.length ? this.apply(routing, set) : routing;
  }

  /** The prepared policy guardrails of a request, cached per (workspace, key, targets). */
  forRequest(request: ScopedRequest): Promise<PolicySet> {
    const key = `${request.workspaceId}\0${request.apiKeyId}\0${scopeKey(request)}`;
    const held = this.#sets.get(key);
    if (held) return held;
    const set = this.#load(request).catch((error: unknown) => {
      this.#sets.delete(key);
      throw error;
    });
    this.#sets.set(key, set);
    return set;
  }

  /** The policy guardrails of one side for a list of the caller's own, without the duplicates. */
  merge(side: Side, set: PolicySet, own: readonly Guardrail[]): Guardrail[] {
    const added = set[side];
    if (!added.length) return [...own];
    const ids = new Set(added.map((g) => g.id));
    return [...added, ...own.filter((g) => !ids.has(g.id))];
  }

  /** A routing with a set's guardrails in every node; the same routing and set give the same object. */
  apply(routing: Routing, set: PolicySet): Routing {
    let bySet = this.#routings.get(routing);
    const held = bySet?.get(set);
    if (held) return held;
    const node = (n: RoutingNode): RoutingNode => ({
      ...this.applyNode(n, set),
      ...(n.targets && { targets: n.targets.map(node) }),
    });
    const hasSync = [...set.input, ...set.output].some((g) => !g.async);
    const applied: Routing = { ...routing, root: node(routing.root), hasGuardrails: routing.hasGuardrails || hasSync };
    if (!bySet) {
      bySet = new WeakMap();
      this.#routings.set(routing, bySet);
    }
    bySet.set(set, applied);
    return applied;
  }

  /**
   * One routing node with a set's guardrails on both sides and its stream hold recomputed from the
   * merged output list, so a policy's deny or redaction holds the stream as the config's own
   * would; the same node and set give the same object, and lists shared by targets stay shared.
   */
  applyNode(n: RoutingNode, set: PolicySet): RoutingNode {
    if (!set.input.length && !set.output.length) return n;
    let nodes = this.#nodes.get(set);
    if (!nodes) {
      nodes = { lists: new WeakMap(), nodes: new WeakMap() };
      this.#nodes.set(set, nodes);
    }
    const held = nodes.nodes.get(n);
    if (held) return held;
    const lists = nodes.lists;
    const list = (side: Side, own: GuardrailList): GuardrailList => {
      let merged = lists.get(own);
      if (!merged) {
        const all = this.merge(side, set, [...own.sync, ...own.async]);
        merged = { key: `${own.key}+${set.key}`, sync: all.filter((g) => !g.async), async: all.filter((g) => g.async) };
        lists.set(own, merged);
      }
      return merged;
    };
    const output = list("output", n.output);
    const applied: RoutingNode = {
      ...n,
      input: list("input", n.input),
      output,
      stream: streamHoldOf(output.sync, n.settings, (id) => this.engine.registry.get(id)?.definition),
    };
    nodes.nodes.set(n, applied);
    return applied;
  }

  /** Drops every cached set and routing: call when a policy, workspace, organisation or plugin changes. */
  invalidate(): void {
    this.#sets.clear();
    this.#routings = new WeakMap();
    this.#nodes = new WeakMap();
  }

  async #load(request: ScopedRequest): Promise<PolicySet> {
    const holding = (await this.source.forWorkspace(request.workspaceId)).filter((policy) => inScope(policy.scope, request));
    if (!holding.length) return EMPTY_SET;
    const set: PolicySet = { key: holding.map((p) => p.id).join(","), input: [], output: [] };
    for (const policy of holding) {
      for (const side of ["input", "output"] as const) {
        const prepared = preparePolicyGuardrails(this.engine.registry, policy, side);
        await this.allowGuardrails?.(prepared, { workspaceId: request.workspaceId }, `policy "${policy.id}"`);
        for (const guardrail of prepared) {
          // Two policies adding the same guardrail: it runs once, as the first (oldest) has it.
          if (!set[side].some((g) => g.id === guardrail.id)) set[side].push(guardrail);
        }
      }
    }
    return set;
  }
}

/** A policy's guardrails of one side, prepared and tagged; a policy that no longer loads refuses the request. */
export function preparePolicyGuardrails(registry: CheckRegistry, policy: PolicyRecord, side: Side): PolicyGuardrail[] {
  const definitions = side === "input" ? policy.input_guardrails : policy.output_guardrails;
  const tag: PolicyTag = { id: policy.id, name: policy.name, mode: policy.mode };
  return definitions.map((definition, index) => {
    const path = `${side}_guardrails[${index}]`;
    let guardrail: Guardrail;
    try {
      guardrail = prepareGuardrail(definition, { side, inline: false, path, registry }).guardrail;
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      // Fail closed: a guardrail the organisation requires is never skipped.
      throw new GatewayError(
        "policy_unavailable",
        `policy "${policy.id}" cannot run: ${error.message}; an admin must fix the policy`,
        {
          cause: error,
        },
      );
    }
    // The stream mode is fixed here, so a client's config (`stream_mode: "after"`) cannot loosen how
    // a policy's deny or redaction holds a stream; only the policy's own stream_mode decides.
    const streamMode = guardrail.streamMode ?? defaultStreamMode(guardrail, (id) => registry.get(id)?.definition);
    return { ...guardrail, streamMode, ...(policy.mode === "monitor" && { async: true, monitor: true }), policy: tag };
  });
}
