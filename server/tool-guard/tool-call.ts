/**
 * One guarded MCP call as the tool guard sees it and what its sides decided: the nouns the guard
 * (tool-guard.ts) fills in and the call's record (tool-call-record.ts) reads, kept apart from both
 * so neither imports the other.
 */
import type { GuardrailResult } from "../../core/index.js";
import type { ApiKeyIdentity, McpServerRecord } from "../sources/types.js";

/** The part of the proxy's call the guard reads (server/mcp/intercept.ts `McpCall`). */
export interface GuardedCall {
  server: McpServerRecord;
  identity: ApiKeyIdentity;
  sessionId?: string;
  requestId: string;
  method: string;
  params: Record<string, unknown> | undefined;
}

/** What one call's sides decided, for its record. */
export interface ToolCallVerdicts {
  input: GuardrailResult[];
  output: GuardrailResult[];
  /** The asynchronous and monitor guardrails' results of each side, when they settle. */
  later: Array<{ side: "input" | "output"; results: Promise<GuardrailResult[]> }>;
  /** Set when the gateway refused the call or withheld its result: the guardrail, control or pin that did. */
  refusedBy?: string;
  /** The limit that refused the call (a rate limit of the key's workspace), with its code and status. */
  limited?: { code: string; status: number; message: string };
  /** The arguments as forwarded (redacted), when the call reached the server. */
  forwarded?: Record<string, unknown> | undefined;
}
