/**
 * What the gateway asks of the management plane on the request path: may this caller use these
 * guardrails (its subscription plan, a feature flag), and may it call this provider and model now
 * (the admit stage: allow-list, rate limits, budgets)? Without a policy (a gateway run from a file) everything is allowed. The pipeline
 * calls it, and policies/ (which the pipeline calls in turn) reads it, so it sits below them; the
 * routing resolver asks it through an interface of its own (`GuardrailGate`), so the two share a rung.
 */
import type { Guardrail, RequestType } from "../core/index.js";
import type { LogUsage, SettledFields } from "./logs/record.js";
import type { ResolvedProvider } from "./providers/provider.js";
import type { ApiKeyIdentity, Scope } from "./sources/types.js";

/** An admitted target: settled once the answer's usage is known. */
export interface Admission {
  /** Counts usage and cost; resolves to the fields the request log adds (usage, cost, provider ids). */
  settle(usage: LogUsage | undefined): Promise<SettledFields>;
}

/** What one target's admission is about. */
export interface AdmissionRequest {
  identity: ApiKeyIdentity;
  provider: ResolvedProvider;
  /** The model sent upstream (after `@slug/` resolution and override_params). */
  model: string | undefined;
  requestType: RequestType;
}

/** The request path's rules. Refusals are GatewayErrors (403, 429 with retry-after, 402). */
export interface RequestGate {
  /** Refuses guardrails the caller's organization may not use; `where` names their origin. */
  allowGuardrails(guardrails: readonly Guardrail[], scope: Scope, where: string): Promise<void>;
  /** Admits one target of a request, or refuses it. */
  admit(request: AdmissionRequest): Promise<Admission | undefined>;
  /** Admits a call that names no provider (an MCP tool call) as a request of the key, or refuses it. */
  admitCall?(identity: ApiKeyIdentity): Promise<void>;
}
