/**
 * Label values for guardrails and checks. A label value makes a series of its own in every metric
 * that carries it, so only values the gateway's operators chose may become one: the ids of saved
 * guardrails (records, saved configs, policies) and of checks the registry holds. Ids a caller
 * writes in its own request are folded into one value, or any API key could grow `/metrics`
 * without limit.
 */
import type { GuardrailResult } from "../../core/index.js";
import type { RequestLogRecord } from "../logs/record.js";

/** The label of every guardrail written out in a caller's request. */
export const INLINE_LABEL = "inline";

/** The label of a check id the registry does not hold. */
export const UNKNOWN_CHECK_LABEL = "unknown";

/** The guardrail label of a result: its id when saved, else `inline`. */
export function guardrailLabel(result: GuardrailResult, record: RequestLogRecord): string {
  // A policy's guardrails are saved with the policy, whatever their form; a client cannot shadow them.
  if ((result as { policy?: unknown }).policy !== undefined) return result.id;
  return record.inline_guardrails?.includes(result.id) ? INLINE_LABEL : result.id;
}

/** The check label of a check id: the id when the registry holds it. */
export function checkLabel(id: string, isCheck: ((id: string) => boolean) | undefined): string {
  return !isCheck || isCheck(id) ? id : UNKNOWN_CHECK_LABEL;
}

/** The label of a tool its MCP server has not listed (or of a call that names none). */
export const UNLISTED_TOOL_LABEL = "unlisted";

/** The tool label of a tool call: the tool's name when its server listed it. */
export function toolLabel(
  server: string,
  tool: string | undefined,
  isTool: ((server: string, tool: string) => boolean) | undefined,
): string {
  return tool !== undefined && isTool?.(server, tool) ? tool : UNLISTED_TOOL_LABEL;
}
