/**
 * What the guardrails and checks of one running phase share: the content as it stands, the
 * signals that cancel them, the chain their transforms pass through. Set up once per phase by
 * run-phase.ts and read by run-guardrail.ts and run-check.ts, so it lives apart from both.
 */
import type { EvaluatedText } from "../content.js";
import type { Redactor } from "../redact.js";
import type { CheckRegistry, RegisteredCheck } from "../registry.js";
import type { CheckConfig, RequestType } from "../types.js";
import type { CheckWatch, PhaseTask } from "./task.js";

/** The content a check sees; replaced (never mutated) by transforms. */
export interface Content {
  request: unknown;
  response: unknown;
  located: EvaluatedText;
}

/** An enabled check, its slot in the task (see CheckWatch), and the check it names, looked up once. */
export interface EnabledCheck {
  config: CheckConfig;
  slot: number;
  check: RegisteredCheck | undefined;
}

/** What the checks of one phase share while it runs. */
export interface PhaseRun {
  registry: CheckRegistry;
  /** The task as given. */
  task: PhaseTask;
  /** The task's request type reduced to its base type. */
  requestType: RequestType;
  /** The content as received: what asynchronous guardrails and non-transforming checks see. */
  original: Content;
  /** The caller's signal: asynchronous guardrails follow it. */
  signal: AbortSignal | undefined;
  /** What synchronous guardrails follow: the caller's signal, and with stopOnDeny a deny too. */
  syncSignal: AbortSignal | undefined;
  /** Aborted once a synchronous guardrail denies, with stopOnDeny. */
  denied: AbortController | undefined;
  /**
   * Transforms of synchronous guardrails are chained through this, in guardrail order: a promise in
   * the asynchronous loop (run-phase.ts), the content itself while a phase runs without awaiting
   * (run-phase-now.ts) until a check of the chain answers with a promise.
   */
  chain: Content | Promise<Content>;
  /** Redacts request-header secrets, and a check's own credentials, from its result. */
  redactorFor: (credentials: unknown) => Redactor;
  watch: CheckWatch | undefined;
}
