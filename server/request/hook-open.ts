/**
 * Intake of a hook call (`/v1/hooks/evaluate`, `/v1/hooks/webhook`): once a route has read its wire
 * format into a `HookCall`, both are made ready the same way: the request type, the guardrails of
 * the call's side (a list prepared and gated, or a config's routing), the guardrails of the policies
 * holding the caller and the targets the request would call (hook-targets.ts), the metadata and
 * the headers checks see.
 */
import type { IncomingHttpHeaders } from "node:http";
import {
  baseRequestType,
  type CheckRegistry,
  type ConfigWarning,
  type Guardrail,
  type GuardrailSource,
  type RequestType,
  type Side,
} from "../../core/index.js";
import { joinPath, prepareListElement } from "../../core/internal.js";
import { GatewayError } from "../errors.js";
import type { RequestGate } from "../request-gate.js";
import { checkHeaders } from "../gateway-headers.js";
import type { PhaseContext } from "./phases.js";
import type { RoutingResolver } from "../routing/resolver.js";
import type { PolicyAttacher } from "../policies/attach.js";
import type { CanonicalTarget } from "../providers/canonical-target.js";
import type { ProviderResolver } from "../providers/resolve.js";
import type { ApiKeyIdentity, Scope } from "../sources/types.js";
import { hookTargets } from "./hook-targets.js";
import { metadataOf } from "./open.js";

/** A hook call as its route read it off the wire. */
export interface HookCall {
  identity: ApiKeyIdentity;
  side: Side;
  /** The guardrails named (ids, `{id}` references, definitions); when absent, `config` names them. */
  guardrails?: readonly unknown[];
  /** A saved config's id, inline JSON text or a config object, whose routing gives the side's guardrails. */
  config?: string | Record<string, unknown>;
  /** The request type as named, undefined to infer it from `request`. */
  requestType: string | undefined;
  /** The field that named the request type, for its error. */
  requestTypeField: string;
  request: Record<string, unknown>;
  response: Record<string, unknown> | undefined;
  metadata: unknown;
  headers: IncomingHttpHeaders;
  provider?: string;
  /**
   * The peer gateway's webhook contract: the peer's own guardrail decides async and deny, so every
   * guardrail named counts toward the verdict; its metadata may hold values that are not strings
   * (dropped), and the headers of its call are the peer's, not the client's (none reach checks).
   */
  peer: boolean;
}

/** Where a call's guardrails came from, for its record. */
export interface HookOrigin {
  configId?: string;
  inline: readonly string[];
}

/** A hook call ready to evaluate. */
export interface HookContext {
  side: Side;
  requestType: RequestType;
  /** The side's guardrails: the policies' first, then the call's own. */
  guardrails: Guardrail[];
  request: Record<string, unknown>;
  response: Record<string, unknown> | undefined;
  phase: PhaseContext;
  warnings: ConfigWarning[];
  origin: HookOrigin;
}

/** What hook intake reads guardrails, configs and policies from. */
export interface HookIntakeDeps {
  /** The registry that inline guardrails' checks are looked up in. */
  registry: CheckRegistry;
  routing: RoutingResolver;
  guardrails: GuardrailSource;
  gate?: RequestGate;
  /** Adds the guardrails of the policies holding the caller. */
  policies?: PolicyAttacher;
  /** Finds the provider records the evaluated request names, so policies match what it calls. */
  providers?: ProviderResolver;
}

/** A request type as a hook call names it, or as its request's fields show when it names none. */
export function requestTypeOf(value: string | undefined, where: string, body: Record<string, unknown>): RequestType {
  if (value === undefined) {
    if ("prompt" in body) return "complete";
    if ("input" in body && !("messages" in body)) return "embed";
    return "chatComplete";
  }
  const type = baseRequestType(value);
  if (!type)
    throw new GatewayError(
      "invalid_request_type",
      `${where}: "${value}" is not one of chatComplete, complete, embed, messages, responses`,
    );
  return type;
}

/** Makes hook calls ready to evaluate. */
export class HookIntake {
  constructor(private readonly deps: HookIntakeDeps) {}

  /** The call's context; throws the refusal (a GatewayError or a ConfigError) of the first thing wrong. */
  async read(call: HookCall): Promise<HookContext> {
    const { side, identity, request } = call;
    const scope: Scope = { workspaceId: identity.workspaceId };
    const requestType = requestTypeOf(call.requestType, call.requestTypeField, request);
    const named = call.guardrails
      ? await this.#listed(call.guardrails, side, scope)
      : await this.#configured(call.config, side, scope);
    // The peer's own guardrail decides async and deny; a policy's monitor guardrails stay monitors.
    const own = call.peer ? named.guardrails.map((g): Guardrail => ({ ...g, async: false })) : named.guardrails;
    const phase: PhaseContext = {
      requestType,
      metadata: metadataOf(call.metadata, "metadata", !call.peer),
      headers: call.peer ? {} : checkHeaders(call.headers, false),
      ...(call.provider !== undefined && { provider: call.provider }),
      workspaceId: identity.workspaceId,
    };
    const targets = await hookTargets(this.deps.providers, {
      root: named.root,
      model: request.model,
      headers: call.peer ? undefined : call.headers,
      provider: call.provider,
      scope,
    });
    return {
      side,
      requestType,
      guardrails: await this.#withPolicies(side, identity, targets, own),
      request,
      response: call.response,
      phase,
      warnings: named.warnings,
      origin: named.origin,
    };
  }

  /** A list of guardrails named in the call, prepared and gated like a config's. */
  async #listed(list: readonly unknown[], side: Side, scope: Scope) {
    const { registry, guardrails: source, gate } = this.deps;
    const prepared = await Promise.all(
      list.map((element, index) => prepareListElement(element, side, joinPath("guardrails", index), { registry, source, scope })),
    );
    const listed = prepared.map((p) => p.guardrail);
    await gate?.allowGuardrails(listed, scope, "guardrails");
    const origin: HookOrigin = { inline: listed.filter((g) => g.inline).map((g) => g.id) };
    return { guardrails: listed, warnings: prepared.flatMap((p) => p.warnings), origin, root: undefined };
  }

  /** The guardrails of one side of a config's routing. */
  async #configured(config: string | Record<string, unknown> | undefined, side: Side, scope: Scope) {
    const routing = await this.deps.routing.resolve(config, scope, "config");
    const list = routing.root[side];
    const origin: HookOrigin = { ...(routing.configId && { configId: routing.configId }), inline: routing.inlineGuardrails };
    return { guardrails: [...list.sync, ...list.async], warnings: routing.warnings, origin, root: routing.root };
  }

  /** The policies holding the caller's key and any target the request would call, before the call's own. */
  async #withPolicies(side: Side, identity: ApiKeyIdentity, targets: CanonicalTarget[], own: Guardrail[]) {
    const policies = this.deps.policies;
    if (!policies) return own;
    const set = await policies.forRequest({ workspaceId: identity.workspaceId, apiKeyId: identity.id, targets });
    return policies.merge(side, set, own);
  }
}
