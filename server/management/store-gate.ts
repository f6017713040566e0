/**
 * The management plane's rules on the request path (the gateway's RequestGate): guardrails gated
 * by the organization's plan and flag, models checked against the provider's allow-list, and rate
 * limits and budgets of the workspace, the provisioned integration and the provider. Everything it
 * reads comes from the cached gateway sources, so a request costs no store query in the steady
 * state; counters live behind the Counters interface.
 */
import type { Guardrail } from "../../core/index.js";
import { GatewayError } from "../errors.js";
import { type LimitEnforcer, LimitError, type LimitScope } from "../limits/enforcer.js";
import { priceOf } from "../limits/prices.js";
import type { LogUsage } from "../logs/record.js";
import type { Admission, AdmissionRequest, RequestGate } from "../request-gate.js";
import type { ApiKeyIdentity, Scope } from "../sources/types.js";
import { type GatewayStatusCode, gatewayCode } from "../error-codes.js";
import { ManagementError } from "../store/errors.js";
import type { ModelPrice } from "../store/types.js";
import type { ManagementContext } from "./context.js";
import type { GatewayProvider, GatewaySources } from "./gateway-sources.js";
import { modelAllowed } from "./limit-rules.js";
import { assertGuardrailsAllowed } from "./plans.js";

/** A refusal on the request path, with the headers to answer it with (retry-after). */
export class GateRefusal extends GatewayError {
  readonly headers: Record<string, string>;
  constructor(code: GatewayStatusCode, message: string, headers: Record<string, string> = {}) {
    super(code, message);
    this.headers = headers;
  }
}

/** Options of the store policy. */
export interface StoreGateOptions {
  sources: GatewaySources;
  enforcer: LimitEnforcer;
  /** For the check registry (plan gating) and the price table. */
  context: ManagementContext;
}

/** The request path's rules over the store. */
export class StoreGate implements RequestGate {
  readonly #sources: GatewaySources;
  readonly #enforcer: LimitEnforcer;
  readonly #context: ManagementContext;

  constructor(options: StoreGateOptions) {
    this.#sources = options.sources;
    this.#enforcer = options.enforcer;
    this.#context = options.context;
  }

  async allowGuardrails(guardrails: readonly Guardrail[], scope: Scope, where: string): Promise<void> {
    if (guardrails.length === 0 || scope.workspaceId === undefined) return;
    const context = await this.#sources.workspace(scope.workspaceId);
    if (!context) return;
    try {
      assertGuardrailsAllowed(context.organization, guardrails, this.#context.registry, where);
    } catch (error) {
      // Plan refusals keep their code on the request path (plan_forbids_check, guardrails_disabled).
      const code = error instanceof ManagementError ? gatewayCode(error.code) : undefined;
      if (code) throw new GateRefusal(code, (error as ManagementError).message);
      throw error;
    }
  }

  /** A call to no provider counts against the key's workspace limits (a tool call costs no tokens). */
  async admitCall(identity: ApiKeyIdentity): Promise<void> {
    const context = await this.#sources.workspace(identity.workspaceId);
    const scopes = context?.limits ?? [];
    if (scopes.length === 0) return;
    try {
      await this.#enforcer.admit(scopes, undefined, undefined);
    } catch (error) {
      if (error instanceof LimitError) throw new GateRefusal(error.code, error.message, error.headers);
      throw error;
    }
  }

  async admit(request: AdmissionRequest): Promise<Admission | undefined> {
    const workspaceId = request.identity.workspaceId;
    const context = await this.#sources.workspace(workspaceId);
    const scopes: LimitScope[] = [...(context?.limits ?? [])];
    let record: GatewayProvider | undefined;
    let price: ModelPrice | undefined;
    const slug = request.provider.slug;
    if (slug !== undefined) {
      record = await this.#sources.providers.get(slug, { workspaceId });
      if (record) {
        const model = request.model;
        if (model !== undefined && !modelAllowed(record.allowedModels, model)) {
          const allowed = record.allowedModels === "all" ? "" : `; it allows ${record.allowedModels.join(", ") || "no model"}`;
          throw new GateRefusal("model_not_allowed", `model "${model}" is not allowed through provider "@${slug}"${allowed}`);
        }
        scopes.push(...record.limits);
        if (model !== undefined) price = priceOf(model, record.provider, record.pricing, this.#context.prices);
      }
    }
    if (scopes.length === 0 && !record) return undefined;
    let admission: Awaited<ReturnType<LimitEnforcer["admit"]>>;
    try {
      admission = await this.#enforcer.admit(scopes, request.model, price);
    } catch (error) {
      if (error instanceof LimitError) throw new GateRefusal(error.code, error.message, error.headers);
      throw error;
    }
    const ids = record ? { provider_id: record.providerId, integration_id: record.integrationId } : {};
    return {
      settle: async (usage: LogUsage | undefined) => {
        const cost = await this.#enforcer.settle(admission, usage);
        return { ...ids, ...(usage && { usage }), ...(cost !== null && { cost }) };
      },
    };
  }
}
