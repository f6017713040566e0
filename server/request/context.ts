/**
 * What the pipeline knows of one inference request while it walks the request's targets. Intake
 * (`server/intake/inference.ts`) builds it, whole, before the gateway takes the request over; it
 * sits here, below intake, because every stage after intake reads it.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { Evaluation, GuardrailResult } from "../../core/index.js";
import type { AttemptRecord } from "../logs/record.js";
import type { Plan } from "../plan/build.js";
import type { CallerCredentials, HeaderProviderSettings } from "../providers/resolve.js";
import type { ApiKeyIdentity } from "../sources/types.js";
import type { Endpoint } from "../formats/endpoints.js";

/** Everything known about a request before its targets are tried. */
export interface RequestContext {
  /** The HTTP request's own id: the access line, the answer's header and the log record share it. */
  id: string;
  /** When intake began, from `performance.now()`. */
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
