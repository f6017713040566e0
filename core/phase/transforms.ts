/**
 * How checks change what the next check reads: a transform's output becomes new content (never a
 * mutation of the old), and a guardrail that opts out of tool-call arguments reads a view without
 * them. Both rebuild the located text, which is where a phase's content work is.
 */
import { locateText, writeText } from "../content.js";
import type { CheckOutcome } from "../plugin-api.js";
import type { RequestType, Side } from "../types.js";
import type { Content, PhaseRun } from "./state.js";

/** Content views without tool-call arguments, per content: the guardrails that opted out share one. */
const toolFreeViews = new WeakMap<Content, Content>();

/** The content as a guardrail with `tool_arguments: false` reads it: the same bodies, the text without tool arguments. */
export function withoutToolArguments(run: PhaseRun, content: Content): Content {
  if (run.task.side !== "output") return content;
  let view = toolFreeViews.get(content);
  if (!view) {
    view = { ...content, located: locateText("output", run.requestType, content.response, { toolArguments: false }) };
    toolFreeViews.set(content, view);
  }
  return view;
}

/** Content views without tool results, per content: the input guardrails that opted out share one. */
const resultFreeViews = new WeakMap<Content, Content>();

/** The content as a guardrail with `tool_results: false` reads it: the same bodies, the text without tool results. */
export function withoutToolResults(run: PhaseRun, content: Content): Content {
  if (run.task.side !== "input") return content;
  let view = resultFreeViews.get(content);
  if (!view) {
    view = { ...content, located: locateText("input", run.requestType, content.request, { toolResults: false }) };
    resultFreeViews.set(content, view);
  }
  return view;
}

/** Applies a check's transform to the content of its side; returns undefined when nothing changed. */
export function applyTransform(
  side: Side,
  requestType: RequestType,
  content: Content,
  outcome: CheckOutcome,
): Content | undefined {
  const input = side === "input";
  let body = input ? content.request : content.response;
  const replaced = input ? outcome.transformedRequest : outcome.transformedResponse;
  if (replaced !== undefined) body = replaced;
  if (outcome.transformedText !== undefined) {
    const located = replaced !== undefined ? locateText(side, requestType, body) : content.located;
    body = writeText(body, located, outcome.transformedText);
  }
  if (body === (input ? content.request : content.response)) return undefined;
  return {
    request: input ? body : content.request,
    response: input ? content.response : body,
    located: locateText(side, requestType, body),
  };
}
