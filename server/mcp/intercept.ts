/**
 * The interception points of the MCP gateway: every request a client sends to an MCP server, and
 * every result the server sends back to it, passes through one `McpInterceptor` before it moves on.
 * The proxy (server/mcp/bridge.ts and the stateless path) calls it; the tool controls and the
 * guardrails on tool traffic implement it. What each hook may do:
 *
 * - `request` sees every client→server request (`tools/call`, `tools/list`, `resources/read`,
 *   `prompts/get`, `initialize`, …) before it is forwarded. It may forward it as it is, forward it
 *   with other `params` (a `tools/call`'s arguments redacted), answer it itself with a `result`
 *   the server never sees (a refused `tools/call` as `{ content, isError: true }`), or answer it
 *   with a JSON-RPC `error`. It must not change the method.
 * - `result` sees the server's result of every request it forwarded (`tools/list` to filter
 *   and pin definitions, `tools/call`, `resources/read`, `prompts/get` to check and redact) before
 *   it reaches the client. It may pass the result, replace it (a denied output as a result with
 *   `isError: true`), or turn it into a JSON-RPC `error`. A server's JSON-RPC error is not a result
 *   and does not pass here.
 * - `end` is told once when a call is over however it ended (answered, failed, cancelled by
 *   the client, the session closed), with how: a place to finish a record. It cannot change the
 *   answer, but an answer waits for the promise it returns (a record committed before the answer
 *   leaves, with durable logs).
 *
 * Hooks may be async; the proxy waits for them, so a slow hook holds that one request only. A hook
 * that throws fails the request closed: the client gets a JSON-RPC error naming no upstream detail,
 * and nothing is forwarded. Notifications (progress, cancellation, list changes) and `ping` pass
 * without a hook. `call.signal` aborts when the client cancels the request or goes away.
 */
import type { ApiKeyIdentity, McpServerRecord } from "../sources/types.js";

/** A JSON-RPC error as the client receives it. */
export interface McpRpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** One client request on its way through the gateway. */
export interface McpCall {
  /** The server record the request is for (its credentials are for the proxy, never to be shown). */
  server: McpServerRecord;
  /** The verified gateway key of the client. */
  identity: ApiKeyIdentity;
  /** The gateway's id of the client's session; absent for a stateless (2026-07-28) request. */
  sessionId?: string;
  /** The protocol revision the client speaks with the gateway. */
  protocolVersion: string;
  /** The request id of the HTTP request that carried the call (the `x-gateway-request-id` answered). */
  requestId: string;
  /** The JSON-RPC method, e.g. `tools/call`. */
  method: string;
  /** The params as the client sent them (as `request` left them, in `result`). */
  params: Record<string, unknown> | undefined;
  /** Aborts when the client cancels the request or goes away. */
  signal: AbortSignal;
}

/** What the `request` hook decided. */
export type McpRequestDecision =
  | { action: "forward"; params?: Record<string, unknown> | undefined }
  | { action: "answer"; result: Record<string, unknown> }
  | { action: "error"; error: McpRpcError };

/** What the `result` hook decided. */
export type McpResultDecision =
  { action: "pass" } | { action: "replace"; result: Record<string, unknown> } | { action: "error"; error: McpRpcError };

/** How a call ended, for `end`. */
export type McpCallOutcome =
  { kind: "result"; result: Record<string, unknown> } | { kind: "error"; error: McpRpcError } | { kind: "cancelled" };

/** The hooks the proxy calls; see the top of this file for what each may do. */
export interface McpInterceptor {
  request(call: McpCall): Promise<McpRequestDecision>;
  result(call: McpCall, result: Record<string, unknown>): Promise<McpResultDecision>;
  end?(call: McpCall, outcome: McpCallOutcome): void | Promise<void>;
}

/** The default: every request forwarded and every result passed as they are. */
export const passThrough: McpInterceptor = {
  async request() {
    return { action: "forward" };
  },
  async result() {
    return { action: "pass" };
  },
};
