/**
 * The one place tool traffic enters the guardrail phases. A side's texts travel to the engine as
 * the text parts of a chat message (input side) or of an answer (output side), one part per text,
 * so every check, policy, monitor mode and action of model traffic applies unchanged, and a
 * redaction comes back part by part to be written in place.
 */
import type { Evaluation, Guardrail, GuardrailResult } from "../../core/index.js";
import type { Phases } from "../request/phases.js";

/** Who is acting and what checks may know besides the texts. */
export interface ToolPhaseContext {
  workspaceId: string;
  metadata: Record<string, string>;
  /** Request headers with credentials removed. */
  headers: Record<string, string>;
}

/** What one side's synchronous guardrails decided. */
export interface ToolSideOutcome {
  /** Undefined when the side had no synchronous guardrails. */
  evaluation?: Evaluation;
  /** The texts after any redaction, index for index. */
  texts: string[];
  /** The synchronous guardrail that denied, when one did. */
  deniedBy?: GuardrailResult;
}

/** The carrier of tool input: one user message whose text parts are the texts. */
export function inputCarrier(texts: readonly string[]): {
  messages: Array<{ role: "user"; content: Array<{ type: "text"; text: string }> }>;
} {
  return { messages: [{ role: "user", content: texts.map((text) => ({ type: "text" as const, text })) }] };
}

/** The carrier of tool output: one answer whose text parts are the texts. */
export function outputCarrier(texts: readonly string[]) {
  return {
    object: "chat.completion",
    choices: [
      { index: 0, finish_reason: "stop", message: { role: "assistant", content: texts.map((text) => ({ type: "text", text })) } },
    ],
  };
}

function partsOf(content: unknown, fallback: readonly string[]): string[] {
  if (!Array.isArray(content) || content.length !== fallback.length) return [...fallback];
  return content.map((part, index) =>
    typeof part === "object" && part !== null && typeof (part as { text?: unknown }).text === "string"
      ? (part as { text: string }).text
      : fallback[index]!,
  );
}

/** The texts an evaluation hands back, read from its (maybe transformed) carrier. */
function textsAfter(side: "input" | "output", evaluation: Evaluation, texts: readonly string[]): string[] {
  if (!evaluation.transformed) return [...texts];
  if (side === "input") {
    const messages = (evaluation.request as { messages?: Array<{ content?: unknown }> } | undefined)?.messages;
    return partsOf(messages?.[0]?.content, texts);
  }
  const choices = (evaluation.response as { choices?: Array<{ message?: { content?: unknown } }> } | undefined)?.choices;
  return partsOf(choices?.[0]?.message?.content, texts);
}

/** The first synchronous guardrail whose failure denies (what a 446 names). */
export function denyingResult(evaluation: Evaluation): GuardrailResult | undefined {
  if (evaluation.status !== 446) return undefined;
  return evaluation.results.find((result) => !result.verdict && result.deny) ?? evaluation.results.find((r) => !r.verdict);
}

/** Runs one tool side through the phases: synchronous guardrails awaited, asynchronous ones started. */
export async function runToolSide(
  phases: Phases,
  side: "input" | "output",
  guardrails: readonly Guardrail[],
  texts: readonly string[],
  context: ToolPhaseContext,
  /** For the output side: the input texts the tool was called with, as the request checks may read. */
  inputTexts: readonly string[] = [],
): Promise<{ outcome: ToolSideOutcome; async: Promise<GuardrailResult[]> }> {
  const sync = guardrails.filter((g) => !g.async);
  const later = guardrails.filter((g) => g.async);
  const request = inputCarrier(side === "input" ? texts : inputTexts);
  const response = side === "output" ? outputCarrier(texts) : undefined;
  const phaseContext = { requestType: "chatComplete" as const, ...context };
  const asyncResults = phases.async(side, later, request, response, phaseContext);
  const evaluation = await phases.sync(side, sync, request, response, phaseContext);
  if (!evaluation) return { outcome: { texts: [...texts] }, async: asyncResults };
  const deniedBy = denyingResult(evaluation);
  return {
    outcome: { evaluation, texts: textsAfter(side, evaluation, texts), ...(deniedBy && { deniedBy }) },
    async: asyncResults,
  };
}
