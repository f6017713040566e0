/**
 * One guardrail's run within a phase: in which order its checks run and which content each sees.
 * The ordering rules (async guardrails on the content as received, `sequential`, transforming
 * checks chained after the guardrails before) are the subtle part of a phase, so they stand alone.
 */
import type { CheckResult, Guardrail, GuardrailResult } from "../types.js";
import { elapsed, isoNow } from "./clock.js";
import { guardrailResult } from "./results.js";
import { runCheck } from "./run-check.js";
import type { EnabledCheck, PhaseRun } from "./state.js";

/**
 * Runs the checks of one guardrail: asynchronous ones on the content as received; synchronous
 * ones after the transforms of the guardrails before them, either one after another
 * (`sequential`) or with the transforming checks in order and the others concurrently.
 */
export async function runGuardrail(run: PhaseRun, guardrail: Guardrail, base: number): Promise<GuardrailResult> {
  const created_at = isoNow();
  const started = performance.now();
  const enabled: EnabledCheck[] = [];
  guardrail.checks.forEach((config, i) => {
    if (config.enabled) enabled.push({ config, slot: base + i, check: run.registry.get(config.id) });
  });
  const results: CheckResult[] = new Array(enabled.length);
  let changed = false;
  const transforming = (c: EnabledCheck) => c.check?.definition.transforms === true;
  const own = guardrail.async ? run.signal : run.syncSignal;

  if (guardrail.async) {
    // Sees the content as received; whatever it would transform stays unapplied.
    await Promise.all(
      enabled.map(async (config, i) => {
        results[i] = (await runCheck(run, guardrail, config, run.original, own)).result;
      }),
    );
  } else if (guardrail.sequential) {
    const previous = run.chain;
    const done = (async () => {
      let content = await previous;
      for (const [i, config] of enabled.entries()) {
        const { result, next } = await runCheck(run, guardrail, config, content, own);
        results[i] = result;
        if (next) {
          content = next;
          changed = true;
        }
        if (own?.aborted) break;
      }
      return content;
    })();
    run.chain = done;
    await done;
  } else if (!enabled.some(transforming)) {
    // Nothing here transforms: the content passes on to the next guardrail as it came, with no
    // link of this guardrail's own in the chain, and every check reads the content as received.
    await Promise.all(
      enabled.map((config, i) =>
        runCheck(run, guardrail, config, run.original, own).then(({ result }) => {
          results[i] = result;
        }),
      ),
    );
  } else {
    const previous = run.chain;
    const transformsDone = (async () => {
      let content = await previous;
      for (const [i, config] of enabled.entries()) {
        if (!transforming(config)) continue;
        const { result, next } = await runCheck(run, guardrail, config, content, own);
        results[i] = result;
        if (next) {
          content = next;
          changed = true;
        }
      }
      return content;
    })();
    run.chain = transformsDone;
    await Promise.all([
      transformsDone,
      ...enabled.map(async (config, i) => {
        if (!transforming(config)) results[i] = (await runCheck(run, guardrail, config, run.original, own)).result;
      }),
    ]);
  }

  const result = guardrailResult(guardrail, results.filter(Boolean), changed, elapsed(started), created_at);
  const { denied } = run;
  if (denied && !guardrail.async && result.deny && !denied.signal.aborted) {
    denied.abort(`guardrail ${guardrail.id} already denied the ${run.task.side === "input" ? "request" : "response"}`);
  }
  return result;
}
