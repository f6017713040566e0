/**
 * Runs one partner check through a real engine, as a guardrail of that single check would run
 * in the gateway: parameters validated, credentials from the integration map or the parameters,
 * results redacted. Tests read the check's result and the transformed body.
 */
import { type CheckResult, createEngine, type Engine, type RequestType, type Side } from "../../../index.js";
import { FAKE_SETTINGS } from "./fake.js";

/** One evaluation of a partner check. */
export interface PartnerRun {
  checkId: string;
  parameters?: Record<string, unknown>;
  text: string;
  side?: Side;
  requestType?: RequestType;
  /** A whole body of the evaluated side, instead of one built from `text`. */
  body?: unknown;
  /** Integration credentials per plugin id. */
  credentials?: Record<string, Record<string, unknown>>;
  /** The request body on the output side (the conversation a reply answers). */
  request?: unknown;
  /** Request metadata (`x-gateway-metadata`). */
  metadata?: Record<string, string>;
}

/** The check's result and the body of its side after any transform. */
export interface PartnerRunResult {
  result: CheckResult;
  body: unknown;
  transformed: boolean;
  /** The whole evaluation as JSON, to look for leaked secrets. */
  json: string;
}

let shared: Promise<Engine> | undefined;

/** The engine partner tests share: built-in plugins, loopback allowed (the fakes listen there). */
export function partnerEngine(): Promise<Engine> {
  shared ??= createEngine({ settings: FAKE_SETTINGS });
  return shared;
}

/** Evaluates one partner check on a text (the last user message, or the reply). */
export async function runPartner(run: PartnerRun): Promise<PartnerRunResult> {
  const engine = await partnerEngine();
  const side = run.side ?? "input";
  const requestType = run.requestType ?? "chatComplete";
  const userTurn = (content: string) => ({ model: "gpt-4o", messages: [{ role: "user", content }] });
  const request = side === "input" ? (run.body ?? userTurn(run.text)) : (run.request ?? userTurn("Tell me something."));
  const response =
    side === "output"
      ? (run.body ?? { choices: [{ index: 0, message: { role: "assistant", content: run.text }, finish_reason: "stop" }] })
      : undefined;
  const evaluation = await engine.evaluate({
    side,
    requestType,
    request,
    ...(response !== undefined && { response }),
    ...(run.credentials && { credentials: run.credentials }),
    ...(run.metadata && { metadata: run.metadata }),
    guardrails: [{ checks: [{ id: run.checkId, parameters: run.parameters ?? {} }] }],
  });
  const result = evaluation.results[0]?.checks[0];
  if (!result) throw new Error(`no result for ${run.checkId}`);
  return {
    result,
    body: side === "input" ? evaluation.request : evaluation.response,
    transformed: evaluation.transformed,
    json: JSON.stringify(evaluation),
  };
}
