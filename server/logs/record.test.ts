import { describe, expect, it } from "vitest";
import type { GuardrailResult } from "../../core/index.js";
import { buildRecord, type RecordFacts, recordError } from "./record.js";

function result(id: string, verdict = true): GuardrailResult {
  return {
    id,
    verdict,
    async: false,
    deny: false,
    transformed: false,
    execution_time: 1,
    created_at: "2026-01-01T00:00:00.000Z",
    checks: [],
  } as unknown as GuardrailResult;
}

function facts(extra: Partial<RecordFacts> = {}): RecordFacts {
  return {
    id: "req-1",
    started: performance.now() - 12,
    ended: performance.now() - 2,
    origin: {
      workspaceId: "ws",
      apiKeyId: "key",
      route: "/v1/chat/completions",
      requestType: "chatComplete",
      stream: false,
      inlineGuardrails: [],
    },
    status: 200,
    hookResults: { before_request_hooks: [], after_request_hooks: [] },
    ...extra,
  };
}

describe("buildRecord", () => {
  it("records where the request came from, its status and its latency to `ended`", () => {
    const record = buildRecord(
      facts({
        origin: {
          workspaceId: "ws",
          apiKeyId: "key",
          route: "/v1/chat/completions",
          requestType: "chatComplete",
          stream: true,
          configId: "cfg",
          inlineGuardrails: ["inline-1"],
        },
        provider: "@openai",
        model: "gpt-x",
        cacheStatus: "MISS",
      }),
    );
    expect(record).toMatchObject({
      id: "req-1",
      workspace_id: "ws",
      api_key_id: "key",
      route: "/v1/chat/completions",
      request_type: "stream-chatComplete",
      stream: true,
      status: 200,
      config_id: "cfg",
      inline_guardrails: ["inline-1"],
      provider: "@openai",
      model: "gpt-x",
      cache_status: "MISS",
      attempts: [],
    });
    expect(record.latency_ms).toBeCloseTo(10, 0);
    expect(Date.parse(record.created_at)).toBeLessThanOrEqual(Date.now() - 11);
    // Fields with nothing to say are left out, not written empty.
    for (const key of ["error", "stream_stop", "provider_filters", "request", "body_notes", "usage"]) {
      expect(record).not.toHaveProperty(key);
    }
  });

  it("puts each side's asynchronous results after its synchronous ones, without touching the facts' lists", () => {
    const before = [result("in-sync")];
    const record = buildRecord(
      facts({
        hookResults: { before_request_hooks: before, after_request_hooks: [result("out-sync")] },
        asyncResults: { before_request_hooks: [result("in-async")], after_request_hooks: [result("out-async")] },
      }),
    );
    expect(record.hook_results.before_request_hooks.map((r) => r.id)).toEqual(["in-sync", "in-async"]);
    expect(record.hook_results.after_request_hooks.map((r) => r.id)).toEqual(["out-sync", "out-async"]);
    expect(before.map((r) => r.id)).toEqual(["in-sync"]);
  });

  it("completes a stream's record and its last attempt with what only the end of the stream told", () => {
    const first = { target: "targets[0]", status: 500, latency_ms: 3 };
    const last = {
      target: "targets[1]",
      status: 200,
      latency_ms: 4,
      hook_results: { before_request_hooks: [result("in")], after_request_hooks: [] },
    };
    const filters = { source: "azure_content_filter", filtered: false };
    const record = buildRecord(
      facts({
        status: 200,
        attempts: [first, last],
        hookResults: { before_request_hooks: [result("in")] },
        stream: {
          output: { status: 446, results: [result("out", false)] },
          outputSkipped: false,
          stop: { guardrails: ["out"], released_chars: 12, mode: "window" },
        },
        providerFilters: filters,
      }),
    );
    expect(record.hook_results.after_request_hooks.map((r) => r.id)).toEqual(["out"]);
    expect(record.attempts[1]?.hook_results?.after_request_hooks.map((r) => r.id)).toEqual(["out"]);
    expect(record.attempts[0]).not.toHaveProperty("provider_filters");
    expect(record.attempts[1]?.provider_filters).toEqual(filters);
    expect(record.provider_filters).toEqual(filters);
    expect(record.stream_output_denied).toBe(true);
    expect(record.stream_stop).toEqual({ guardrails: ["out"], released_chars: 12, mode: "window" });
    expect(record.error).toEqual({ code: "hooks_failed", message: "stopped by output guardrail out" });
  });

  it("marks a stream whose output guardrails had no text to check", () => {
    const record = buildRecord(facts({ stream: { outputSkipped: true } }));
    expect(record.stream_output_skipped).toBe(true);
    expect(record).not.toHaveProperty("stream_output_denied");
  });

  it("adds the settlement and the kept bodies, each capped with a note", () => {
    const record = buildRecord(
      facts({
        settled: { usage: { input_tokens: 3, output_tokens: 4 }, cost: 0.5 },
        bodies: { request: { prompt: "x".repeat(100) }, response: { ok: true }, maxBytes: 32 },
      }),
    );
    expect(record.usage).toEqual({ input_tokens: 3, output_tokens: 4 });
    expect(record.cost).toBe(0.5);
    expect(record.request).toBe('{"prompt":"xxxxxxxxxxxxxxxxxxxxx');
    expect(record.response).toEqual({ ok: true });
    expect(record.body_notes).toEqual({ request: "truncated: 113 bytes of JSON, the first 32 kept as text" });
  });
});

describe("recordError", () => {
  it("names the refusal or the answer's own error first", () => {
    const error = { code: "upstream_error", message: "the upstream answered 500" };
    expect(recordError(facts({ error, clientClosed: true, stream: { outputSkipped: false, error: new Error("x") } }))).toBe(
      error,
    );
  });

  it("names a broken stream by its error's code, else stream_broken", () => {
    const coded = Object.assign(new Error("cut"), { code: "stream_timeout" });
    expect(recordError(facts({ stream: { outputSkipped: false, error: coded } }))).toEqual({
      code: "stream_timeout",
      message: "cut",
    });
    expect(recordError(facts({ stream: { outputSkipped: false, error: "reset" } }))).toEqual({
      code: "stream_broken",
      message: "reset",
    });
  });

  it("records a client that left only for a stream that ended without another error", () => {
    expect(recordError(facts({ clientClosed: true, stream: { outputSkipped: false } }))?.code).toBe("client_closed");
    // A JSON answer was complete before the client left: nothing to record.
    expect(recordError(facts({ clientClosed: true }))).toBeUndefined();
  });
});
