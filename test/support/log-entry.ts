/**
 * A request-log entry as the store writes it, for tests of the log's storage: one input guardrail
 * `g1` whose checks pass or fail as `verdicts` says.
 */
import type { LogEntry } from "../../server/store/log-types.js";

export function logEntry(
  id: string,
  createdAt: string,
  overrides: Partial<LogEntry> = {},
  verdicts: boolean[] = [true],
): LogEntry {
  return {
    id,
    created_at: createdAt,
    organization_id: "org1",
    workspace_id: "ws1",
    api_key_id: "key1",
    route: "/v1/chat/completions",
    request_type: "chatComplete",
    status: 200,
    latency_ms: 10,
    upstream_latency_ms: 8,
    provider: "mock",
    provider_id: "prv1",
    integration_id: "int1",
    model: "m1",
    config_id: null,
    cache_status: null,
    retry_count: 0,
    target: "",
    input_tokens: 10,
    output_tokens: 5,
    cost: 0.5,
    error_code: null,
    record: {
      hook_results: {
        before_request_hooks: [
          {
            id: "g1",
            verdict: verdicts.every(Boolean),
            async: false,
            deny: false,
            transformed: false,
            execution_time: 2,
            created_at: createdAt,
            type: "guardrail",
            feedback: null,
            checks: verdicts.map((v, i) => ({
              id: i === 0 ? "default.wordCount" : "default.regexMatch",
              verdict: v,
              execution_time: 1 + i,
              data: {},
              transformed: false,
              created_at: createdAt,
              log: null,
              fail_on_error: false,
            })),
          },
        ],
        after_request_hooks: [],
      },
    },
    ...overrides,
  };
}
