/**
 * JSON-RPC 2.0 as MCP carries it: reading a client's body into messages with errors that say what
 * is wrong, the kinds of message, error answers, and the protocol revisions the gateway speaks.
 * A body that is not a message is a JSON-RPC error with a 4xx status, never a 500.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { GATEWAY_ERRORS } from "../error-codes.js";
import type { McpRpcError } from "./intercept.js";

/** The revisions served with `initialize` and `Mcp-Session-Id` sessions, newest first: those the official TypeScript SDK offers. */
export const SESSION_VERSIONS: readonly string[] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"];

/** The revisions without protocol-level sessions: each request stands alone. */
export const STATELESS_VERSIONS: readonly string[] = ["2026-07-28"];

/** The newest revision with sessions: what the gateway itself offers an upstream server. */
export const UPSTREAM_VERSION = "2025-11-25";

/** JSON-RPC error codes (the spec's, and MCP's use of the server range). */
export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** MCP's transport-level errors (unsupported version, session required…). */
  transport: -32000,
  /** MCP's "session not found". */
  sessionNotFound: -32001,
  /** The upstream server could not be reached or failed. */
  upstream: -32002,
} as const;

type Id = string | number;

/** A request: a method and an id. */
export interface RpcRequest {
  jsonrpc: "2.0";
  id: Id;
  method: string;
  params?: Record<string, unknown>;
}

/** A notification: a method and no id. */
export interface RpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: Record<string, unknown>;
}

/** A response: an id and a result or an error. */
export interface RpcResponse {
  jsonrpc: "2.0";
  id: Id | null;
  result?: Record<string, unknown>;
  error?: McpRpcError;
}

/** Any one message. */
export type RpcMessage = RpcRequest | RpcNotification | RpcResponse;

/** A request the gateway refuses: the JSON-RPC error it answers with, and its gateway code, whose line gives the status. */
export class McpMessageError extends Error {
  readonly status: number;

  constructor(
    readonly rpcCode: number,
    message: string,
    readonly gatewayCode: string = "mcp_invalid_message",
    /** Only for codes of another table (a fastify refusal described by errors.ts). */
    status?: number,
    /** More for `error.data` besides the code (`supportedVersions`). */
    readonly data: Record<string, unknown> = {},
  ) {
    super(message);
    this.status = status ?? (GATEWAY_ERRORS as Record<string, { status: number }>)[gatewayCode]?.status ?? 400;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is Id {
  return (typeof value === "string" && value.length <= 256) || (typeof value === "number" && Number.isSafeInteger(value));
}

/** Checks one parsed value is a JSON-RPC 2.0 message; `where` names it in a batch. */
export function readMessage(value: unknown, where = "the body"): RpcMessage {
  const refuse = (why: string) => new McpMessageError(RPC.invalidRequest, `${where}: ${why}`);
  if (!isObject(value)) throw refuse("a JSON-RPC message is a JSON object");
  if (value.jsonrpc !== "2.0") throw refuse('"jsonrpc" must be "2.0"');
  if ("params" in value && value.params !== undefined && !isObject(value.params)) {
    throw refuse('"params" must be an object (MCP takes no positional params)');
  }
  if ("method" in value) {
    if (typeof value.method !== "string" || value.method === "") throw refuse('"method" must be a non-empty string');
    if (!("id" in value)) return value as unknown as RpcNotification;
    if (!isId(value.id)) throw refuse('"id" must be a string (up to 256 characters) or an integer');
    return value as unknown as RpcRequest;
  }
  if (!("id" in value) || (value.id !== null && !isId(value.id)))
    throw refuse('a message without "method" is a response and needs an "id"');
  const hasResult = "result" in value;
  const hasError = "error" in value;
  if (hasResult === hasError) throw refuse('a response holds exactly one of "result" and "error"');
  if (hasResult && !isObject(value.result)) throw refuse('"result" must be an object');
  if (hasError && !(isObject(value.error) && typeof value.error.code === "number" && typeof value.error.message === "string")) {
    throw refuse('"error" must be an object with a numeric "code" and a string "message"');
  }
  return value as unknown as RpcResponse;
}

/** Parses a client's body text: one message, or (before 2025-06-18) a batch of them. */
export function parseBody(text: string): { messages: RpcMessage[]; batch: boolean } {
  if (text.trim() === "") throw new McpMessageError(RPC.parseError, "the body is empty; send a JSON-RPC message");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new McpMessageError(RPC.parseError, `the body is not valid JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(value)) return { messages: [readMessage(value)], batch: false };
  if (value.length === 0) throw new McpMessageError(RPC.invalidRequest, "the batch is empty");
  if (value.length > 100) throw new McpMessageError(RPC.invalidRequest, `the batch holds ${value.length} messages; at most 100`);
  return { messages: value.map((item, index) => readMessage(item, `message ${index} of the batch`)), batch: true };
}

/** Whether a message is a request. */
export function isRequest(message: RpcMessage | JSONRPCMessage): message is RpcRequest {
  return "method" in message && "id" in message;
}

/** Whether a message is a notification. */
export function isNotification(message: RpcMessage | JSONRPCMessage): message is RpcNotification {
  return "method" in message && !("id" in message);
}

/** Whether a message is a response (result or error). */
export function isResponse(message: RpcMessage | JSONRPCMessage): message is RpcResponse {
  return !("method" in message);
}

/** An error answer to a request (or to a body that named none, `id` null). */
export function errorResponse(id: Id | null, error: McpRpcError): RpcResponse {
  return { jsonrpc: "2.0", id, error };
}

/** A result answer to a request. */
export function resultResponse(id: Id, result: Record<string, unknown>): RpcResponse {
  return { jsonrpc: "2.0", id, result };
}

/** The progress token a request asked its progress under, if any. */
export function progressTokenOf(params: Record<string, unknown> | undefined): string | number | undefined {
  const meta = params?._meta;
  if (!isObject(meta)) return undefined;
  const token = meta.progressToken;
  return typeof token === "string" || typeof token === "number" ? token : undefined;
}

/** The SDK's message type for a message this module read (the shapes agree; the SDK's is a zod union). */
export function asSdk(message: RpcMessage): JSONRPCMessage {
  return message as unknown as JSONRPCMessage;
}
