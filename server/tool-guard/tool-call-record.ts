/**
 * Each guarded MCP call (`tools/call`, `resources/read`, `prompts/get`) as a request-log record,
 * written through the gateway's log sink like model traffic: the server, tool, method and session,
 * both sides' verdicts (the asynchronous and monitor ones once they settle), the status (200; 446
 * when a guardrail denied; 403 when a control or pin refused), the latency, and the arguments and
 * result under the body-retention rule. Credentials are never in it: the proxy holds them, and the
 * sink redacts what looks like one.
 */
import { DEFAULT_LOG_BODY_MAX_BYTES } from "../logs/body-cap.js";
import { requestId } from "../logs/log-id.js";
import { buildRecord, type RequestLogRecord } from "../logs/record.js";
import type { RequestLogSink } from "../logs/sink.js";
import type { GuardedCall, ToolCallVerdicts } from "./tool-call.js";

/** The methods whose calls are recorded. */
export const RECORDED_METHODS: ReadonlySet<string> = new Set(["tools/call", "resources/read", "prompts/get"]);

/** How a call ended, as the proxy tells it (server/mcp/intercept.ts `McpCallOutcome`). */
export type EndedCall =
  | { kind: "result"; result: Record<string, unknown> }
  | { kind: "error"; error: { code: number; message: string } }
  | { kind: "cancelled" };

/** Where and how tool-call records are written. */
export interface ToolCallLog {
  sink: RequestLogSink;
  /** Whether a workspace keeps bodies (arguments and results). */
  logBodies: boolean | ((workspaceId: string) => Promise<boolean>);
  bodyMaxBytes?: number;
  /** `settings.log_durable`: the record is committed before the call's answer leaves. */
  durable?: boolean;
}

/** What the record says of the MCP call beside the log's common fields. */
export interface McpRecordFields {
  mcp: {
    server: string;
    method: string;
    tool?: string;
    session_id?: string;
    /** Where the gateway refused the call or withheld its result, when it did. */
    refused?: RefusedAt;
  };
}

/** Where a call was refused: a guardrail of a side, the tool controls, or a tool's pin. */
export type RefusedAt = "input" | "output" | "tool_controls" | "tool_pin" | "limit";

/** Where the verdicts say the call was refused, if it was. */
function refusedAt(verdicts: ToolCallVerdicts | undefined): RefusedAt | undefined {
  if (verdicts?.limited) return "limit";
  const by = verdicts?.refusedBy;
  if (by === undefined) return undefined;
  if (by === "tool_controls" || by === "tool_pin") return by;
  return verdicts!.output.some((result) => result.id === by && !result.verdict) ? "output" : "input";
}

/** Builds and writes the record of one ended call; never rejects (a failure is reported to `onError`). */
export async function writeToolCallRecord(
  log: ToolCallLog,
  call: GuardedCall,
  verdicts: ToolCallVerdicts | undefined,
  started: number,
  ended: EndedCall,
  onError: (error: unknown) => void,
): Promise<void> {
  try {
    const later = await Promise.all((verdicts?.later ?? []).map(async ({ side, results }) => ({ side, results: await results })));
    const laterOf = (side: "input" | "output") => later.filter((l) => l.side === side).flatMap((l) => l.results);
    const refused = verdicts?.refusedBy;
    const limited = verdicts?.limited;
    const status =
      limited?.status ?? (refused === undefined ? 200 : refused === "tool_controls" || refused === "tool_pin" ? 403 : 446);
    const keep = typeof log.logBodies === "function" ? await log.logBodies(call.identity.workspaceId) : log.logBodies;
    const tool = typeof call.params?.name === "string" ? call.params.name : undefined;
    const record = buildRecord({
      id: call.requestId || requestId(),
      started,
      origin: {
        workspaceId: call.identity.workspaceId,
        apiKeyId: call.identity.id,
        route: `/v1/mcp/${call.server.name}`,
        requestType: `mcp:${call.method}`,
        stream: false,
        inlineGuardrails: [],
      },
      status,
      hookResults: { before_request_hooks: verdicts?.input ?? [], after_request_hooks: verdicts?.output ?? [] },
      asyncResults: { before_request_hooks: laterOf("input"), after_request_hooks: laterOf("output") },
      provider: `mcp:${call.server.name}`,
      ...(tool !== undefined && { model: tool }),
      ...(limited
        ? { error: { code: limited.code, message: limited.message } }
        : ended.kind === "error" && { error: { code: "mcp_error", message: ended.error.message } }),
      ...(ended.kind === "cancelled" && { clientClosed: true }),
      ...(keep && {
        bodies: {
          request: { ...call.params, ...(verdicts?.forwarded && { arguments: verdicts.forwarded }) },
          response: ended.kind === "result" ? ended.result : null,
          maxBytes: log.bodyMaxBytes ?? DEFAULT_LOG_BODY_MAX_BYTES,
        },
      }),
    }) as RequestLogRecord & McpRecordFields;
    record.mcp = {
      server: call.server.name,
      method: call.method,
      ...(tool !== undefined && { tool }),
      ...(call.sessionId !== undefined && { session_id: call.sessionId }),
      ...(refusedAt(verdicts) !== undefined && { refused: refusedAt(verdicts) }),
    };
    await log.sink.write(record, log.durable ? { committed: true } : undefined);
  } catch (error) {
    onError(error);
  }
}
