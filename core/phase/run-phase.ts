/**
 * The phase loop: every check of every guardrail of one side of one request. This is what an
 * executor runs for the engine (core/engine.ts, the public front, resolves the guardrails and
 * settles the results; core/executor.ts and core/pool/ decide which thread runs the phase).
 *
 * Guardrails run concurrently; checks of a guardrail run concurrently, or in order when
 * `sequential` (run-guardrail.ts). Transforms compose instead of overwriting one another:
 * transforming checks apply in guardrail order, then check order, each seeing the text the
 * previous one produced. Asynchronous guardrails see the original content and their transforms
 * are never applied (they cannot change the request).
 *
 * The phase is plain data in and plain data out (task.ts), so the same function runs inline or in
 * a worker.
 */
import { baseRequestType, type EvaluatedText, locateText } from "../content.js";
import { collectSecrets, headerSecrets, NO_SECRETS, Redactor } from "../redact.js";
import type { CheckRegistry } from "../registry.js";
import { runGuardrail } from "./run-guardrail.js";
import type { Content, PhaseRun } from "./state.js";
import { type CheckWatch, checkSlots, type PhaseResult, type PhaseTask } from "./task.js";

/** Runs every guardrail of a phase; `watch` is how a pool worker reports progress to its pool. */
export async function runPhase(
  registry: CheckRegistry,
  task: PhaseTask,
  signal?: AbortSignal,
  watch?: CheckWatch,
): Promise<PhaseResult> {
  const run = startPhase(registry, task, signal, watch);
  const { original } = run;
  run.chain = Promise.resolve(original);
  const bases = checkSlots(task.guardrails);
  const results = await Promise.all(task.guardrails.map((guardrail, i) => runGuardrail(run, guardrail, bases[i] as number)));
  const final = await run.chain;
  return {
    results,
    request: final.request,
    response: final.response,
    transformed: final !== original,
  };
}

/** What the checks of a phase share (state.ts): the content as received, the redactors, the signals. */
export function startPhase(
  registry: CheckRegistry,
  task: PhaseTask,
  signal?: AbortSignal,
  watch?: CheckWatch,
  located?: EvaluatedText,
): PhaseRun {
  const requestType = baseRequestType(task.requestType) ?? task.requestType;
  const original: Content = {
    request: task.request,
    response: task.response,
    // Text located by the caller is used when it read the same request type (the engine hands on base types).
    located:
      located !== undefined && requestType === task.requestType
        ? located
        : locateText(task.side, requestType, task.side === "input" ? task.request : task.response),
  };

  // Secrets of the request headers are redacted from every result, with the check's own credentials.
  const requestSecrets = headerSecrets(task.headers);
  const phaseRedactor = requestSecrets === undefined || requestSecrets.size === 0 ? NO_SECRETS : new Redactor(requestSecrets);
  const redactorFor = (credentials: unknown) =>
    credentials === undefined ? phaseRedactor : new Redactor(collectSecrets(credentials, new Set(requestSecrets)));

  // With stopOnDeny, synchronous guardrails listen to their own signal, which a deny aborts too.
  let denied: AbortController | undefined;
  let syncSignal = signal;
  if (task.stopOnDeny) {
    const controller = new AbortController();
    denied = controller;
    syncSignal = controller.signal;
    if (signal?.aborted) controller.abort(signal.reason);
    else signal?.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
  }

  return {
    registry,
    task,
    requestType,
    original,
    signal,
    syncSignal,
    denied,
    chain: original,
    redactorFor,
    watch,
  };
}
