/** What the pipeline knows of one inference request while it walks the request's targets. */
import type { IncomingHttpHeaders } from "node:http";
import type { Evaluation, GuardrailResult } from "../../core/index.js";
import type { AttemptRecord } from "../logs/record.js";
import type { Plan } from "../plan/build.js";
import type { CallerCredentials, HeaderProviderSettings } from "../providers/resolve.js";
import type { ApiKeyIdentity } from "../sources/types.js";
import type { Endpoint } from "../formats/endpoints.js";

/** Everything known about a request before its targets are tried. */
export interface RequestContext {
  id: string;
  started: number;
  endpoint: Endpoint;
  identity: ApiKeyIdentity;
  body: Record<string, unknown>;
  stream: boolean;
  strict: boolean;
  metadata: Record<string, string>;
  headers: IncomingHttpHeaders;
  headerProvider: HeaderProviderSettings;
  caller: CallerCredentials;
  plan: Plan;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  attempts: AttemptRecord[];
  /** Input evaluations by list and target, so fallback targets sharing a list evaluate it once. */
  inputs: Map<string, Promise<Evaluation | undefined>>;
  /** Asynchronous input guardrails started, by list. */
  asyncInputs: Map<string, Promise<GuardrailResult[]>>;
}

/** What a route knows of a request before `Gateway.handle` takes it over; `id` is the HTTP request's own. */
export type RequestFields = Omit<RequestContext, "started" | "attempts" | "inputs" | "asyncInputs">;
