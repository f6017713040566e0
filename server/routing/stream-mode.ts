/**
 * How a target's streamed answers are held for its synchronous output guardrails
 * (docs/streaming.md): each guardrail's mode is its own `stream_mode`, else the config's, else the
 * gateway's default; the strictest mode among them holds the stream. Asynchronous guardrails
 * never hold text, so they are not counted.
 */
import {
  type CheckConfig,
  type Guardrail,
  STREAM_MODES,
  type StreamMode,
  type StreamScope,
  type StreamScopeRule,
} from "../../core/index.js";

/**
 * Characters per checked window when the config names none. Measured with `npm run
 * bench:gateway` (docs/performance.md, "Streams"): the checks of the standard output pack cost
 * well under a millisecond per window at this size, so smaller windows would buy little time to
 * first token and cost more checks per answer; larger ones hold more text back.
 */
export const DEFAULT_STREAM_WINDOW = 200;

/**
 * Characters held back at the end of the checked text after each window passed, so a match that
 * can still grow (a forbidden phrase, an e-mail address arriving piece by piece) is never released
 * in part: the longest `streamHoldChars` of the stream's checks, 64 for a check that names none
 * (words, phrases, phone and card numbers), never more than 256 (a check that needs longer
 * matches whole, such as a private-key block, belongs in `buffer` mode).
 */
export const STREAM_HOLD_CHARS = 64;
export const MAX_STREAM_HOLD_CHARS = 256;

/** What the hold needs to know of a check: whether it transforms, how long a match it must see whole, what it judges. */
export type CheckStreamFacts = (
  checkId: string,
) => { transforms?: boolean; streamHoldChars?: number; streamScope?: StreamScopeRule } | undefined;

/** How one target's streams are held. */
export interface StreamHold {
  mode: StreamMode;
  /** Characters per checked window (`window` mode). */
  window: number;
  /** Characters held back after a passing window that was not the last. */
  tail: number;
  /** Guardrails with a check that transforms the text (a redaction), by id. */
  redactors?: string[];
  /** Those of them that read tool-call arguments too (no `tool_arguments: false`). */
  toolRedactors?: string[];
}

/** A check's scope on a held stream; `window` unless its definition says otherwise. */
export function streamScopeOf(check: CheckConfig, checks: CheckStreamFacts): StreamScope {
  const scope = checks(check.id)?.streamScope ?? "window";
  if (typeof scope === "string") return scope;
  return Object.entries(scope.windowWhen).every(([name, value]) => check.parameters[name] === value) ? "window" : "whole";
}

/**
 * The guardrails as each window is checked: their enabled checks of `window` scope; those left
 * with none drop out. Checks of `whole` scope run once, with all the others, on the whole answer
 * when the stream ended, so a held stream costs time linear in its length.
 */
export function windowGuardrailsOf(sync: readonly Guardrail[], checks: CheckStreamFacts): Guardrail[] {
  const windowed: Guardrail[] = [];
  for (const guardrail of sync) {
    const own = guardrail.checks.filter((check) => check.enabled && streamScopeOf(check, checks) === "window");
    if (own.length === guardrail.checks.length) windowed.push(guardrail);
    else if (own.length) windowed.push({ ...guardrail, checks: own });
  }
  return windowed;
}

/** The mode a guardrail gets when neither it nor the config names one. */
export function defaultStreamMode(guardrail: Guardrail, checks: CheckStreamFacts): StreamMode {
  // A deny must be able to stop the text, and a redaction must reach the text before it leaves;
  // a deny that only the whole answer can decide (a count, a JSON document) must hold all of it.
  if (guardrail.deny) {
    return guardrail.checks.some((check) => check.enabled && streamScopeOf(check, checks) === "whole") ? "buffer" : "window";
  }
  if (guardrail.checks.some((check) => check.enabled && checks(check.id)?.transforms === true)) return "window";
  // Everything else only reports: holding a window would cost the time to receive it (measured).
  return "after";
}

/** The hold of a target whose synchronous output guardrails are `sync`. */
export function streamHoldOf(
  sync: readonly Guardrail[],
  settings: { streamMode?: StreamMode; streamWindow?: number },
  checks: CheckStreamFacts,
): StreamHold {
  let mode: StreamMode = "after";
  let tail = STREAM_HOLD_CHARS;
  const redactors: string[] = [];
  const toolRedactors: string[] = [];
  for (const guardrail of sync) {
    const own = guardrail.streamMode ?? settings.streamMode ?? defaultStreamMode(guardrail, checks);
    if (STREAM_MODES.indexOf(own) > STREAM_MODES.indexOf(mode)) mode = own;
    if (guardrail.checks.some((check) => check.enabled && checks(check.id)?.transforms === true)) {
      redactors.push(guardrail.id);
      if (guardrail.toolArguments !== false) toolRedactors.push(guardrail.id);
    }
    for (const check of guardrail.checks) {
      const needs = check.enabled ? checks(check.id)?.streamHoldChars : undefined;
      if (needs !== undefined) tail = Math.max(tail, Math.min(needs, MAX_STREAM_HOLD_CHARS));
    }
  }
  const hold: StreamHold = { mode, window: settings.streamWindow ?? DEFAULT_STREAM_WINDOW, tail };
  if (redactors.length) Object.assign(hold, { redactors, toolRedactors });
  return hold;
}
